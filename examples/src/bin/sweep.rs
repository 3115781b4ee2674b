//! `sweep`: the ablation sweeps of the scheduler on the GPU, and their log-log plots.
//!
//! - `sweep run OUT.csv [--reps N] [--only WHAT]` (GPU machine) runs every sweep below, or the
//!   one `WHAT` names. Every result is checked. Writes one CSV line per point:
//!   `experiment,workload,block,threads,variant,x,kernel_ms`.
//!   - `scaling`: fib(35), nqueens(16, cutoff 7) and cilksort(2·10^7) over the worker count
//!     (grids of blocks of 32 and 256 threads, 1,024 to 131,072 threads; GTaP's
//!     `*_scaling_results.csv` points that fit on the chip at once), gtap's scheduler (`ws`).
//!   - `scaling-single`: the same with one CAS per claimed entry (`single`, blocks of 32).
//!   - `scaling-gq`: the same with one global FIFO queue (`gq`, GTaP's global-queue ablation,
//!     blocks of 32 and 256; at most 3 repetitions, the runs are slow). A point whose tasks
//!     overflow a pool or the queue is reported and skipped.
//!   - `tree-scaling`: the block-level binary tree of depth 20 (`tree_block`), compute-heavy
//!     (compute_iters 1024, mem_ops 64) and memory-heavy (64, 1024), over the number of
//!     block-level workers (grids of 16 to 4,096 blocks of 32 and 256 threads) with both
//!     schedulers (`ws`, `gq`), as GTaP's `tree_*_heavy_scaling_results.csv`; checked bit for
//!     bit against the block-order reference (`gq` overflows skipped as above). `block` is
//!     the block size, `threads` and `x` the number of blocks. `tree-scaling-gq` runs only
//!     the `gq` half.
//!
//!   The `gq` runs keep the total task capacity constant over the worker count (2^26 records
//!   for the thread-level workloads, 2^22 for the tree), as GTaP's did: FIFO order keeps a
//!   large part of the tree alive at once when there are few workers.
//!   - `epaq`, `epaq-nq`, `epaq-cilksort`: EPAQ on fib(40) over cutoffs 2..=18 with 1 and 3
//!     queues, nqueens(16) over cutoffs 3..=10 with 1 and 2, cilksort(5·10^7) over cutoffs
//!     64..=4096 with 1 and 3.
//! - `sweep plot OUT.csv ANCHORS_DIR IMG_DIR` (anywhere): draws each experiment beside GTaP's
//!   published curves from `ANCHORS_DIR` (`../shared/anchors/gtap-gh200`), with the ideal 1/P
//!   line from each of our curves' first point, as PNG and SVG.
//!
//! Layout: this file holds the command line and the order of the sweeps; `sweep/runs.rs` the
//! sweeps themselves, `sweep/plot.rs` the pictures.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::ExitCode;

use gtap::{Backend, Config, Runtime, Scheduler};
use gtap_examples::{
    apps::{
        binary_tree::{tree_block, BinaryTreeBlock},
        cilksort::{cilksort, CilkSort},
        fib::{fib, fib_cutoff, Fib, FibCutoff},
        nqueens::{nqueens, NQueens},
    },
    host,
    reference::{self, TreeWork},
};
use plotters::prelude::*;

#[path = "sweep/plot.rs"]
mod plot;
#[path = "sweep/runs.rs"]
mod runs;

use plot::plot;
use runs::{epaq_cilksort, epaq_nqueens, epaq_sweep, scaling, tree_scaling, GQ, SINGLE, WS};

/// The values of `--only`; without it, all of them in this order.
const ONLY: [&str; 8] = [
    "scaling",
    "scaling-single",
    "scaling-gq",
    "tree-scaling",
    "tree-scaling-gq",
    "epaq",
    "epaq-nq",
    "epaq-cilksort",
];

const USAGE: &str = "sweep run OUT.csv [--reps N] [--only scaling|scaling-single|scaling-gq|tree-scaling|tree-scaling-gq|epaq|epaq-nq|epaq-cilksort] | sweep plot OUT.csv ANCHORS_DIR IMG_DIR";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let r = match args.first().map(String::as_str) {
        Some("run") if args.len() >= 2 => {
            let flag = |name: &str| {
                args.iter()
                    .position(|a| a == name)
                    .and_then(|i| args.get(i + 1))
                    .cloned()
            };
            let reps = flag("--reps")
                .map_or(Ok(5), |s| s.parse::<usize>())
                .map_err(|e| format!("--reps: {e}"));
            let only = flag("--only");
            reps.and_then(|reps| run(Path::new(&args[1]), reps, only.as_deref()))
        }
        Some("plot") if args.len() == 4 => plot(
            Path::new(&args[1]),
            Path::new(&args[2]),
            Path::new(&args[3]),
        ),
        _ => Err(format!("usage: {USAGE}")),
    };
    match r {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("sweep: {e}");
            ExitCode::FAILURE
        }
    }
}

fn gpu(config: Config) -> Result<Runtime, String> {
    Runtime::with_ptx(
        Config {
            backend: Backend::Gpu,
            ..config
        },
        host::PTX,
    )
    .map_err(|e| e.to_string())
}

/// The median kernel time of `reps` runs of `f` (which checks its result).
fn median_kernel(
    rt: &mut Runtime,
    reps: usize,
    mut f: impl FnMut(&mut Runtime) -> Result<(), String>,
) -> Result<f64, String> {
    f(rt)?; // warm-up
    let mut ms = Vec::new();
    for _ in 0..reps {
        f(rt)?;
        ms.push(
            rt.last_stats()
                .and_then(|s| s.kernel_ms())
                .ok_or("no kernel time")?,
        );
    }
    Ok(host::median(&mut ms))
}

/// Appends `line` to the CSV at `out` (with the header when the file is new), so that a
/// failure later in the sweep keeps the points already measured.
fn append(out: &Path, line: &str) -> Result<(), String> {
    use std::io::Write as _;
    let new = !out.exists();
    let mut f = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(out)
        .map_err(|e| format!("{}: {e}", out.display()))?;
    if new {
        writeln!(f, "experiment,workload,block,threads,variant,x,kernel_ms")
            .map_err(|e| e.to_string())?;
    }
    writeln!(f, "{line}").map_err(|e| format!("{}: {e}", out.display()))
}

fn run(out: &Path, reps: usize, only: Option<&str>) -> Result<(), String> {
    if let Some(o) = only.filter(|o| !ONLY.contains(o)) {
        return Err(format!("--only {o}: expected one of {}", ONLY.join(", ")));
    }
    if only.is_none_or(|o| o == "scaling") {
        scaling(out, reps, WS)?;
    }
    if only.is_none_or(|o| o == "scaling-single") {
        scaling(out, reps, SINGLE)?;
    }
    if only.is_none_or(|o| o == "scaling-gq") {
        scaling(out, reps, GQ)?;
    }
    if only.is_none_or(|o| o == "tree-scaling") {
        tree_scaling(out, reps, &[WS, GQ])?;
    }
    if only == Some("tree-scaling-gq") {
        tree_scaling(out, reps, &[GQ])?;
    }
    if only.is_none_or(|o| o == "epaq") {
        epaq_sweep(out, reps)?;
    }
    if only.is_none_or(|o| o == "epaq-nq") {
        epaq_nqueens(out, reps)?;
    }
    if only.is_none_or(|o| o == "epaq-cilksort") {
        epaq_cilksort(out, reps)?;
    }
    Ok(())
}
