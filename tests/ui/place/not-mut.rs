#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let counts = [0u64; 4];
    counts[1] = task!(g(n));
    taskwait!();
    counts[1]
}
fn main() {}
