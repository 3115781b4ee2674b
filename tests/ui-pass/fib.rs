#[gtap::function]
fn fib(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    let a = task!(fib(n - 1));
    let b = task!(fib(n - 2));
    taskwait!();
    a + b
}
gtap::program!(Fib = [fib]);

fn main() {
    let (size, _) = gtap::__private::probe_layout(&fib);
    assert_eq!(size, 24);
}
