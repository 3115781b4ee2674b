#[gtap::function]
fn g(n: u64) -> u64 {
    n * n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let n = match n {
        0 => task!(g(1)),
        k => task!(g(k)),
    };
    taskwait!();
    n
}

fn main() {}
