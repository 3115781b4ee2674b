//! Generates the programs this crate runs on the GPU: the first `GTAP_RANDOM_GPU_COUNT` (default
//! 18) from seed `GTAP_RANDOM_GPU_SEED` on (default 1) whose bodies hold at most
//! `GTAP_RANDOM_GPU_MAX_STATEMENTS` statements (default 60) and six that panic
//! ([`PANICKING`]), or the seeds listed in
//! `GTAP_RANDOM_GPU_SEEDS` (`3,40,1017`: a failing seed again, say), each with its kernels
//! (`gtap_random_gen::Target::Gpu`), and their coverage report; then, with the feature `ptx`,
//! builds the crate for the GPU (`gtap-build`): the PTX that `src/main.rs` embeds (without it,
//! an empty one).

use std::{env, fs, path::PathBuf};

use gtap_random_gen::{gen, programs_module_for, shrink, Coverage, Target};

/// How many programs unless the environment says otherwise (besides [`PANICKING`]).
const DEFAULT_COUNT: u64 = 18;

/// Programs of at most 60 statements whose references panic (in `boom`), so that a panic on
/// the GPU is checked too: few programs do (`boom` panics for one argument in 61), and the
/// first 24 small ones from seed 1 none. These are the first six of the 19 that
/// `random-programs-gpu --cpu` found among the 122 small programs with a panic path in
/// seeds 1 to 3000; the runner prints the seeds that panic, so a change would show.
const PANICKING: [u64; 6] = [315, 556, 679, 742, 983, 1068];

/// The largest program taken unless the environment says otherwise. The driver compiles every
/// kernel of the module on its first launch, and a program's clones kernel costs more than
/// its size: `ptxas` took 16 s for the default kernel of a program of 171 statements and 77 s
/// for its clones kernel, 66 s for all kernels of seven programs of 13 to 114.
const DEFAULT_MAX_STATEMENTS: u64 = 60;

fn main() {
    println!("cargo:rerun-if-env-changed=GTAP_RANDOM_GPU_COUNT");
    println!("cargo:rerun-if-env-changed=GTAP_RANDOM_GPU_SEED");
    println!("cargo:rerun-if-env-changed=GTAP_RANDOM_GPU_MAX_STATEMENTS");
    println!("cargo:rerun-if-env-changed=GTAP_RANDOM_GPU_SEEDS");
    let number = |name: &str, default: u64| {
        env::var(name).map_or(default, |v| {
            v.parse()
                .unwrap_or_else(|_| panic!("{name} must be a number, got `{v}`"))
        })
    };
    let count = number("GTAP_RANDOM_GPU_COUNT", DEFAULT_COUNT);
    let seed = number("GTAP_RANDOM_GPU_SEED", 1);
    let max = number("GTAP_RANDOM_GPU_MAX_STATEMENTS", DEFAULT_MAX_STATEMENTS);
    let out = PathBuf::from(env::var("OUT_DIR").expect("OUT_DIR"));
    let mut cov = Coverage::default();
    let seeds: Vec<u64> = match env::var("GTAP_RANDOM_GPU_SEEDS") {
        Ok(list) => list
            .split(',')
            .map(|v| {
                v.trim().parse().unwrap_or_else(|_| {
                    panic!("GTAP_RANDOM_GPU_SEEDS must be seeds separated by commas, got `{v}`")
                })
            })
            .collect(),
        Err(_) => (seed..)
            .filter(|&s| shrink::size(&gen::program(s, &mut Coverage::default())) as u64 <= max)
            .take(count as usize)
            .chain(PANICKING.iter().copied())
            .collect(),
    };
    // Programs are named after their seeds: each seed once.
    let mut seen = std::collections::HashSet::new();
    let progs: Vec<_> = seeds
        .into_iter()
        .filter(|s| seen.insert(*s))
        .map(|s| gen::program(s, &mut cov))
        .collect();
    fs::write(
        out.join("programs.rs"),
        programs_module_for(&progs, Target::Gpu),
    )
    .expect("programs.rs");
    fs::write(out.join("coverage.txt"), cov.report()).expect("coverage.txt");
    if env::var_os("CARGO_FEATURE_PTX").is_some() {
        gtap_build::build_this_crate();
    } else {
        let empty = out.join("no-ptx.txt");
        fs::write(&empty, "").expect("no-ptx.txt");
        println!("cargo:rustc-env=GTAP_PTX={}", empty.display());
    }
}
