#[gtap::function]
fn sq(x: u64) -> u64 {
    x * x
}

#[gtap::function]
fn f(x: u64) -> u64 {
    let a: u32 = task!(sq(x));
    taskwait!();
    u64::from(a)
}

fn main() {}
