#[gtap::function]
fn g(n: u64) -> u64 {
    n * n
}

#[gtap::function]
fn f(n: u64, k: u64) -> u64 {
    let scale = |x: u64| x * k;
    let a = task!(g(n));
    taskwait!();
    scale(a)
}

fn main() {}
