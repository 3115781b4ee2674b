#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f<'a>(n: u64) -> u64 {
    n
}
fn main() {}
