#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> Option<u64> {
    let a = task!(g(n));
    let b = n.checked_sub(1)?;
    taskwait!();
    Some(a + b)
}
fn main() {}
