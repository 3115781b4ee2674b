#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let a = task!(g(n)) else { return 0 };
    taskwait!();
    a
}
fn main() {}
