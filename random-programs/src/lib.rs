//! Random task programs run on the CPU executor and compared with plain Rust
//! (`docs/frontend.md`, "Random programs"). The programs come from `build.rs` (the generator
//! is `gtap-random-gen`; feature `ci-set`); [`check`] runs one on every configuration of
//! [`configs`] and compares each outcome with the reference's. `gtap-random-gpu` runs its own
//! programs on the GPU with [`Entry`], [`expected`] and [`run_on`].

use std::panic::{catch_unwind, AssertUnwindSafe};

use gtap::{Config, Error, Runtime};

/// The generated programs, both builds (`build.rs`): generated code, which no lint judges.
#[cfg(feature = "ci-set")]
#[allow(clippy::all, clippy::pedantic, unused)]
pub mod programs {
    include!(concat!(env!("OUT_DIR"), "/programs.rs"));
}

/// The coverage report of the generated set.
#[cfg(feature = "ci-set")]
pub const COVERAGE: &str = include_str!(concat!(env!("OUT_DIR"), "/coverage.txt"));

/// One generated program.
pub struct Entry {
    pub seed: u64,
    /// Statements in its bodies (what a minimizer shrinks).
    pub statements: usize,
    pub depth: u32,
    pub x: u64,
    /// The task build, run on a runtime.
    pub run: fn(&mut Runtime, u32, u64) -> gtap::Result<u64>,
    /// The reference: the same text with the markers as calls.
    pub reference: fn(u32, u64) -> u64,
    /// The task build's text.
    pub text: &'static str,
}

/// What a run gave: a value, or a panic in the named task function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Outcome {
    Value(u64),
    Panicked(String),
    /// Any other error (never expected).
    Failed(String),
}

/// The configurations each program runs on: 1, 2 and all workers, children as calls (in this
/// release build, sequential clones) on and off.
pub fn configs() -> Vec<(usize, bool)> {
    let all = std::thread::available_parallelism().map_or(4, |n| n.get());
    let mut w = vec![1, 2, all];
    w.dedup();
    w.into_iter()
        .flat_map(|w| [(w, true), (w, false)])
        .collect()
}

/// The reference's outcome; its panic names the only function with a panic path.
pub fn expected(e: &Entry) -> Outcome {
    match catch_unwind(AssertUnwindSafe(|| (e.reference)(e.depth, e.x))) {
        Ok(v) => Outcome::Value(v),
        Err(_) => Outcome::Panicked(gtap_random_gen::Program::PANICKING.into()),
    }
}

/// A run's outcome on a CPU runtime of `workers` workers, calls on or off.
pub fn outcome(e: &Entry, workers: usize, inline: bool) -> Outcome {
    let config = Config {
        workers,
        cpu_inline_children: inline,
        task_data_limit: gtap_random_gen::render::MAX_FRAME_BYTES,
        ..Config::default()
    };
    let mut rt = match Runtime::cpu(config) {
        Ok(rt) => rt,
        Err(err) => return Outcome::Failed(format!("runtime: {err}")),
    };
    run_on(&mut rt, e)
}

/// The outcome of `e` run on `rt` (any backend).
pub fn run_on(rt: &mut Runtime, e: &Entry) -> Outcome {
    match (e.run)(rt, e.depth, e.x) {
        Ok(v) => Outcome::Value(v),
        Err(Error::TaskPanicked { task, .. }) => Outcome::Panicked(task.to_string()),
        Err(err) => Outcome::Failed(err.to_string()),
    }
}

/// A configuration whose outcome differs from the reference's.
#[derive(Debug)]
pub struct Mismatch {
    pub seed: u64,
    pub workers: usize,
    pub inline: bool,
    pub expected: Outcome,
    pub got: Outcome,
}

/// Runs `e` on every configuration; the ones that differ from the reference.
pub fn check(e: &Entry) -> Vec<Mismatch> {
    let want = expected(e);
    configs()
        .into_iter()
        .filter_map(|(workers, inline)| {
            let got = outcome(e, workers, inline);
            (got != want).then(|| Mismatch {
                seed: e.seed,
                workers,
                inline,
                expected: want.clone(),
                got,
            })
        })
        .collect()
}

/// Silences the default panic message (programs with a panic path panic on purpose); the
/// caller takes the hook back (`std::panic::take_hook`) before it reports a failure.
pub fn quiet_panics() {
    std::panic::set_hook(Box::new(|_| {}));
}
