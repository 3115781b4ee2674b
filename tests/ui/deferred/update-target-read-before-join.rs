#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut total = n;
    total += task!(g(n - 1));
    let twice = total * 2;
    taskwait!();
    total + twice
}
fn main() {}
