#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let a = [0u64; 2];
    a[0] += task!(g(n));
    taskwait!();
    a[0]
}
fn main() {}
