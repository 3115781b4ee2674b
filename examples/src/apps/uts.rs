//! UTS, the Unbalanced Tree Search benchmark, binomial trees: a task per node, each returning
//! the node count of its subtree (joins all the way up).
//!
//! # The tree
//!
//! - The root has `b0` children; every other node has `m` children with probability `q` and
//!   none otherwise, independently. With `q · m` slightly below 1 the expected size is
//!   `1 + b0 / (1 - q · m)`, but the subtrees' sizes are heavy-tailed: a few root children
//!   hold most of the nodes, some paths are tens of thousands of nodes deep, and no cutoff or
//!   static split predicts where the work is.
//! - Node states are 64-bit. The root's is `child_state(seed, 0)` (the seed is the state of a
//!   virtual parent), child `i` of a node with state `s` gets `child_state(s, i)`
//!   = [`splitmix64`]`(s + i · 0x9e37_79b9_7f4a_7c15)`, the `(i + 1)`-th output of a splitmix64
//!   generator started at `s` (UTS uses SHA-1 for this; any good mixing function gives the
//!   same distribution, not the same trees). A non-root node has children when its state is
//!   below `q · 2^64` ([`UtsParams::q_threshold`]).
//! - `work` (optional per-node cost): `work` more splitmix64 rounds over the node's state,
//!   kept with `black_box` (UTS's compute granularity `-g`). It does not change the tree.
//!
//! # The tasks
//!
//! `uts(p, parent, depth, lo, hi)` counts the subtrees of children `lo..hi` of `parent` (a
//! state; the children are at `depth`). More than one child: split the range in two tasks
//! (the root's `b0` children and any `m > 2` fan out as a binary tree of ranges, since a task
//! spawns at most `Config::max_children` between joins). One child: this task *is* that node:
//! a leaf returns 1; otherwise it spawns the range of its first `ceil(n / 2)` children and,
//! when `n >= 2`, the range of the rest, and returns `1 +` their counts. With `m = 2`
//! there is one task per node plus `b0 - 2` range tasks at the root ([`UtsParams::tasks`]).
//! The host starts it as `uts(p, seed, 0, 0, 1)`.
//!
//! Refs: Olivier, Huan, Liu, Prins, Dinan, Sadayappan, Tseng, "UTS: An Unbalanced Tree Search
//! Benchmark", LCPC 2006. Its binomial sample trees have `q · m` just below 1 and `b0 = 2000`:
//! T3 `m = 8, q = 0.124875`, T3L `m = 5, q = 0.200014`, T3XXL `m = 2, q = 0.499995` (sizes
//! 4.1 · 10^6, 1.1 · 10^8, 2.8 · 10^9 with its SHA-1 states; ours differ, same distribution).

use super::seq::splitmix64;

/// The shape of a binomial UTS tree (plain data, passed to every task).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(C)]
pub struct UtsParams {
    /// A non-root node has children when its state is below this: `q · 2^64`.
    pub q_threshold: u64,
    /// Children of the root.
    pub b0: u32,
    /// Children of a non-root node that has any.
    pub m: u32,
    /// Extra splitmix64 rounds per node (0: none).
    pub work: u32,
}

impl UtsParams {
    /// The tree with root degree `b0`, `m` children with probability `q` (in `0..1`) and
    /// `work` extra rounds per node.
    #[must_use]
    pub fn new(b0: u32, m: u32, q: f64, work: u32) -> Self {
        // 2^64 as an f64 is exact; `as` saturates, so q = 1 gives u64::MAX.
        let q_threshold = (q.clamp(0.0, 1.0) * 18_446_744_073_709_551_616.0) as u64;
        Self {
            q_threshold,
            b0,
            m,
            work,
        }
    }

    /// `q`, back from the threshold.
    #[must_use]
    pub fn q(&self) -> f64 {
        self.q_threshold as f64 / 18_446_744_073_709_551_616.0
    }

    /// How many tasks `uts` runs for a tree of `nodes` nodes: one per node, plus the range
    /// tasks of each node with `n > 2` children (`n - 2` of them: a binary tree of ranges
    /// with `n` leaves has `n - 1` inner ranges, the node's own task being the first). Every
    /// non-root node is the root's child or one of `m` children of an inner node, so
    /// `(nodes - 1 - b0) / m` non-root nodes have children.
    #[must_use]
    pub fn tasks(&self, nodes: u64) -> u64 {
        let ranges = |n: u32| u64::from(n.saturating_sub(2));
        let inner = nodes.saturating_sub(1 + u64::from(self.b0)) / u64::from(self.m.max(1));
        nodes + ranges(self.b0) + inner * ranges(self.m)
    }
}

/// The state of child `i` of the node with state `parent`.
#[must_use]
pub fn child_state(parent: u64, i: u32) -> u64 {
    splitmix64(parent.wrapping_add(u64::from(i).wrapping_mul(0x9e37_79b9_7f4a_7c15)))
}

/// How many children the node with `state` at `depth` has.
#[must_use]
pub fn children(p: &UtsParams, state: u64, depth: u32) -> u32 {
    if depth == 0 {
        p.b0
    } else if state < p.q_threshold {
        p.m
    } else {
        0
    }
}

/// The per-node cost: `rounds` splitmix64 rounds over `state`, kept by `black_box` (nothing
/// at all when `rounds` is 0).
pub fn node_work(state: u64, rounds: u32) {
    if rounds == 0 {
        return;
    }
    let mut z = state;
    for _ in 0..rounds {
        z = splitmix64(z);
    }
    core::hint::black_box(z);
}

/// Nodes in the subtrees of children `lo..hi` (`lo < hi`) of the node with state `parent`,
/// whose children are at `depth`.
#[gtap::function]
pub fn uts(p: UtsParams, parent: u64, depth: u32, lo: u32, hi: u32) -> u64 {
    if hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let a = task!(uts(p, parent, depth, lo, mid));
        let b = task!(uts(p, parent, depth, mid, hi));
        taskwait!();
        a + b
    } else {
        let state = child_state(parent, lo);
        node_work(state, p.work);
        let n = children(&p, state, depth);
        if n == 0 {
            return 1;
        }
        // The first half has at least one child; a second half only when n >= 2.
        let half = n.div_ceil(2);
        let a = task!(uts(p, state, depth + 1, 0, half));
        let mut b = 0;
        if half < n {
            b = task!(uts(p, state, depth + 1, half, n));
        }
        taskwait!();
        1 + a + b
    }
}

gtap::program!(
    /// `uts` alone.
    pub Uts = [uts]
);
