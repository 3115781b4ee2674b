//! gtap's example programs.
//!
//! `apps/` holds the task functions: the same source is compiled for the host (the CPU executor
//! runs it) and, by `build.rs`, for `nvptx64-nvidia-cuda` (the GPU runs it). `reference` holds
//! the sequential and rayon versions every run is checked and timed against
//! (`reference_irregular`: BFS and SpMV; `reference_deep`: the chain and UTS); `host` the shared
//! plumbing of the programs in `src/bin/`, `cli` their command line (clap).
#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]

pub mod apps;
pub mod kernels;

#[cfg(not(target_arch = "nvptx64"))]
mod cli;
#[cfg(not(target_arch = "nvptx64"))]
pub mod host;
#[cfg(not(target_arch = "nvptx64"))]
pub mod inputs;
#[cfg(not(target_arch = "nvptx64"))]
pub mod reference;
#[cfg(not(target_arch = "nvptx64"))]
pub mod reference_deep;
#[cfg(not(target_arch = "nvptx64"))]
pub mod reference_irregular;
