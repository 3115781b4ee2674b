#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(x: u64) -> u64 {
    let x = {
        let a = task!(g(x));
        a * x
    };
    taskwait!();
    x
}
fn main() {}
