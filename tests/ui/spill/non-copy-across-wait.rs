#[gtap::function]
fn g(n: u32) -> u32 {
    n
}

#[gtap::function]
fn f(n: u32) -> u32 {
    let v = vec![n, n + 1];
    let a = task!(g(n));
    taskwait!();
    v[0] + a
}

fn main() {}
