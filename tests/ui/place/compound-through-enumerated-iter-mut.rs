#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut parts = [1u64; 4];
    for (k, part) in parts.iter_mut().enumerate() {
        *part += task!(g(n + k as u64));
    }
    taskwait!();
    parts.iter().sum()
}
fn main() {}
