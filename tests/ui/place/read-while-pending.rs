#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut counts = [0u64; 4];
    counts[0] = task!(g(n));
    let first = counts[1];
    taskwait!();
    counts[0] + first
}
fn main() {}
