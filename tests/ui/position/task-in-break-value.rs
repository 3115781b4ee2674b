#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let v = loop {
        break task!(g(n));
    };
    taskwait!();
    v
}
fn main() {}
