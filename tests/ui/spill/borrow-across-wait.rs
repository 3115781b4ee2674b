#[gtap::function]
fn g(n: u32) -> u32 {
    n
}

#[gtap::function]
fn f(n: u32) -> u32 {
    let v = [n, n + 1];
    let r = &v;
    let a = task!(g(n));
    taskwait!();
    r[0] + a
}

fn main() {}
