// A large array argument is part of the task data too: over the default 256 bytes.
#[gtap::function]
fn f(xs: [u64; 64], n: u32) -> u64 {
    if n == 0 {
        return xs[0];
    }
    let a = task!(f(xs, n - 1));
    taskwait!();
    a + 1
}

fn main() {
    let _ = gtap::__private::probe_layout(&f);
}
