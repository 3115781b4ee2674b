#[gtap::function]
fn g(n: u64) -> u64 {
    n * n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut a = if n > 2 { task!(g(n)) } else { n };
    taskwait!();
    a
}

fn main() {}
