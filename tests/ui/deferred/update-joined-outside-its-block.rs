#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut total = n;
    if n > 2 {
        total *= task!(g(n - 1));
    }
    taskwait!();
    total
}
fn main() {}
