#[gtap::function]
fn f(n: u32) -> u32 {
    let t = gtap::block::thread_index();
    gtap::block::sync();
    n + t
}

fn main() {}
