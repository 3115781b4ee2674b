#[gtap::function]
fn g(n: u32) -> u32 {
    n
}

fn foo(x: u32) -> u32 {
    x
}

#[gtap::function]
fn f(n: u32) -> u32 {
    let a = foo(task!(g(n)));
    let y = 1 + taskwait!();
    a + y
}

fn main() {}
