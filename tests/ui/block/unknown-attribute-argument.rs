#[gtap::function(blok)]
fn f(n: u32) -> u32 {
    n
}

#[gtap::function(block = true, max_frame_bytes = 512)]
fn g(n: u32) -> u32 {
    n
}

fn main() {}
