#[gtap::function]
fn g(n: u32) -> u32 {
    n
}

#[gtap::function]
fn f(n: u32) -> u32 {
    let a = task!(g(n));
    if n > 3 {
        return n;
    }
    taskwait!();
    a
}

fn main() {}
