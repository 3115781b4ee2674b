#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut total = 0u64;
    for i in 0..n {
        total += task!(g(i));
    }
    taskwait!();
    total
}
fn main() {}
