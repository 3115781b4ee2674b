#[gtap::function]
fn g(n: u64) -> u64 {
    n * n
}

#[gtap::function]
fn f(x: impl Into<u64> + Copy + 'static) -> u64 {
    let a = task!(g(x.into()));
    taskwait!();
    a
}

fn main() {}
