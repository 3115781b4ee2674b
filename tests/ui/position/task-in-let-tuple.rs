#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let (a, b) = task!(g2(n));
    taskwait!();
    a + b
}

#[gtap::function]
fn g2(n: u64) -> (u64, u64) {
    (n, n)
}
fn main() {}
