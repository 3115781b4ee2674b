//! Fibonacci with a task at every call (no cutoff): the classic fork-join stress test, all
//! scheduling overhead. `fib_cutoff` adds a sequential cutoff and EPAQ queue hints.

/// fib(n) with two child tasks per call.
#[gtap::function]
pub fn fib(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    let a = task!(fib(n - 1));
    let b = task!(fib(n - 2));
    taskwait!();
    a + b
}

/// fib(n) with tasks down to `cutoff` and sequential leaves. With `epaq`, children that will run
/// sequentially go to queue 1, the others to queue 0, and continuations after the join to queue
/// 2 (GTaP's EPAQ experiment: run with `Config::queues = 3`); without, everything uses queue 0.
#[gtap::function]
pub fn fib_cutoff(n: u32, cutoff: u32, epaq: bool) -> u64 {
    if n < 2 || n <= cutoff {
        return super::seq::fib(n);
    }
    let leaf_a = n - 1 <= cutoff;
    let leaf_b = n - 2 <= cutoff;
    let (qa, qb, qjoin) = if epaq {
        (leaf_a as u32, leaf_b as u32, 2)
    } else {
        (0, 0, 0)
    };
    let a = task!(queue = qa, fib_cutoff(n - 1, cutoff, epaq));
    let b = task!(queue = qb, fib_cutoff(n - 2, cutoff, epaq));
    taskwait!(queue = qjoin);
    a + b
}

gtap::program!(
    /// `fib` alone.
    pub Fib = [fib]
);
gtap::program!(
    /// `fib_cutoff` alone.
    pub FibCutoff = [fib_cutoff]
);
