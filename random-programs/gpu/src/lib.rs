//! Random task programs on the GPU, compared with plain Rust (`docs/frontend.md`, "Random
//! programs"): the programs of `build.rs`, compiled for the host (their references and entry
//! table) and for `nvptx64-nvidia-cuda` (their task functions and kernels, the PTX the binary
//! embeds). `src/main.rs` runs them.
#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]

#[cfg(not(target_arch = "nvptx64"))]
pub use gtap_random_programs::Entry;

/// The generated programs (`build.rs`): generated code, which no lint judges.
#[allow(clippy::all, clippy::pedantic, unused)]
pub mod programs {
    include!(concat!(env!("OUT_DIR"), "/programs.rs"));
}

/// The PTX of the programs' kernels, built by `build.rs` with the feature `ptx`; empty
/// without it.
#[cfg(not(target_arch = "nvptx64"))]
pub const PTX: &str = include_str!(env!("GTAP_PTX"));

/// The coverage report of the programs (`build.rs`).
#[cfg(not(target_arch = "nvptx64"))]
pub const COVERAGE: &str = include_str!(concat!(env!("OUT_DIR"), "/coverage.txt"));
