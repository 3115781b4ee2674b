//! The task functions of the examples. Everything here runs on both backends, so it is
//! `no_std` code: no allocation, no `std`, only `gtap::Slice` handles to user data.

pub mod bfs;
pub mod binary_tree;
pub mod chain;
pub mod cilksort;
pub mod constructs;
pub mod faults;
pub mod fib;
pub mod mergesort;
pub mod nqueens;
pub mod pruned_tree;
pub mod seq;
pub mod spmv;
pub mod uts;
