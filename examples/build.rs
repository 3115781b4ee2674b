//! Builds `src/apps` (and the kernel entries in `src/kernels.rs`) for the GPU: the PTX that
//! `host::PTX` embeds. See `gtap-build` for what this does and how to configure it.

fn main() {
    gtap_build::build_this_crate();
}
