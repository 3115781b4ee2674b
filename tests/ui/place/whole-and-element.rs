#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut pair = (0u64, 0u64);
    pair.0 = task!(g(n));
    taskwait!();
    let mut t = 0u64;
    t = task!(g(n));
    taskwait!();
    let _ = t;
    let mut p = (1u64, 2u64);
    p.1 = task!(g(n));
    taskwait!();
    p = task!(g2(n));
    taskwait!();
    pair.0 + p.0
}

#[gtap::function]
fn g2(n: u64) -> (u64, u64) {
    (n, n)
}
fn main() {}
