#[gtap::function]
fn g(n: u32) -> u32 {
    n
}

#[gtap::function]
fn f(n: u32) -> u32 {
    let a = task!(queu = 1, g(n));
    taskwait!(queue);
    a
}

fn main() {}
