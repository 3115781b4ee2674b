#[gtap::function]
fn g(n: u32) -> u32 {
    n
}

#[gtap::function(max_frame_bytes = 64)]
fn f(n: u32) -> u32 {
    let big = [n; 32];
    let a = task!(g(n));
    taskwait!();
    big[3] + a
}

fn main() {
    let _ = gtap::__private::probe_layout(&f);
}
