//! A chain of dependent tasks: `chain(n, x)` spawns exactly one child, `chain(n - 1, step(x))`,
//! and joins it before it can return, so the task tree is a path of depth `n` and nothing can
//! run in parallel. The time per step is the scheduler's latency for one spawn, one dispatch,
//! one finish and one resume of the parent: the fork-join overhead with no parallel slack to
//! hide it. It also needs `n` task records live at once (every ancestor waits), all made by
//! one worker, so a pool sized for bushy trees runs out here first.
//!
//! The result depends on every step and on their order: the leaf returns `step^n(x)` and each
//! level `k` on the way back folds itself in with [`mix`]`(r, k)`, which does not commute across
//! levels. `reference_deep::chain_seq` computes it with two loops (no recursion: a depth of
//! 10^6 would overflow a thread's stack).

/// The argument of the child: one step of splitmix64 ([`super::seq::splitmix64`], a
/// bijection on `u64`).
#[must_use]
pub fn step(x: u64) -> u64 {
    super::seq::splitmix64(x)
}

/// How level `k` combines its child's result `r`: xor the level in, rotate, multiply by an odd
/// constant. Cheap (three operations) and order-sensitive: `mix(mix(r, 1), 2)` and
/// `mix(mix(r, 2), 1)` differ.
#[must_use]
pub fn mix(r: u64, k: u32) -> u64 {
    (r ^ u64::from(k))
        .rotate_left(23)
        .wrapping_mul(0xff51_afd7_ed55_8ccd)
}

/// The chain of depth `n` from `x`: one child, one join per level.
#[gtap::function]
pub fn chain(n: u32, x: u64) -> u64 {
    if n == 0 {
        return x;
    }
    let r = task!(chain(n - 1, step(x)));
    taskwait!();
    mix(r, n)
}

gtap::program!(
    /// `chain` alone.
    pub Chain = [chain]
);
