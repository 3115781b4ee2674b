#[gtap::function]
fn f(n: u64) -> Option<&u64> {
    None
}

fn main() {}
