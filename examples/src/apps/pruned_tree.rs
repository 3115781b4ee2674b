//! A depth-dependent pruned 3-ary tree (GTaP's `prob_Bary_tree`): a node at `depth` has each of
//! its three children with probability `1 - depth / max_depth`, decided by a hash of the
//! run's seed, the node and the child, so the tree is the same on every backend and every run.
//! Each node joins its children and then does the binary tree's per-node work. The tree
//! thins out with depth: few ready tasks per warp near the leaves, the case where GTaP's
//! thread-level workers lose to block-level ones.
//!
//! Node numbering: children of `node` are `3 * node + 1 + c`, `c` in `0..3` (heap order).

use gtap::Table;

/// Whether child `c` of `node` at `depth` exists: `P = 1 - depth / max_depth`.
#[must_use]
pub fn child_kept(seed: u64, node: u64, c: u64, depth: u32, max_depth: u32) -> bool {
    // splitmix64 of (seed, child's number), mapped onto 0..max_depth by multiply-shift.
    let mut z = seed ^ (3 * node + 1 + c).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    let r = ((z >> 32) * u64::from(max_depth)) >> 32;
    r >= u64::from(depth)
}

/// The checksum of the subtree at `node`: its existing children's checksums plus its own work.
#[gtap::function]
#[allow(clippy::too_many_arguments)]
pub fn pruned_tree(
    depth: u32,
    max_depth: u32,
    node: u64,
    seed: u64,
    mem_ops: u32,
    compute_iters: u32,
    data: Table<f64>,
) -> f64 {
    if depth >= max_depth {
        return super::seq::tree_node_work(node, mem_ops, compute_iters, data);
    }
    let d = depth + 1;
    let kept = (
        child_kept(seed, node, 0, depth, max_depth),
        child_kept(seed, node, 1, depth, max_depth),
        child_kept(seed, node, 2, depth, max_depth),
    );
    let (n0, n1, n2) = (3 * node + 1, 3 * node + 2, 3 * node + 3);
    // One arm per set of existing children: each spawns exactly those and joins them in the
    // same arm (a result variable must receive a task on every path to its join).
    let (mut a, mut b, mut c) = (0.0, 0.0, 0.0);
    match kept {
        (true, true, true) => {
            let aa = task!(pruned_tree(
                d,
                max_depth,
                n0,
                seed,
                mem_ops,
                compute_iters,
                data
            ));
            let bb = task!(pruned_tree(
                d,
                max_depth,
                n1,
                seed,
                mem_ops,
                compute_iters,
                data
            ));
            let cc = task!(pruned_tree(
                d,
                max_depth,
                n2,
                seed,
                mem_ops,
                compute_iters,
                data
            ));
            taskwait!();
            a = aa;
            b = bb;
            c = cc;
        }
        (true, true, false) => {
            let aa = task!(pruned_tree(
                d,
                max_depth,
                n0,
                seed,
                mem_ops,
                compute_iters,
                data
            ));
            let bb = task!(pruned_tree(
                d,
                max_depth,
                n1,
                seed,
                mem_ops,
                compute_iters,
                data
            ));
            taskwait!();
            a = aa;
            b = bb;
        }
        (true, false, true) => {
            let aa = task!(pruned_tree(
                d,
                max_depth,
                n0,
                seed,
                mem_ops,
                compute_iters,
                data
            ));
            let cc = task!(pruned_tree(
                d,
                max_depth,
                n2,
                seed,
                mem_ops,
                compute_iters,
                data
            ));
            taskwait!();
            a = aa;
            c = cc;
        }
        (false, true, true) => {
            let bb = task!(pruned_tree(
                d,
                max_depth,
                n1,
                seed,
                mem_ops,
                compute_iters,
                data
            ));
            let cc = task!(pruned_tree(
                d,
                max_depth,
                n2,
                seed,
                mem_ops,
                compute_iters,
                data
            ));
            taskwait!();
            b = bb;
            c = cc;
        }
        (true, false, false) => {
            let aa = task!(pruned_tree(
                d,
                max_depth,
                n0,
                seed,
                mem_ops,
                compute_iters,
                data
            ));
            taskwait!();
            a = aa;
        }
        (false, true, false) => {
            let bb = task!(pruned_tree(
                d,
                max_depth,
                n1,
                seed,
                mem_ops,
                compute_iters,
                data
            ));
            taskwait!();
            b = bb;
        }
        (false, false, true) => {
            let cc = task!(pruned_tree(
                d,
                max_depth,
                n2,
                seed,
                mem_ops,
                compute_iters,
                data
            ));
            taskwait!();
            c = cc;
        }
        (false, false, false) => {}
    }
    a + b + c + super::seq::tree_node_work(node, mem_ops, compute_iters, data)
}

gtap::program!(
    /// `pruned_tree` alone.
    pub PrunedTree = [pruned_tree]
);

/// The block-level pruned tree: the same tree (same [`child_kept`] rule) with each node a
/// block task. The leader spawns the node's existing children and the block joins them; the
/// node's work is the block trees' ([`super::seq::tree_block_partial`] strided over the
/// threads, summed with [`gtap::block::sum_f64`]), so the checksum depends on the block size
/// `B` and equals `reference::pruned_tree_block_seq(.., B)` bit for bit (`B = 1` on the CPU).
#[gtap::function(block)]
#[allow(clippy::too_many_arguments)]
pub fn pruned_tree_block(
    depth: u32,
    max_depth: u32,
    node: u64,
    seed: u64,
    mem_ops: u32,
    compute_iters: u32,
    data: Table<f64>,
) -> f64 {
    let d = depth + 1;
    let (n0, n1, n2) = (3 * node + 1, 3 * node + 2, 3 * node + 3);
    let (mut a, mut b, mut c) = (0.0, 0.0, 0.0);
    if depth < max_depth && gtap::block::is_leader() {
        if child_kept(seed, node, 0, depth, max_depth) {
            a = task!(pruned_tree_block(
                d,
                max_depth,
                n0,
                seed,
                mem_ops,
                compute_iters,
                data
            ));
        }
        if child_kept(seed, node, 1, depth, max_depth) {
            b = task!(pruned_tree_block(
                d,
                max_depth,
                n1,
                seed,
                mem_ops,
                compute_iters,
                data
            ));
        }
        if child_kept(seed, node, 2, depth, max_depth) {
            c = task!(pruned_tree_block(
                d,
                max_depth,
                n2,
                seed,
                mem_ops,
                compute_iters,
                data
            ));
        }
    }
    // Every thread joins (the leader's children; the others have none).
    taskwait!();
    let (t, size) = (gtap::block::thread_index(), gtap::block::size());
    let own = super::seq::tree_block_partial(node, mem_ops, compute_iters, data, t, size);
    // Only thread 0's result counts, and it holds the children's results.
    a + b + c + gtap::block::sum_f64(own)
}

gtap::program!(
    /// `pruned_tree_block` alone: every node a block task.
    pub PrunedTreeBlock = [pruned_tree_block]
);
