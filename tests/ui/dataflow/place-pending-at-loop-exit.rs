#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut total = 0;
    let mut i = 0;
    while i < n {
        let mut counts = [0u64; 2];
        counts[0] = task!(g(i));
        i += 1;
    }
    taskwait!();
    total += i;
    total
}
fn main() {}
