#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let a = 1;
    taskwait!();
    a = 2;
    a
}
fn main() {}
