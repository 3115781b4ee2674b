#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

fn slot(n: u64) -> usize {
    (n % 4) as usize
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut counts = [0u64; 4];
    counts[slot(n)] += task!(g(n));
    taskwait!();
    counts.iter().sum()
}
fn main() {}
