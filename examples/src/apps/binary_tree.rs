//! A full binary tree of depth `max_depth`: each node spawns its two children, joins them, then
//! does `mem_ops` random loads and `compute_iters` multiply-adds (GTaP's binary_tree benchmark).
//! The root returns a checksum over all nodes, identical to the sequential one.

use gtap::Table;

/// The checksum of the subtree rooted at `node` (heap numbering) at `depth`.
#[gtap::function]
pub fn tree(
    depth: u32,
    max_depth: u32,
    node: u64,
    mem_ops: u32,
    compute_iters: u32,
    data: Table<f64>,
) -> f64 {
    let mut children = 0.0;
    if depth < max_depth {
        let left = task!(tree(
            depth + 1,
            max_depth,
            2 * node + 1,
            mem_ops,
            compute_iters,
            data
        ));
        let right = task!(tree(
            depth + 1,
            max_depth,
            2 * node + 2,
            mem_ops,
            compute_iters,
            data
        ));
        taskwait!();
        children = left + right;
    }
    children + super::seq::tree_node_work(node, mem_ops, compute_iters, data)
}

gtap::program!(
    /// `tree` alone.
    pub BinaryTree = [tree]
);

/// The block-level tree: the same tree with each node a block task. The leader (thread 0)
/// spawns the two children and the block joins them; then the node's work is strided over
/// the block's threads ([`super::seq::tree_block_partial`]) and summed with
/// [`gtap::block::sum_f64`]. The checksum depends on the block size `B` (the order of the
/// additions) and equals `reference::tree_block_seq(.., B)` bit for bit; on the CPU executor
/// `B = 1`.
#[gtap::function(block)]
pub fn tree_block(
    depth: u32,
    max_depth: u32,
    node: u64,
    mem_ops: u32,
    compute_iters: u32,
    data: Table<f64>,
) -> f64 {
    let mut left = 0.0;
    let mut right = 0.0;
    if depth < max_depth && gtap::block::is_leader() {
        left = task!(tree_block(
            depth + 1,
            max_depth,
            2 * node + 1,
            mem_ops,
            compute_iters,
            data
        ));
        right = task!(tree_block(
            depth + 1,
            max_depth,
            2 * node + 2,
            mem_ops,
            compute_iters,
            data
        ));
    }
    taskwait!();
    let (t, size) = (gtap::block::thread_index(), gtap::block::size());
    let own = super::seq::tree_block_partial(node, mem_ops, compute_iters, data, t, size);
    // Only thread 0's result counts, and it holds the children's sum: no broadcast needed.
    (left + right) + gtap::block::sum_f64(own)
}

gtap::program!(
    /// `tree_block` alone: every node a block task.
    pub BinaryTreeBlock = [tree_block]
);
