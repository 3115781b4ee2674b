#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut parts = [0u64; 4];
    for part in parts.iter_mut() {
        *part = task!(g(n));
    }
    taskwait!();
    parts.iter().sum()
}
fn main() {}
