#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

static mut TABLE: [u64; 4] = [0; 4];

#[gtap::function]
fn f(n: u64) -> u64 {
    TABLE_[0] = task!(g(n));
    taskwait!();
    n
}
fn main() {}
