#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut counts = [0u64; 4];
    let mut k = 0;
    counts[k] += task!(g(n));
    k += 1;
    counts[k] += task!(g(n + 1));
    taskwait!();
    counts[0] + counts[1]
}
fn main() {}
