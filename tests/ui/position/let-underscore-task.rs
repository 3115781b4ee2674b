#[gtap::function]
fn g(n: u64) -> u64 {
    n * n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let _ = task!(g(n));
    taskwait!();
    n
}

fn main() {}
