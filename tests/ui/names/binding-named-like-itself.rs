#[gtap::function]
fn fib(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let a = task!(fib(n - 1));
    let b = task!(fib(n - 2));
    taskwait!();
    let fib = a + b;
    fib
}

fn main() {}
