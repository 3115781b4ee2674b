#[gtap::function]
fn f(n: u64) -> Option<Vec<u64>> {
    Some(vec![n])
}

fn main() {}
