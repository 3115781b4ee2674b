#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let a = task!(g(n));
    match n {
        0 if { taskwait!(); true } => 0,
        _ => 1,
    }
}
fn main() {}
