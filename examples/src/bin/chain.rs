//! `chain [N] [X]`: a chain of N dependent tasks (each spawns one child and joins it), checked
//! against the sequential loop; prints the time per step. Runs with `Config::default()` plus
//! the command-line options. Every waiting ancestor holds a task record, all made by one
//! worker: the shared-deque scheduler (`--scheduler shared`) needs `--tasks-per-warp` above N.

use std::process::ExitCode;

use gtap_examples::{
    apps::chain::{chain, Chain},
    host::{self, Opts},
    reference_deep,
};

const USAGE: &str = "chain [N=1000000] [X=1] [--cpu|--gpu] [--workers N] [--reps N] [--grid N] [--block N] [--tasks-per-warp N] [--pool-bytes N] [--max-registers N] [--scheduler wf|shared|gq] [--profile DIR]";

fn main() -> ExitCode {
    let opts = Opts::from_env(USAGE);
    let n: u32 = opts.arg(0, "N", 1_000_000, USAGE);
    let x: u64 = opts.arg(1, "X", 1, USAGE);
    if n == 0 {
        eprintln!("error: N must be at least 1");
        return ExitCode::from(2);
    }
    let mut rt = match opts.runtime() {
        Ok(rt) => rt,
        Err(e) => return host::fail("chain", &e),
    };
    let host::Reps {
        last: result,
        mut times,
        mut kernel,
        ..
    } = match host::repeat(&mut rt, &opts, "chain", |rt| {
        rt.run::<Chain, _>(chain, (n, x))
    }) {
        Ok(reps) => reps,
        Err(code) => return code,
    };
    let tasks = rt.last_stats().map_or(0, |s| s.tasks);
    let (expected, seq_ms) = host::timed(|| reference_deep::chain_seq(n, x));
    let ms = host::median(&mut times);
    let per_step = |ms: f64| ms * 1e3 / f64::from(n);
    let kernel_part = if kernel.is_empty() {
        String::new()
    } else {
        let k = host::median(&mut kernel);
        format!(", kernel {k:.2} ms = {:.3} us per step", per_step(k))
    };
    println!(
        "chain({n}, {x}) = {result:#018x} on {} in {ms:.2} ms = {:.3} us per step end to end{kernel_part} (median of {}); {tasks} tasks; sequential {seq_ms:.2} ms",
        rt.backend_name(),
        per_step(ms),
        times.len()
    );
    host::report(
        "chain",
        result == expected && tasks == u64::from(n) + 1,
        &format!("expected {expected:#018x} over {} tasks", u64::from(n) + 1),
    )
}
