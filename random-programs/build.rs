//! Generates the programs this crate runs: `GTAP_RANDOM_COUNT` programs (default 200, the CI
//! set) from seed `GTAP_RANDOM_SEED` on (default 1), in both builds, into `programs.rs`, with
//! the coverage report of the set beside it.

use std::{env, fs, path::PathBuf};

use gtap_random_gen::{gen, programs_module, Coverage};

fn main() {
    println!("cargo:rerun-if-env-changed=GTAP_RANDOM_COUNT");
    println!("cargo:rerun-if-env-changed=GTAP_RANDOM_SEED");
    let count: u64 = env::var("GTAP_RANDOM_COUNT")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200);
    let seed: u64 = env::var("GTAP_RANDOM_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let mut cov = Coverage::default();
    let progs: Vec<_> = (seed..seed + count)
        .map(|s| gen::program(s, &mut cov))
        .collect();
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    fs::write(out.join("programs.rs"), programs_module(&progs)).expect("programs.rs");
    fs::write(out.join("coverage.txt"), cov.report()).expect("coverage.txt");
}
