#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut total = 0;
    for i in (0..n).rev().step_by(2) {
        let a = task!(g(i));
        taskwait!();
        total += a;
    }
    total
}
fn main() {}
