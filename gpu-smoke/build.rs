//! Builds this crate's task functions for the GPU (`GTAP_PTX`); see `gtap-build`.

fn main() {
    gtap_build::build_this_crate();
}
