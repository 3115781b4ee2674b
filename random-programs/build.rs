//! Generates the programs this crate runs: `GTAP_RANDOM_COUNT` programs (default 200, the CI
//! set) from seed `GTAP_RANDOM_SEED` on (default 1), in both builds, into `programs.rs`, with
//! the coverage report of the set beside it; or, with `GTAP_RANDOM_FILE`, that file's
//! programs as `random-program` wrote them (the minimizer's variants). Nothing without the
//! `ci-set` feature.

use std::{env, fs, path::PathBuf};

use gtap_random_gen::{gen, programs_module, Coverage};

fn main() {
    println!("cargo:rerun-if-env-changed=GTAP_RANDOM_COUNT");
    println!("cargo:rerun-if-env-changed=GTAP_RANDOM_SEED");
    println!("cargo:rerun-if-env-changed=GTAP_RANDOM_FILE");
    if env::var_os("CARGO_FEATURE_CI_SET").is_none() {
        return;
    }
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    if let Ok(file) = env::var("GTAP_RANDOM_FILE") {
        println!("cargo:rerun-if-changed={file}");
        let text = fs::read_to_string(&file).expect("GTAP_RANDOM_FILE names a readable file");
        let n = text.matches("crate::Entry {").count();
        fs::write(
            out.join("programs.rs"),
            format!("{text}\npub const EXPECTED: usize = {n};\n"),
        )
        .expect("programs.rs");
        fs::write(out.join("coverage.txt"), "gaps: none (a given file)\n").expect("coverage.txt");
        return;
    }
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
    let text = programs_module(&progs);
    fs::write(
        out.join("programs.rs"),
        format!("{text}\npub const EXPECTED: usize = {count};\n"),
    )
    .expect("programs.rs");
    fs::write(out.join("coverage.txt"), cov.report()).expect("coverage.txt");
}
