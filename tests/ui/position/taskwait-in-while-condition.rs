#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut i = 0;
    while { taskwait!(); i < n } {
        i += 1;
    }
    i
}
fn main() {}
