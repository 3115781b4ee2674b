#[gtap::function]
fn g(n: u64) -> u64 {
    n * n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    #[cfg(debug_assertions)]
    let twice = n * 2;
    let a = task!(g(n));
    taskwait!();
    #[cfg(debug_assertions)]
    assert!(twice >= n);
    a
}

fn main() {}
