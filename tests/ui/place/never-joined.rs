#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut counts = [0u64; 2];
    if n > 1 {
        counts[0] = task!(g(n));
        return 0;
    }
    taskwait!();
    counts[0]
}
fn main() {}
