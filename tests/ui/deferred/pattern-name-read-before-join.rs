#[gtap::function]
fn g(n: u64) -> (u64, u64) {
    (n, n * n)
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let a = n + 1;
    let (a, b) = if n > 2 { task!(g(n)) } else { task!(g(2)) };
    let c = a * 2;
    taskwait!();
    a + b + c
}
fn main() {}
