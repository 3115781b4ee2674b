//! GPU kernel entries: one persistent worker kernel per program (nothing on the host).

use crate::apps::{
    bfs::Bfs, binary_tree::BinaryTree, cilksort::CilkSort, fib::Fib, fib::FibCutoff,
    mergesort::MergeSort, nqueens::NQueens, pruned_tree::PrunedTree, spmv::Spmv,
};

gtap::kernel!(Fib);
gtap::kernel!(FibCutoff);
gtap::kernel!(NQueens);
gtap::kernel!(MergeSort);
gtap::kernel!(CilkSort);
gtap::kernel!(BinaryTree);
gtap::kernel!(Bfs);
gtap::kernel!(Spmv);
gtap::kernel!(PrunedTree);
