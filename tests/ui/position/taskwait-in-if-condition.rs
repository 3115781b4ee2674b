#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let a = task!(g(n));
    if { taskwait!(); a > 1 } {
        return 1;
    }
    a
}
fn main() {}
