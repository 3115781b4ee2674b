#[gtap::function]
fn g(n: u64) -> u64 {
    n
}

#[gtap::function]
fn f(n: u64) -> u64 {
    let mut v = [0u64; 2];
    let p = core::ptr::addr_of_mut!(v);
    v[1] = task!(g(n));
    // SAFETY: `v` is alive.
    let seen = unsafe { (*p)[1] };
    taskwait!();
    v[1] + seen
}
fn main() {}
