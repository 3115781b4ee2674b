#[gtap::function]
fn g(n: u32) -> u32 {
    n
}

#[gtap::function]
fn f(n: u32) -> u32 {
    assert!(task!(g(n)) > 0);
    n
}

fn main() {}
