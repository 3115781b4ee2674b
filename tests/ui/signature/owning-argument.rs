#[gtap::function]
fn f(name: String, n: u64) -> u64 {
    n + name.len() as u64
}

fn main() {}
