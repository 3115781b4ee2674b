#[gtap::function]
fn f(o: Option<&u64>, n: u64) -> u64 {
    n + o.map_or(0, |v| *v)
}

fn main() {}
