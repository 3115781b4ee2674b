#[gtap::function]
fn g(n: u64) -> (u64, u64) {
    (n, n * n)
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut s = 0;
    {
        let (a, b) = task!(g(n));
        s += n;
    }
    taskwait!();
    s
}
fn main() {}
