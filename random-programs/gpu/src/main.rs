//! `random-programs-gpu [--configs NAMES] [--cpu]`: runs every program of this build
//! (`build.rs`: `GTAP_RANDOM_GPU_COUNT` programs from seed `GTAP_RANDOM_GPU_SEED`) on the GPU
//! (`--cpu`: on the CPU executor, where the GPU's settings change nothing) on each
//! configuration of [`CONFIGS`], and compares each outcome (a value, or the name of the task
//! that panicked) with the plain-Rust reference's. Prints a line per program and
//! configuration that differs, with the program, and a summary; exits 1 when any differs, 2
//! when no GPU can be used.
//!
//! One runtime per configuration serves every program: the module loads once, and a run after
//! a panicking one must be as good as the first.

use std::process::ExitCode;

use gtap::{Backend, Config, Runtime};
use gtap_random_gpu::{programs::PROGRAMS, COVERAGE, PTX};
use gtap_random_programs::{expected, quiet_panics, run_on, Outcome};

/// A configuration: its name and what it changes from the default GPU one.
struct Setup {
    name: &'static str,
    what: &'static str,
    config: fn(Config) -> Config,
}

/// Every child a task; children as calls of their sequential clones from the root (one lane
/// runs the whole tree); calls below the root's children with hand-offs (idle warps ask a
/// lane in a clone for a piece of its tree).
const CONFIGS: [Setup; 3] = [
    Setup {
        name: "tasks",
        what: "every child a task (the default kernel)",
        config: |c| c,
    },
    Setup {
        name: "calls",
        what: "children as calls from the root (the clones kernel, depth 0)",
        config: |c| Config {
            gpu_clones: true,
            gpu_clone_depth: Some(0),
            ..c
        },
    },
    Setup {
        name: "hand-offs",
        what: "children as calls below depth 1, hand-offs on",
        config: |c| Config {
            gpu_clones: true,
            gpu_clone_depth: Some(1),
            gpu_hand_offs: true,
            ..c
        },
    },
];

const USAGE: &str = "usage: random-programs-gpu [--configs tasks,calls,hand-offs] [--cpu]";

fn main() -> ExitCode {
    let mut names: Vec<String> = CONFIGS.iter().map(|s| s.name.to_string()).collect();
    let mut backend = Backend::Gpu;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--configs" => match args.next() {
                Some(list) => names = list.split(',').map(String::from).collect(),
                None => {
                    eprintln!("--configs needs a list\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
            "--cpu" => backend = Backend::Cpu,
            other => {
                eprintln!("unexpected `{other}`\n{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    if let Some(bad) = names
        .iter()
        .find(|n| !CONFIGS.iter().any(|s| s.name == **n))
    {
        eprintln!("no configuration `{bad}`\n{USAGE}");
        return ExitCode::from(2);
    }
    if backend == Backend::Gpu && PTX.is_empty() {
        eprintln!(
            "this build has no GPU module: build it with `--features gtap-random-gpu/ptx` \
             (scripts/gpu-bundle.sh does), or run the programs on the CPU (`--cpu`)"
        );
        return ExitCode::from(2);
    }
    // Every register cap given to the JIT at once: a generated program's clones kernel needs
    // 255 registers (`ptxas`), so the automatic cap would compile each of them a second time,
    // at 168, on its first launch; the default kernels need 151 to 167 without a cap.
    let base = Config {
        backend,
        task_data_limit: gtap_random_gen::render::MAX_FRAME_BYTES,
        max_registers: Some(168),
        ..Config::default()
    };
    let seeds: Vec<String> = PROGRAMS.iter().map(|e| e.seed.to_string()).collect();
    println!(
        "{} programs (seeds {}; {} statements), coverage {}",
        PROGRAMS.len(),
        seeds.join(" "),
        PROGRAMS.iter().map(|e| e.statements).sum::<usize>(),
        COVERAGE
            .lines()
            .filter(|l| l.starts_with("pairs") || l.starts_with("gaps"))
            .collect::<Vec<_>>()
            .join(", ")
    );
    quiet_panics();
    let wants: Vec<Outcome> = PROGRAMS.iter().map(expected).collect();
    let panicking: Vec<String> = PROGRAMS
        .iter()
        .zip(&wants)
        .filter(|(_, w)| matches!(w, Outcome::Panicked(_)))
        .map(|(e, _)| e.seed.to_string())
        .collect();
    let panics = panicking.len();
    println!(
        "panicking in the reference: {}",
        if panicking.is_empty() {
            "none".to_string()
        } else {
            format!("seeds {}", panicking.join(" "))
        }
    );
    let mut bad = 0;
    for setup in CONFIGS.iter().filter(|s| names.iter().any(|n| n == s.name)) {
        let mut rt = match Runtime::with_ptx((setup.config)(base.clone()), PTX) {
            Ok(rt) => rt,
            Err(e) => {
                drop(std::panic::take_hook());
                eprintln!("no runtime for `{}`: {e}", setup.name);
                return ExitCode::from(2);
            }
        };
        let start = std::time::Instant::now();
        let mut differ = 0;
        for (e, want) in PROGRAMS.iter().zip(&wants) {
            let got = run_on(&mut rt, e);
            if got != *want {
                differ += 1;
                println!(
                    "seed {}: {}: expected {want:?}, got {got:?}\n{}",
                    e.seed, setup.name, e.text
                );
            }
        }
        println!(
            "{}: {} of {} programs match ({}; {} of them panic in the reference), {:.1} s",
            setup.name,
            PROGRAMS.len() - differ,
            PROGRAMS.len(),
            setup.what,
            panics,
            start.elapsed().as_secs_f64()
        );
        bad += differ;
    }
    drop(std::panic::take_hook());
    if bad > 0 {
        println!("random programs: {bad} mismatches");
        return ExitCode::FAILURE;
    }
    println!(
        "random programs: {} programs match plain Rust on {} ({:?})",
        PROGRAMS.len(),
        names.join(", "),
        backend
    );
    ExitCode::SUCCESS
}
