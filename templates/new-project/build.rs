//! Compiles this crate's library (the task functions in `src/lib.rs`) for the GPU
//! (`nvptx64-nvidia-cuda`, with the stable toolchain and `RUSTC_BOOTSTRAP=1` in a nested cargo)
//! and sets `GTAP_PTX` to the PTX file, which `src/main.rs` embeds. The first build installs the
//! rustup components it needs (`rust-src`, `llvm-tools`, `llvm-bitcode-linker`). `GTAP_SM`
//! picks the GPU architecture (default `sm_90`); `GTAP_PTXAS=/path/to/ptxas` also assembles the
//! PTX, so that a bad module fails the build instead of the run.

fn main() {
    gtap_build::build_this_crate();
}
