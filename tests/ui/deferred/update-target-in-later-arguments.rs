#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut s = n;
    s += task!(g(1));
    s += task!(g(s));
    taskwait!();
    s
}
fn main() {}
