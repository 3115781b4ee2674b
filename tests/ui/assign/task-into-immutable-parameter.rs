#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    n = task!(g(n));
    taskwait!();
    n
}
fn main() {}
