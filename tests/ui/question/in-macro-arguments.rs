#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> Option<u64> {
    let a = task!(g(n));
    taskwait!();
    assert!(n.checked_sub(a)? == 0);
    Some(a)
}
fn main() {}
