#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut counts = [0u64; 4];
    for i in 0..4 {
        counts[i] = task!(g(n));
        counts[3] = 1;
    }
    taskwait!();
    counts[0]
}
fn main() {}
