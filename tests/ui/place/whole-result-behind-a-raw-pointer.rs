#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut x = 0u64;
    let p = &raw const x;
    x = task!(g(n));
    let seen = unsafe { *p };
    taskwait!();
    x + seen
}
fn main() {}
