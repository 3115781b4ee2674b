//! Baselines of the deep workloads, `apps::chain` and `apps::uts`, and the UTS trees the
//! programs, tests and benchmark use.
//!
//! The sequential versions use no recursion (a chain of 10^6 or a UTS path 5 · 10^4 nodes
//! deep would overflow a thread's stack): `chain_seq` is two loops, `uts_seq` an explicit
//! stack. The rayon versions recurse like the tasks do, one `rayon::join` per fork, so they
//! must run on a [`deep_pool`], whose threads have stacks sized for the depth.

use crate::apps::{
    chain::{mix, step},
    uts::{child_state, children, node_work, UtsParams},
};

/// The chain of depth `n` from `x` (what `apps::chain::chain(n, x)` returns): `step` `n`
/// times down, then `mix(r, k)` for `k = 1..=n` on the way back up.
#[must_use]
pub fn chain_seq(n: u32, x: u64) -> u64 {
    let mut r = x;
    for _ in 0..n {
        r = step(r);
    }
    for k in 1..=n {
        r = mix(r, k);
    }
    r
}

/// The chain with a `rayon::join` per level (the other side of the join is empty): rayon's
/// cost of one dependent fork and join. Recursive: run it inside `deep_pool(n).install(..)`.
#[must_use]
pub fn chain_rayon(n: u32, x: u64) -> u64 {
    if n == 0 {
        return x;
    }
    let (r, ()) = rayon::join(|| chain_rayon(n - 1, step(x)), || ());
    mix(r, n)
}

/// Stack bytes a rayon thread needs per level of `chain_rayon` or `uts_rayon` recursion, with
/// room to spare. Measured in a release build on x86-64: a 10^6 chain overflowed 200 MiB and
/// ran in 300 MiB (210 to 315 bytes a level); the 10^7-node tree (3,557 levels) overflowed
/// 1 MiB and ran in 2 MiB. Debug builds get 8 times as much (`deep_pool`).
const STACK_PER_LEVEL: usize = 1024;

/// A rayon pool on every core whose threads' stacks hold `depth` levels of the recursive
/// baselines here (the stacks are reserved, not touched: memory is used only as deep as a
/// run goes).
///
/// # Panics
///
/// When the OS refuses the threads.
#[must_use]
pub fn deep_pool(depth: u64) -> rayon::ThreadPool {
    deep_pool_of(depth, 0)
}

/// [`deep_pool`] with `threads` threads (0: one per core).
///
/// # Panics
///
/// When the OS refuses the threads.
#[must_use]
pub fn deep_pool_of(depth: u64, threads: usize) -> rayon::ThreadPool {
    let per_level = if cfg!(debug_assertions) {
        8 * STACK_PER_LEVEL
    } else {
        STACK_PER_LEVEL
    };
    let bytes = usize::try_from(depth).unwrap_or(usize::MAX / 2);
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .stack_size((1 << 20) + bytes.saturating_mul(per_level))
        .build()
        .expect("a rayon pool with deep stacks")
}

/// A UTS binomial tree: its parameters and seed, and its shape as the sequential reference
/// measured it (so a run can be checked without recounting the tree).
#[derive(Clone, Copy, Debug)]
pub struct UtsTree {
    /// A short name (`only=` / command-line spelling).
    pub name: &'static str,
    /// Children of the root.
    pub b0: u32,
    /// Children of a non-root node that has any.
    pub m: u32,
    /// Probability that a non-root node has children.
    pub q: f64,
    /// The seed (the state of the root's virtual parent).
    pub seed: u64,
    /// Nodes, root included.
    pub nodes: u64,
    /// The deepest node's depth (the root is at 0).
    pub max_depth: u32,
}

impl UtsTree {
    /// The task arguments for this tree with `work` extra rounds per node.
    #[must_use]
    pub fn params(&self, work: u32) -> UtsParams {
        UtsParams::new(self.b0, self.m, self.q, work)
    }
}

/// ~10^5 nodes: tests and sanitizer runs. Mean size `1 + b0 / (1 - q m)` = 100,001.
pub const UTS_SMALL: UtsTree = UtsTree {
    name: "1e5",
    b0: 1_000,
    m: 2,
    q: 0.495,
    seed: 2,
    nodes: 110_047,
    max_depth: 333,
};

/// ~10^7 nodes: the quick GPU check. Mean size 10^7 + 1.
pub const UTS_MEDIUM: UtsTree = UtsTree {
    name: "1e7",
    b0: 10_000,
    m: 2,
    q: 0.4995,
    seed: 2,
    nodes: 9_336_063,
    max_depth: 3_557,
};

/// ~10^9 nodes: the benchmark. Mean size 10^9 + 1; the largest root child's subtree holds a
/// quarter of the nodes, and the deepest path is 45,634 nodes long.
pub const UTS_LARGE: UtsTree = UtsTree {
    name: "1e9",
    b0: 100_000,
    m: 2,
    q: 0.49995,
    seed: 2,
    nodes: 1_026_459_151,
    max_depth: 45_634,
};

/// The named trees, smallest first.
pub const UTS_TREES: [UtsTree; 3] = [UTS_SMALL, UTS_MEDIUM, UTS_LARGE];

/// What the sequential traversal counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UtsCount {
    /// Nodes, root included (what `apps::uts::uts` returns).
    pub nodes: u64,
    /// The deepest node's depth (the root is at 0).
    pub max_depth: u32,
}

/// Counts the tree of `p` and `seed` depth-first with an explicit stack.
#[must_use]
pub fn uts_seq(p: &UtsParams, seed: u64) -> UtsCount {
    /// A node whose children `next..end` (at `depth`) are still to be visited.
    struct Open {
        state: u64,
        depth: u32,
        next: u32,
        end: u32,
    }
    let root = child_state(seed, 0);
    node_work(root, p.work);
    let mut count = UtsCount {
        nodes: 1,
        ..UtsCount::default()
    };
    let mut stack = vec![Open {
        state: root,
        depth: 1,
        next: 0,
        end: children(p, root, 0),
    }];
    while let Some(top) = stack.last_mut() {
        if top.next == top.end {
            stack.pop();
            continue;
        }
        let (state, depth) = (child_state(top.state, top.next), top.depth);
        top.next += 1;
        node_work(state, p.work);
        count.nodes += 1;
        count.max_depth = count.max_depth.max(depth);
        let n = children(p, state, depth);
        if n > 0 {
            stack.push(Open {
                state,
                depth: depth + 1,
                next: 0,
                end: n,
            });
        }
    }
    count
}

/// Counts the tree with `rayon::join` where the tasks fork (same ranges, same splits).
/// Recursive: run it inside `deep_pool(max_depth).install(..)`.
#[must_use]
pub fn uts_rayon(p: &UtsParams, seed: u64) -> u64 {
    fn range(p: &UtsParams, parent: u64, depth: u32, lo: u32, hi: u32) -> u64 {
        if hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            let (a, b) = rayon::join(
                || range(p, parent, depth, lo, mid),
                || range(p, parent, depth, mid, hi),
            );
            return a + b;
        }
        let state = child_state(parent, lo);
        node_work(state, p.work);
        let n = children(p, state, depth);
        let half = n.div_ceil(2);
        if n == 0 {
            1
        } else if half == n {
            1 + range(p, state, depth + 1, 0, half)
        } else {
            let (a, b) = rayon::join(
                || range(p, state, depth + 1, 0, half),
                || range(p, state, depth + 1, half, n),
            );
            1 + a + b
        }
    }
    range(p, seed, 0, 0, 1)
}
