//! A full binary tree of depth `max_depth`: each node spawns its two children, joins them, then
//! does `mem_ops` random loads and `compute_iters` multiply-adds (GTaP's binary_tree benchmark).
//! The root returns a checksum over all nodes, identical to the sequential one.

use gtap::Slice;

/// The checksum of the subtree rooted at `node` (heap numbering) at `depth`.
#[gtap::function]
pub fn tree(
    depth: u32,
    max_depth: u32,
    node: u64,
    mem_ops: u32,
    compute_iters: u32,
    data: Slice<f64>,
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
