#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let a;
    a = task!(g(n));
    taskwait!();
    a = 5;
    a
}
fn main() {}
