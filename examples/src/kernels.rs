//! GPU kernel entries: one persistent worker kernel per program (nothing on the host).

use crate::apps::{
    bfs::{Bfs, BfsBlock, BfsMixed},
    binary_tree::{BinaryTree, BinaryTreeBlock},
    chain::Chain,
    cilksort::CilkSort,
    constructs::Constructs,
    faults::{Fan, FibFailing, SliceSum, Spin, TableSum, WildWrite},
    fib::{Fib, FibCutoff},
    mergesort::{MergeSort, MergeSortMixed},
    nqueens::NQueens,
    pruned_tree::{PrunedTree, PrunedTreeBlock},
    spmv::{Spmv, SpmvBlock},
    uts::Uts,
};

gtap::kernel!(Fib, clones);
gtap::kernel!(FibCutoff);
gtap::kernel!(NQueens);
gtap::kernel!(MergeSort, clones);
gtap::kernel!(CilkSort);
gtap::kernel!(BinaryTree);
gtap::kernel!(Bfs);
gtap::kernel!(Spmv);
gtap::kernel!(PrunedTree);
gtap::kernel!(BinaryTreeBlock);
gtap::kernel!(PrunedTreeBlock);
gtap::kernel!(SpmvBlock);
gtap::kernel!(BfsBlock);
gtap::kernel!(BfsMixed);
gtap::kernel!(MergeSortMixed);
gtap::kernel!(Constructs, clones);
gtap::kernel!(Chain, clones);
gtap::kernel!(Uts);
gtap::kernel!(SliceSum);
gtap::kernel!(TableSum);
gtap::kernel!(FibFailing);
gtap::kernel!(Fan);
gtap::kernel!(Spin);
gtap::kernel!(WildWrite);
