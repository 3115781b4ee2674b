#[inline]
#[gtap::function]
fn f(n: u64) -> u64 {
    n
}

fn main() {}
