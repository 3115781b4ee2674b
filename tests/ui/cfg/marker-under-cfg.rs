#[gtap::function]
fn g(n: u64) -> u64 {
    n * n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut t = 0;
    #[cfg(feature = "extra")]
    {
        t = task!(g(n));
    }
    taskwait!();
    t
}

fn main() {}
