#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> Option<u64> {
    let a = task!(g(n));
    taskwait!();
    let b = a?;
    Some(b)
}
fn main() {}
