#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut total = n;
    let p = &raw const total;
    total += task!(g(n));
    // SAFETY: `total` is alive.
    let seen = unsafe { *p };
    taskwait!();
    total + seen
}
fn main() {}
