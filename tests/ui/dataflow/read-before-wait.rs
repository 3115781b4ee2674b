#[gtap::function]
fn g(n: u32) -> u32 {
    n
}

#[gtap::function]
fn f(n: u32) -> u32 {
    let a = task!(g(n));
    let b = a + 1;
    taskwait!();
    b
}

fn main() {}
