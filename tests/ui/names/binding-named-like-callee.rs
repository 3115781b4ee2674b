#[gtap::function]
fn sq(n: u64) -> u64 {
    n * n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let sq = task!(sq(n));
    taskwait!();
    sq + 1
}

fn main() {}
