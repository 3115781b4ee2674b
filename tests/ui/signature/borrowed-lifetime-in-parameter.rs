#[derive(Clone, Copy)]
pub struct View<'a>(&'a [u32]);

#[gtap::function]
fn f(v: View<'_>, n: u64) -> u64 {
    n + v.0.len() as u64
}

fn main() {}
