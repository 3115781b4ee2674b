//! `bench`: every workload on gtap beside sequential Rust and rayon, in the same run.
//!
//! Prints, per workload, the median of `--reps` runs for each contender and the ratios.
//! On a machine with a GPU (`--gpu`, the default when one is present) the sizes are GTaP's
//! (fib(40), nqueens(16), mergesort 10^7, cilksort 10^8, binary tree depth 22, EPAQ on fib with a
//! cutoff; BFS on an R-MAT graph of 2^22 vertices and a 2048 × 2048 grid; SpMV; the binary
//! tree's `mem_ops` / `compute_iters` sweeps at depth 20) and gtap's time is given both as
//! kernel time (CUDA events) and end to end; with
//! `--cpu` the sizes are smaller and gtap runs on the CPU executor. Slow sequential baselines
//! (over 2 s a run) are timed 3 times, not `--reps` times.
//!
//! Workloads that carry data (`only=data`: the sorts, SpMV, BFS, the trees with their table)
//! time gtap as a user calling it with the data on the host pays: upload into device buffers
//! made once, run, download into host memory that exists, each phase's median and the median
//! of their per-rep sum ("what a user pays", the row's median), the correctness check timed
//! apart and not counted; the baselines copy their input into a buffer they keep, as the
//! upload does. A summary table of those rows and their targets ends the output.
//! `only=transfer` times the transfer paths of `gtap::Transfer` on 400 MB.
//!
//! Block-level and mixed-granularity rows (`only=block`, `only=mixed`, or by name): the binary
//! tree thread vs block, the tree sweeps, the pruned tree at D = 32, SpMV and BFS with
//! block-level tasks, and mergesort with block-level merges beside rayon. Their checksums are
//! checked against the block references for the block size they ran with (1 on the CPU).
//!
//! Deep rows (`only=deep`): a chain of 10^6 dependent tasks (time per step) and UTS binomial
//! trees of ~10^7 and ~10^9 nodes (CPU: ~10^5 and ~10^7), with `Config::default()`.
//!
//! The CPU executor's scaling (`only=cpu_scaling`, with `--cpu`): fib, nqueens, UTS and the
//! chain on 1 worker, 2 and every core beside rayon on as many threads, and its targets.
//!
//! Layout: this file holds the command line, the run's state ([`Bench`]) and the order of the
//! rows; `bench/table.rs` the measurement and every table; one module per row family:
//! `bench/thread.rs`, `bench/block.rs` (block-level and mixed), `bench/deep.rs`,
//! `bench/profile.rs` (the profiler's overhead), `bench/transfer.rs`, `bench/cpu.rs` (the CPU
//! executor's scaling and targets).

use std::process::ExitCode;

use gtap::{Backend, Config, Runtime, Transfer, TransferPath};
use gtap_examples::{
    apps::{
        bfs::{bfs_block, bfs_visit, Bfs, BfsBlock},
        binary_tree::{tree, tree_block, BinaryTree, BinaryTreeBlock},
        cilksort::{cilksort, CilkSort},
        fib::{fib, fib_cutoff, Fib, FibCutoff},
        mergesort::{mergesort, mergesort_mixed, MergeSort, MergeSortMixed, MERGE_PART_KEYS},
        nqueens::{nqueens, NQueens},
        pruned_tree::{pruned_tree, pruned_tree_block, PrunedTree, PrunedTreeBlock},
        spmv::{spmv, spmv_block, Spmv, SpmvBlock},
    },
    host::{self, Opts},
    inputs::{grid, random_matrix, rmat, Csr, Grid, Rmat},
    reference::{self, TreeWork},
    reference_irregular::{
        bfs_rayon, bfs_seq, spmv_block_seq, spmv_rayon, spmv_seq, traversed_edges, UNREACHED,
    },
};

// The deep rows live beside this file (a crate root looks for `mod` files next to it, where
// cargo would take them for binaries).
#[path = "bench/block.rs"]
mod block;
#[path = "bench/cpu.rs"]
mod cpu;
#[path = "bench/deep.rs"]
mod deep;
#[path = "bench/profile.rs"]
mod profile;
#[path = "bench/table.rs"]
mod table;
#[path = "bench/thread.rs"]
mod thread;
#[path = "bench/transfer.rs"]
mod transfer;

use table::{
    baseline, baselines, measure, measure_split, print_pays, print_table, print_vs_rayon,
    scheduler_ratio, Pays, Timing,
};

const USAGE: &str =
    "bench [--cpu|--gpu] [--reps N=10] [--workers N] [--block-threads N] [only=NAME,NAME..]";

/// `(mem_ops, compute_iters)` of the tree sweeps (GTaP's).
const TREE_SWEEP_POINTS: [(u32, u32); 6] = [
    (8, 256),
    (64, 256),
    (512, 256),
    (256, 64),
    (256, 1024),
    (256, 4096),
];

/// Threads per block of the block-level tree rows: GTaP's launch shape for them (blocks of 64,
/// as many as fit).
const TREE_BLOCK_THREADS: u32 = 64;

/// Merges of at least this many keys are block-level in the mixed mergesort row.
const BLOCK_MERGE_MIN: usize = 4096;

/// One workload of the benchmark: runs its contenders and prints its table.
type Workload = fn(&mut Bench) -> Result<(), String>;

/// The rayon row of a thread-level binary-tree sweep point, checked against `expected`.
fn rayon_tree_row(
    (depth, m, c): (u32, u32, u32),
    data: gtap::Table<f64>,
    expected: f64,
    reps: usize,
) -> Result<Timing, String> {
    baseline(
        &format!("rayon: mem_ops {m}, compute_iters {c}"),
        reps,
        || reference::tree_rayon(0, depth, 0, m, c, data).to_bits() == expected.to_bits(),
    )
}

fn err(e: gtap::Error) -> String {
    e.to_string()
}

struct Bench {
    rt: Runtime,
    reps: usize,
    gpu: bool,
    only: Vec<String>,
    /// `--block-threads`: overrides the block size of every block-level row.
    block_threads: Option<u32>,
    /// The workload running now (its `only=` name), for the summary.
    current: &'static str,
    /// Every data-carrying gtap row so far, for the summary at the end.
    pays: Vec<Pays>,
}

impl Bench {
    /// Prints the table of a workload with data and keeps its split rows for the summary.
    fn table(&mut self, title: &str, rows: &[Timing]) {
        print_table(title, rows);
        let (seq, rayon) = baselines(rows);
        for r in rows {
            if let Some(split) = r.split {
                self.pays.push(Pays {
                    workload: self.current,
                    row: r.name.clone(),
                    split,
                    rayon,
                    seq,
                });
            }
        }
    }

    /// Whether `only=` asks for the workload `name` (or one of its `tags`, e.g. `block`).
    fn wants(&self, name: &str, tags: &[&str]) -> bool {
        self.only.is_empty()
            || self
                .only
                .iter()
                .any(|o| o == name || tags.contains(&o.as_str()))
    }

    fn kernel_ms(&self) -> Option<f64> {
        self.rt.last_stats().and_then(|s| s.kernel_ms())
    }

    fn gtap_name(&self) -> String {
        format!("gtap ({})", self.rt.backend_name())
    }

    fn rt_backend(&self) -> Backend {
        if self.gpu {
            Backend::Gpu
        } else {
            Backend::Cpu
        }
    }
}

/// The BFS rows' graphs: R-MAT of 2^`scale` vertices and a `side` x `side` grid.
fn bfs_graphs(scale: u32, side: u32) -> Result<[(String, Csr); 2], String> {
    Ok([
        (
            format!("R-MAT scale {scale}"),
            rmat(&Rmat::graph500(scale, 1)).map_err(|e| e.to_string())?,
        ),
        (
            format!("{side} x {side} grid"),
            grid(&Grid {
                width: side,
                height: side,
                removed_edges: 0,
                seed: 1,
            })
            .map_err(|e| e.to_string())?,
        ),
    ])
}

/// The arguments of `spmv` and `spmv_block`.
type SpmvArgs = (
    u32,
    u32,
    gtap::Slice<u32>,
    gtap::Slice<u32>,
    gtap::Slice<f64>,
    gtap::Slice<f64>,
    gtap::Slice<f64>,
);

/// What a user pays for one SpMV with `a` and `x` on the host: every input uploaded into
/// buffers made once, `run(rt, args)`, `y` downloaded; checked bit for bit against `expected`.
fn spmv_split(
    rt: &mut Runtime,
    name: &str,
    reps: usize,
    (a, x, expected): (&Csr, &[f64], &[f64]),
    run: impl Fn(&mut Runtime, SpmvArgs) -> gtap::Result<()>,
) -> Result<Timing, String> {
    let values = a.values_or_ones();
    let mut offsets = rt.upload(&a.offsets).map_err(err)?;
    let mut cols = rt.upload(&a.targets).map_err(err)?;
    let mut vals = rt.upload(&values).map_err(err)?;
    let mut xb = rt.upload(x).map_err(err)?;
    let y = rt.alloc_zeroed::<f64>(a.n_rows as usize).map_err(err)?;
    let mut got = vec![0f64; a.n_rows as usize];
    measure_split(name, reps, |ph| {
        ph.upload(|| -> gtap::Result<()> {
            rt.upload_into(&mut offsets, &a.offsets)?;
            rt.upload_into(&mut cols, &a.targets)?;
            rt.upload_into(&mut vals, &values)?;
            rt.upload_into(&mut xb, x)
        })
        .map_err(err)?;
        let args = (
            0,
            a.n_rows,
            offsets.slice(),
            cols.slice(),
            vals.slice(),
            xb.slice(),
            y.slice(),
        );
        ph.run(|| run(rt, args)).map_err(err)?;
        ph.kernel = rt.last_stats().and_then(|s| s.kernel_ms());
        ph.download(|| rt.download_into(&y, &mut got))
            .map_err(err)?;
        let same = ph.check(|| {
            got.iter()
                .zip(expected)
                .all(|(a, b)| a.to_bits() == b.to_bits())
        });
        if same {
            Ok(())
        } else {
            Err(format!("{name}: y differs from the reference"))
        }
    })
}

/// The arguments of `bfs_visit` and `bfs_block`.
type BfsArgs = (
    u32,
    u32,
    gtap::Table<u32>,
    gtap::Table<u32>,
    gtap::Slice<u32>,
);

/// What a user pays for one BFS from vertex 0 of `g` on the host: the graph and the initial
/// depths uploaded into buffers made once, `run(rt, args)`, the depths downloaded; checked
/// against `expected`.
fn bfs_split(
    rt: &mut Runtime,
    name: &str,
    reps: usize,
    (g, expected): (&Csr, &[u32]),
    run: impl Fn(&mut Runtime, BfsArgs) -> gtap::Result<()>,
) -> Result<Timing, String> {
    let mut init = vec![UNREACHED; g.n_rows as usize];
    init[0] = 0;
    let mut offsets = rt.replicate(&g.offsets).map_err(err)?;
    let mut targets = rt.replicate(&g.targets).map_err(err)?;
    let mut depths = rt.upload(&init).map_err(err)?;
    let mut got = vec![0u32; init.len()];
    measure_split(name, reps, |ph| {
        ph.upload(|| -> gtap::Result<()> {
            rt.replicate_into(&mut offsets, &g.offsets)?;
            rt.replicate_into(&mut targets, &g.targets)?;
            rt.upload_into(&mut depths, &init)
        })
        .map_err(err)?;
        let args = (0, 0, offsets.table(), targets.table(), depths.slice());
        ph.run(|| run(rt, args)).map_err(err)?;
        ph.kernel = rt.last_stats().and_then(|s| s.kernel_ms());
        ph.download(|| rt.download_into(&depths, &mut got))
            .map_err(err)?;
        if ph.check(|| got == expected) {
            Ok(())
        } else {
            Err(format!("{name}: depths differ from sequential BFS"))
        }
    })
}

fn main() -> ExitCode {
    let mut opts = Opts::from_env(USAGE);
    let only: Vec<String> = opts
        .positional
        .iter()
        .filter_map(|p| p.strip_prefix("only="))
        .flat_map(|s| s.split(','))
        .map(str::to_string)
        .collect();
    if opts.reps == 1 {
        opts.reps = 10;
    }
    let rt = match opts.runtime() {
        Ok(rt) => rt,
        Err(e) => return host::fail("bench", &e),
    };
    let gpu = rt.backend_name().contains("GPU") || rt.backend_name().contains("gpu");
    println!(
        "gtap bench: backend {}, rayon on {} threads, {} reps (median)",
        rt.backend_name(),
        rayon::current_num_threads(),
        opts.reps
    );
    let mut b = Bench {
        rt,
        reps: opts.reps,
        gpu,
        only,
        block_threads: opts.block_threads,
        current: "",
        pays: Vec::new(),
    };
    let mut failed = false;
    // (name, tags, workload): `only=` takes names and tags.
    // `data`: the workloads that carry data, whose gtap rows print what a user pays.
    let all: [(&str, &[&str], Workload); 22] = [
        ("fib", &[], Bench::fib),
        ("nqueens", &[], Bench::nqueens),
        ("cilksort", &["data"], |b| b.sort("cilksort")),
        ("mergesort", &["data"], |b| b.sort("mergesort")),
        ("binary_tree", &["data"], Bench::binary_tree),
        ("epaq", &[], Bench::epaq),
        ("tree_sweep", &[], Bench::tree_sweep),
        ("bfs", &["data"], Bench::bfs),
        ("spmv", &["data"], Bench::spmv),
        ("profile", &[], Bench::profile_overhead),
        ("pruned_tree", &["data"], Bench::pruned_tree),
        ("binary_tree_block", &["block"], Bench::binary_tree_block),
        ("tree_sweep_block", &["block"], Bench::tree_sweep_block),
        ("pruned_tree_block", &["block"], Bench::pruned_tree_block),
        ("spmv_block", &["block", "data"], Bench::spmv_block),
        ("bfs_block", &["block", "data"], Bench::bfs_block),
        (
            "mergesort_mixed",
            &["mixed", "data"],
            Bench::mergesort_mixed,
        ),
        ("transfer", &["data"], Bench::transfer),
        ("chain", &["deep"], Bench::chain),
        ("uts_1e7", &["deep", "uts"], Bench::uts_small),
        ("uts_1e9", &["deep", "uts"], Bench::uts_large),
        ("cpu_scaling", &["cpu"], Bench::cpu_scaling),
    ];
    for (name, tags, f) in all {
        if !b.wants(name, tags) {
            continue;
        }
        b.current = name;
        if let Err(e) = f(&mut b) {
            eprintln!("{name}: FAILED: {e}");
            failed = true;
        }
    }
    print_pays(&b.pays, b.gpu);
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
