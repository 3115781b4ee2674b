#[gtap::function]
fn fib(n: u64) -> u64 {
    if n < 10 {
        // meant as the sequential cutoff
        return if n < 2 { n } else { fib(n - 1) + fib(n - 2) };
    }
    let a = task!(fib(n - 1));
    let b = task!(fib(n - 2));
    taskwait!();
    a + b
}

fn main() {}
