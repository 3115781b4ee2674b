#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut total = 0u64;
    total += task!(g(n));
    taskwait!();
    total
}
fn main() {}
