#[gtap::function]
fn f(n: u64) -> u64 {
    n + 1
}

// `?` in the join's queue hint runs before the join: leaving there abandons the child.
#[gtap::function]
fn g(n: u64, q: Option<u32>) -> Option<u64> {
    let a = task!(f(n));
    taskwait!(queue = q?);
    Some(a)
}

fn main() {}
