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
//! upload does. A summary table of those rows and the issue-11 targets end the output.
//! `only=transfer` times the transfer paths of `gtap::Transfer` on 400 MB.
//!
//! Block-level and mixed-granularity rows (`only=block`, `only=mixed`, or by name): the binary
//! tree thread vs block, the tree sweeps, the pruned tree at D = 32, SpMV and BFS with
//! block-level tasks, and mergesort with block-level merges beside rayon. Their checksums are
//! checked against the block references for the block size they ran with (1 on the CPU).
//!
//! Deep rows (`only=deep`; `deep.rs`): a chain of 10^6 dependent tasks (time per step) and
//! UTS binomial trees of ~10^7 and ~10^9 nodes (CPU: ~10^5 and ~10^7), with `Config::default()`.

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
#[path = "bench/deep.rs"]
mod deep;

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

/// One contender's timings, in ms.
struct Timing {
    name: String,
    /// For a row with `split`: the median of upload + run + download (what a user pays).
    median: f64,
    kernel_median: Option<f64>,
    runs: usize,
    /// A data-carrying gtap row: the medians of each phase ([`measure_split`]).
    split: Option<Split>,
}

/// Medians (ms) of the phases of a data-carrying gtap call, each over the same reps.
#[derive(Clone, Copy, Debug)]
struct Split {
    /// Host data into device buffers that already exist (`Runtime::upload_into`).
    upload: f64,
    /// `Runtime::run`, wall time (pool reset, launch, kernel, result).
    run: f64,
    /// The kernel alone (CUDA events), inside `run`; `None` on the CPU.
    kernel: Option<f64>,
    /// Results back into host memory that already exists (`Runtime::download_into`).
    download: f64,
    /// The median of the per-rep sums upload + run + download.
    total: f64,
    /// The correctness check, timed apart and not in `total`.
    check: f64,
}

/// The phases of one data-carrying call, timed one by one (see [`measure_split`]); the
/// closure of a row wraps each step in the phase it belongs to.
#[derive(Default)]
struct Phases {
    upload: f64,
    run: f64,
    kernel: Option<f64>,
    download: f64,
    check: f64,
}

impl Phases {
    fn timed<R>(slot: &mut f64, f: impl FnOnce() -> R) -> R {
        let (r, ms) = host::timed(f);
        *slot += ms;
        r
    }

    /// Host to device copies (all the call's inputs).
    fn upload<R>(&mut self, f: impl FnOnce() -> R) -> R {
        Self::timed(&mut self.upload, f)
    }

    /// The run; `kernel` is its kernel time (`None` on the CPU).
    fn run<R>(&mut self, f: impl FnOnce() -> R) -> R {
        Self::timed(&mut self.run, f)
    }

    /// Device to host copies (all the call's outputs).
    fn download<R>(&mut self, f: impl FnOnce() -> R) -> R {
        Self::timed(&mut self.download, f)
    }

    /// The correctness check: timed, never counted in what a user pays.
    fn check<R>(&mut self, f: impl FnOnce() -> R) -> R {
        Self::timed(&mut self.check, f)
    }

    fn total(&self) -> f64 {
        self.upload + self.run + self.download
    }
}

/// Like [`measure`] for a data-carrying gtap call: `f` runs one call (upload, run, download)
/// and its check, each step inside its [`Phases`] method; one warm-up call (allocations, the
/// staging buffers, page faults) is not counted. The row's `median` is the median of the
/// per-rep sums upload + run + download; the check is reported apart.
fn measure_split(
    name: &str,
    reps: usize,
    mut f: impl FnMut(&mut Phases) -> Result<(), String>,
) -> Result<Timing, String> {
    f(&mut Phases::default())?;
    let mut done: Vec<Phases> = Vec::new();
    let mut reps = reps;
    while done.len() < reps {
        let mut p = Phases::default();
        f(&mut p)?;
        // Slow contenders (over 2 s a call) get 3 runs, as in `measure`.
        if done.is_empty() && p.total() > 2000.0 {
            reps = reps.min(3);
        }
        done.push(p);
    }
    let med = |g: fn(&Phases) -> f64| host::median(&mut done.iter().map(g).collect::<Vec<_>>());
    let kernels: Vec<f64> = done.iter().filter_map(|p| p.kernel).collect();
    let kernel = (!kernels.is_empty()).then(|| host::median(&mut kernels.clone()));
    let split = Split {
        upload: med(|p| p.upload),
        run: med(|p| p.run),
        kernel,
        download: med(|p| p.download),
        total: med(Phases::total),
        check: med(|p| p.check),
    };
    Ok(Timing {
        name: name.to_string(),
        median: split.total,
        kernel_median: kernel,
        runs: done.len(),
        split: Some(split),
    })
}

/// One workload of the benchmark: runs its contenders and prints its table.
type Workload = fn(&mut Bench) -> Result<(), String>;

/// The rayon row of a thread-level binary-tree sweep point, checked against `expected`.
fn rayon_tree_row(
    (depth, m, c): (u32, u32, u32),
    data: gtap::Slice<f64>,
    expected: f64,
    reps: usize,
) -> Result<Timing, String> {
    measure(
        &format!("rayon: mem_ops {m}, compute_iters {c}"),
        reps,
        || {
            Ok(
                (reference::tree_rayon(0, depth, 0, m, c, data).to_bits() == expected.to_bits())
                    .then_some(None)
                    .ok_or("rayon wrong")?,
            )
        },
    )
}

/// One line per (gtap, rayon) pair of rows: how much faster gtap's kernel was.
fn print_vs_rayon(rows: &[Timing], who: &str) {
    for pair in rows.chunks(2) {
        println!(
            "  {}: {who} {:.2}x faster than rayon",
            pair[1].name.trim_start_matches("rayon: "),
            pair[1].median / pair[0].kernel_median.unwrap_or(pair[0].median)
        );
    }
}

/// The line comparing the work-first scheduler's kernel median with the shared-deque
/// ablation's (empty without the latter).
fn scheduler_ratio(wf: &Timing, shared: Option<&Timing>) -> String {
    match (wf.kernel_median, shared.and_then(|t| t.kernel_median)) {
        (Some(a), Some(b)) => format!(
            "  work first / shared deque (kernel): {a:.2} / {b:.2} ms = {:.2}x faster\n",
            b / a
        ),
        _ => String::new(),
    }
}

fn measure(
    name: &str,
    reps: usize,
    mut f: impl FnMut() -> Result<Option<f64>, String>,
) -> Result<Timing, String> {
    let mut wall = Vec::new();
    let mut kernel = Vec::new();
    // One warm-up run (module load, page faults, thread start) that is not counted.
    f()?;
    let mut reps = reps;
    while wall.len() < reps {
        let (k, ms) = host::timed(&mut f);
        if let Some(k) = k? {
            kernel.push(k);
        }
        wall.push(ms);
        // A contender slower than 2 s (the sequential baselines) gets 3 runs, not `reps`.
        if wall.len() == 1 && ms > 2000.0 {
            reps = reps.min(3);
        }
    }
    let runs = wall.len();
    Ok(Timing {
        name: name.to_string(),
        median: host::median(&mut wall),
        kernel_median: (!kernel.is_empty()).then(|| host::median(&mut kernel)),
        runs,
        split: None,
    })
}

/// The baselines' medians in `rows`: the first `sequential...` and the first `rayon...` row.
fn baselines(rows: &[Timing]) -> (Option<f64>, Option<f64>) {
    let find = |p: &str| {
        rows.iter()
            .find(|r| r.name.starts_with(p))
            .map(|r| r.median)
    };
    (find("sequential"), find("rayon"))
}

/// The split of every data-carrying gtap row of a table: each phase's median, their sum
/// (what a user pays), the check (apart) and the sum over the baselines of the same run.
fn print_split(rows: &[Timing]) {
    let (seq, rayon) = baselines(rows);
    let split: Vec<_> = rows
        .iter()
        .filter_map(|r| r.split.map(|s| (r, s)))
        .collect();
    if split.is_empty() {
        return;
    }
    println!(
        "  what a user pays (ms)              {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>11} {:>9}",
        "upload", "run", "(kernel)", "download", "= total", "check", "total/rayon", "total/seq"
    );
    let opt = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.2}"));
    for (r, s) in split {
        println!(
            "  {:<34} {:>9.2} {:>9.2} {:>9} {:>9.2} {:>9.2} {:>9.2} {:>11} {:>9}",
            r.name,
            s.upload,
            s.run,
            opt(s.kernel),
            s.download,
            s.total,
            s.check,
            opt(rayon.map(|b| s.total / b)),
            opt(seq.map(|b| s.total / b)),
        );
    }
}

fn print_table(workload: &str, rows: &[Timing]) {
    println!("\n{workload}");
    println!(
        "  {:<34} {:>12} {:>12} {:>6} {:>10} {:>10}",
        "contender", "median ms", "kernel ms", "runs", "vs seq", "vs rayon"
    );
    let seq = rows
        .iter()
        .find(|r| r.name.starts_with("sequential"))
        .map(|r| r.median);
    let rayon = rows
        .iter()
        .find(|r| r.name.starts_with("rayon"))
        .map(|r| r.median);
    for r in rows {
        let best = r.kernel_median.unwrap_or(r.median);
        let ratio =
            |base: Option<f64>| base.map_or("-".to_string(), |b| format!("{:.2}x", b / best));
        let kernel = r
            .kernel_median
            .map_or("-".to_string(), |k| format!("{k:.2}"));
        println!(
            "  {:<34} {:>12.2} {:>12} {:>6} {:>10} {:>10}",
            r.name,
            r.median,
            kernel,
            r.runs,
            ratio(seq),
            ratio(rayon)
        );
    }
    print_split(rows);
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

/// One data-carrying gtap row of the summary.
struct Pays {
    workload: &'static str,
    row: String,
    split: Split,
    rayon: Option<f64>,
    seq: Option<f64>,
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

    /// A runtime for block-level rows: the bench's backend, the default grid (as many blocks
    /// as fit) and `block_threads` threads per block (unless `--block-threads` says otherwise).
    fn block_runtime(&self, block_threads: u32) -> Result<Runtime, String> {
        let config = Config {
            backend: self.rt_backend(),
            grid: None,
            block_threads: self.block_threads.unwrap_or(block_threads),
            ..Config::default()
        };
        Runtime::with_ptx(config, host::PTX).map_err(err)
    }

    /// The block size a block-level task runs with on `rt` (1 on the CPU executor).
    fn block_label(rt: &Runtime) -> String {
        format!(
            "gtap ({}), block-level B={}",
            rt.backend_name(),
            host::block_size(rt)
        )
    }

    /// The binary tree at depth 22 (m = c = 256), thread-level beside block-level (blocks of
    /// [`TREE_BLOCK_THREADS`]), rayon and sequential.
    fn binary_tree_block(&mut self) -> Result<(), String> {
        let depth = if self.gpu { 22 } else { 18 };
        let (m, c) = (256, 256);
        let work = TreeWork {
            mem_ops: m,
            compute_iters: c,
        };
        let mut values = reference::random_f64(1 << 20, 3);
        // SAFETY: `values` outlives every use of the handle in this function.
        let host_data = unsafe { gtap::Slice::from_raw_parts(values.as_mut_ptr(), values.len()) };
        let expected = reference::tree_rayon(0, depth, 0, m, c, host_data);
        let reps = self.reps;
        let data = self.rt.upload(&values).map_err(err)?;
        let name = format!("{}, thread-level", self.gtap_name());
        let thread = measure(&name, reps, || {
            let r = self
                .rt
                .run::<BinaryTree, _>(tree, (0, depth, 0, m, c, data.slice()))
                .map_err(err)?;
            if r.to_bits() != expected.to_bits() {
                return Err(format!("binary tree checksum {r}, expected {expected}"));
            }
            Ok(self.kernel_ms())
        })?;
        let mut brt = self.block_runtime(TREE_BLOCK_THREADS)?;
        let b = host::block_size(&brt);
        let expected_block = reference::tree_block_rayon(0, depth, 0, work, host_data, b);
        let bdata = brt.upload(&values).map_err(err)?;
        let block = measure(&Self::block_label(&brt), reps, || {
            let r = brt
                .run::<BinaryTreeBlock, _>(tree_block, (0, depth, 0, m, c, bdata.slice()))
                .map_err(err)?;
            if r.to_bits() != expected_block.to_bits() {
                return Err(format!(
                    "block binary tree (B={b}) checksum {r}, expected {expected_block}"
                ));
            }
            Ok(brt.last_stats().and_then(|s| s.kernel_ms()))
        })?;
        // The block-level workers before work first, beside the new ones.
        let shared_config = Config {
            scheduler: gtap::Scheduler::SharedDeque,
            block_threads: self.block_threads.unwrap_or(TREE_BLOCK_THREADS),
            ..Config::default()
        };
        let label = format!("gtap (gpu), block-level B={b}, shared deque (before)");
        let block_shared = self.variant_row(&label, shared_config, |rt| {
            let sdata = rt.upload(&values).map_err(err)?;
            let r = rt
                .run::<BinaryTreeBlock, _>(tree_block, (0, depth, 0, m, c, sdata.slice()))
                .map_err(err)?;
            if r.to_bits() != expected_block.to_bits() {
                return Err(format!("shared-deque block tree checksum {r}"));
            }
            Ok(())
        })?;
        let rayon = measure("rayon::join at every node", reps, || {
            Ok(
                (reference::tree_rayon(0, depth, 0, m, c, host_data).to_bits()
                    == expected.to_bits())
                .then_some(None)
                .ok_or("rayon wrong")?,
            )
        })?;
        let seq = measure("sequential", reps, || {
            Ok(
                (reference::tree_seq(0, depth, 0, m, c, host_data).to_bits() == expected.to_bits())
                    .then_some(None)
                    .ok_or("seq wrong")?,
            )
        })?;
        let t = |r: &Timing| r.kernel_median.unwrap_or(r.median);
        let ratio = t(&thread) / t(&block);
        let shared_ratio = block_shared.as_ref().map(|s| t(s) / t(&block));
        let mut rows = vec![thread, block];
        rows.extend(block_shared);
        rows.extend([rayon, seq]);
        print_table(
            &format!("binary tree thread vs block, depth {depth}, mem_ops {m}, compute_iters {c}"),
            &rows,
        );
        println!("  block-level {ratio:.2}x faster than thread-level");
        if let Some(r) = shared_ratio {
            println!("  block-level work first {r:.2}x faster than the shared deque");
        }
        Ok(())
    }

    /// The tree sweeps of [`Bench::tree_sweep`] with block-level nodes (blocks of
    /// [`TREE_BLOCK_THREADS`]), each beside rayon on the thread-level tree.
    fn tree_sweep_block(&mut self) -> Result<(), String> {
        let depth = if self.gpu { 20 } else { 14 };
        let mut values = reference::random_f64(1 << 20, 3);
        // SAFETY: `values` outlives every use of the handle in this function.
        let host_data = unsafe { gtap::Slice::from_raw_parts(values.as_mut_ptr(), values.len()) };
        let mut brt = self.block_runtime(TREE_BLOCK_THREADS)?;
        let b = host::block_size(&brt);
        let data = brt.upload(&values).map_err(err)?;
        let mut rows = Vec::new();
        for (m, c) in TREE_SWEEP_POINTS {
            let work = TreeWork {
                mem_ops: m,
                compute_iters: c,
            };
            let expected = reference::tree_block_rayon(0, depth, 0, work, host_data, b);
            let reps = self.reps;
            let name = format!("gtap block B={b}: mem_ops {m}, compute_iters {c}");
            rows.push(measure(&name, reps, || {
                let r = brt
                    .run::<BinaryTreeBlock, _>(tree_block, (0, depth, 0, m, c, data.slice()))
                    .map_err(err)?;
                if r.to_bits() != expected.to_bits() {
                    return Err(format!(
                        "tree_block(m {m}, c {c}, B={b}) = {r}, expected {expected}"
                    ));
                }
                Ok(brt.last_stats().and_then(|s| s.kernel_ms()))
            })?);
            let thread_expected = reference::tree_rayon(0, depth, 0, m, c, host_data);
            rows.push(rayon_tree_row(
                (depth, m, c),
                host_data,
                thread_expected,
                reps,
            )?);
        }
        print_table(
            &format!("block-level binary tree sweeps, depth {depth} (checked against the block reference)"),
            &rows,
        );
        print_vs_rayon(&rows, "gtap block");
        Ok(())
    }

    /// The pruned 3-ary tree at D = 32 (CPU: 20) with block-level nodes, beside rayon.
    fn pruned_tree_block(&mut self) -> Result<(), String> {
        let depth = if self.gpu { 32 } else { 20 };
        let (m, c, seed) = (256, 256, 1);
        let work = TreeWork {
            mem_ops: m,
            compute_iters: c,
        };
        let mut values = reference::random_f64(1 << 20, 3);
        // SAFETY: `values` outlives every use of the handle in this function.
        let host_data = unsafe { gtap::Slice::from_raw_parts(values.as_mut_ptr(), values.len()) };
        let mut brt = self.block_runtime(TREE_BLOCK_THREADS)?;
        let b = host::block_size(&brt);
        let data = brt.upload(&values).map_err(err)?;
        let (expected, nodes) =
            reference::pruned_tree_block_rayon(0, depth, 0, seed, work, host_data, b);
        let reps = self.reps;
        let gtap = measure(&Self::block_label(&brt), reps, || {
            let args = (0, depth, 0, seed, m, c, data.slice());
            let r = brt
                .run::<PrunedTreeBlock, _>(pruned_tree_block, args)
                .map_err(err)?;
            if r.to_bits() != expected.to_bits() {
                return Err(format!(
                    "block pruned tree D={depth} B={b}: {r}, expected {expected}"
                ));
            }
            Ok(brt.last_stats().and_then(|s| s.kernel_ms()))
        })?;
        let rayon = measure("rayon::join at every node", reps, || {
            let (_, n) = reference::pruned_tree_rayon(0, depth, 0, seed, m, c, host_data);
            Ok((n == nodes).then_some(None).ok_or("rayon wrong")?)
        })?;
        print_table(
            &format!("block-level pruned 3-ary tree, depth {depth} ({nodes} nodes), mem_ops {m}, compute_iters {c}"),
            &[gtap, rayon],
        );
        Ok(())
    }

    /// SpMV with block-level tasks (the spmv row's matrix), checked bit for bit against the
    /// block-order reference.
    fn spmv_block(&mut self) -> Result<(), String> {
        let (rows, per_row) = if self.gpu {
            (1_000_000, 64)
        } else {
            (100_000, 32)
        };
        let a: Csr = random_matrix(rows, per_row, 1).map_err(|e| e.to_string())?;
        let x = reference::random_f64(a.n_cols as usize, 1);
        let mut brt = self.block_runtime(Config::default().block_threads)?;
        let b = host::block_size(&brt);
        let expected = spmv_block_seq(&a, &x, b);
        let plain = spmv_seq(&a, &x);
        let reps = self.reps;
        let name = Self::block_label(&brt);
        let gtap = spmv_split(&mut brt, &name, reps, (&a, &x, &expected), |rt, args| {
            rt.run::<SpmvBlock, _>(spmv_block, args).map(|_| ())
        })?;
        let rayon = measure("rayon par_iter over rows", reps, || {
            Ok((spmv_rayon(&a, &x) == plain)
                .then_some(None)
                .ok_or("rayon wrong")?)
        })?;
        let seq = measure("sequential", reps, || {
            Ok((spmv_seq(&a, &x) == plain)
                .then_some(None)
                .ok_or("seq wrong")?)
        })?;
        self.table(
            &format!("block-level SpMV, random {rows} x {rows}, {} entries (gtap: the matrix and x uploaded every call; checked against the B={b} reference)", a.nnz()),
            &[gtap, rayon, seq],
        );
        Ok(())
    }

    /// BFS with block-level visits on the bfs row's graphs (edges/s).
    fn bfs_block(&mut self) -> Result<(), String> {
        let (scale, side) = if self.gpu { (22, 2048) } else { (16, 256) };
        let mut brt = self.block_runtime(Config::default().block_threads)?;
        for (what, g) in bfs_graphs(scale, side)? {
            let expected = bfs_seq(&g, 0);
            let edges = traversed_edges(&g, &expected);
            let reps = self.reps;
            let name = Self::block_label(&brt);
            let gtap = bfs_split(&mut brt, &name, reps, (&g, &expected), |rt, args| {
                rt.run::<BfsBlock, _>(bfs_block, args).map(|_| ())
            })?;
            let rayon = measure("rayon, level-synchronous", reps, || {
                Ok((bfs_rayon(&g, 0) == expected)
                    .then_some(None)
                    .ok_or("rayon wrong")?)
            })?;
            let seq = measure("sequential queue BFS", reps, || {
                Ok((bfs_seq(&g, 0) == expected)
                    .then_some(None)
                    .ok_or("seq wrong")?)
            })?;
            let teps = |t: &Timing| edges as f64 / t.kernel_median.unwrap_or(t.median) / 1e6;
            println!(
                "\n  block-level BFS edges/s on {what}: gtap {:.2} G, rayon {:.2} G, sequential {:.2} G ({edges} edges)",
                teps(&gtap), teps(&rayon), teps(&seq)
            );
            self.table(
                &format!(
                    "block-level BFS on {what}: {} vertices, {} edges (gtap: the graph and depths uploaded every call)",
                    g.n_rows,
                    g.nnz()
                ),
                &[gtap, rayon, seq],
            );
        }
        Ok(())
    }

    /// Mergesort of 10^7 keys (CPU: 10^6) with thread-level sorts and block-level merges of
    /// at least [`BLOCK_MERGE_MIN`] keys, beside rayon; prints gtap / rayon (the bar is 2).
    fn mergesort_mixed(&mut self) -> Result<(), String> {
        let n = if self.gpu { 10_000_000 } else { 1_000_000 };
        let cutoff = 128;
        let keys = reference::random_keys(n, 11);
        let mut brt = self.block_runtime(Config::default().block_threads)?;
        let reps = self.reps;
        let name = format!(
            "gtap ({}), mixed B={}",
            brt.backend_name(),
            host::block_size(&brt)
        );
        let mut data = brt.alloc_zeroed::<u32>(n).map_err(err)?;
        let tmp = brt.alloc_zeroed::<u32>(n).map_err(err)?;
        let mut sorted = vec![0u32; n];
        let mut expected = keys.clone();
        expected.sort_unstable();
        let gtap = measure_split(&name, reps, |ph| {
            ph.upload(|| brt.upload_into(&mut data, &keys))
                .map_err(err)?;
            let args = (data.slice(), tmp.slice(), cutoff, BLOCK_MERGE_MIN);
            ph.run(|| brt.run::<MergeSortMixed, _>(mergesort_mixed, args))
                .map_err(err)?;
            ph.kernel = brt.last_stats().and_then(|s| s.kernel_ms());
            ph.download(|| brt.download_into(&data, &mut sorted))
                .map_err(err)?;
            if !ph.check(|| sorted == expected) {
                return Err(format!(
                    "mixed mergesort of {n} keys: not a sorted permutation"
                ));
            }
            Ok(())
        })?;
        // The baselines copy the keys into a buffer they keep, as gtap's upload does.
        let mut v = keys.clone();
        let rayon = measure("rayon::join + split merges, same algorithm", reps, || {
            v.copy_from_slice(&keys);
            reference::mergesort_rayon_split(&mut v, cutoff, BLOCK_MERGE_MIN);
            Ok(v.is_sorted().then_some(None).ok_or("rayon did not sort")?)
        })?;
        let rayon_seq_merge = measure("rayon::join, sequential merges", reps, || {
            v.copy_from_slice(&keys);
            reference::mergesort_rayon(&mut v, cutoff);
            Ok(v.is_sorted().then_some(None).ok_or("rayon did not sort")?)
        })?;
        let seq = measure("sequential", reps, || {
            v.copy_from_slice(&keys);
            reference::mergesort_seq(&mut v, cutoff);
            Ok(v.is_sorted().then_some(None).ok_or("seq did not sort")?)
        })?;
        let t = |r: &Timing| r.kernel_median.unwrap_or(r.median);
        let (kernel_ratio, pays_ratio) = (t(&gtap) / rayon.median, gtap.median / rayon.median);
        self.table(
            &format!("mixed mergesort of {n} random u32, block merges from {BLOCK_MERGE_MIN} keys, split over blocks from {} keys (gtap: upload + run + download; baselines: copy + sort)", 2 * MERGE_PART_KEYS),
            &[gtap, rayon, rayon_seq_merge, seq],
        );
        println!(
            "  gtap / rayon (same algorithm): {kernel_ratio:.2} (kernel), {pays_ratio:.2} (upload + run + download); the bar is <= 2"
        );
        Ok(())
    }

    /// The transfer paths side by side (GPU only): 10^8 u32 (400 MB, cilksort's keys) into a
    /// device buffer that exists and back into a slice that exists, for each path and lane
    /// count of `Config::transfer`; the measurement behind the default (`gtap::Transfer`).
    fn transfer(&mut self) -> Result<(), String> {
        if !self.gpu {
            println!("\ntransfer paths: GPU only (the CPU executor's buffers are host memory)");
            return Ok(());
        }
        let n = 100_000_000usize;
        let keys = reference::random_keys(n, 5);
        let mut back = vec![0u32; n];
        let d = Transfer::default();
        let mut paths: Vec<(String, Transfer)> = [1, 2, 4, 8, 16]
            .into_iter()
            .map(|threads| {
                let t = Transfer { threads, ..d };
                (format!("staged, {threads} lane(s), 4 MiB chunks"), t)
            })
            .collect();
        for (mib, name) in [(1, "1 MiB"), (16, "16 MiB")] {
            let t = Transfer {
                threads: 8,
                chunk_bytes: mib << 20,
                ..d
            };
            paths.push((format!("staged, 8 lanes, {name} chunks"), t));
        }
        for (path, name) in [
            (TransferPath::Registered, "registered (pinned per call)"),
            (TransferPath::Direct, "direct (pageable, the driver stages)"),
        ] {
            paths.push((name.to_string(), Transfer { path, ..d }));
        }
        println!(
            "\ntransfer paths: {n} u32 ({} MB) up and down, medians of {} reps (default: {d:?})",
            n * 4 / 1_000_000,
            self.reps
        );
        println!(
            "  {:<40} {:>11} {:>7} {:>11} {:>7}",
            "path", "upload ms", "GB/s", "download ms", "GB/s"
        );
        for (name, transfer) in paths {
            let config = Config {
                backend: Backend::Gpu,
                transfer,
                ..Config::default()
            };
            let t = Runtime::with_ptx(config, host::PTX)
                .and_then(|rt| Ok((rt.alloc_zeroed::<u32>(n)?, rt)))
                .map_err(err)
                .and_then(|(mut buf, rt)| {
                    measure_split(&name, self.reps, |ph| {
                        ph.upload(|| rt.upload_into(&mut buf, &keys)).map_err(err)?;
                        ph.download(|| rt.download_into(&buf, &mut back))
                            .map_err(err)?;
                        if ph.check(|| back == keys) {
                            Ok(())
                        } else {
                            Err(format!("transfer {name}: the data came back different"))
                        }
                    })
                });
            // A path the machine does not support is reported and the others still run; the
            // default path must work.
            let s = match t {
                Ok(t) => t.split.ok_or("no split")?,
                Err(e) if transfer.path != TransferPath::Staged => {
                    println!("  {name:<40} failed: {e}");
                    continue;
                }
                Err(e) => return Err(e),
            };
            let gbs = |ms: f64| (n * 4) as f64 / ms / 1e6;
            println!(
                "  {name:<40} {:>11.2} {:>7.1} {:>11.2} {:>7.1}",
                s.upload,
                gbs(s.upload),
                s.download,
                gbs(s.download)
            );
        }
        Ok(())
    }

    fn kernel_ms(&self) -> Option<f64> {
        self.rt.last_stats().and_then(|s| s.kernel_ms())
    }

    fn gtap_name(&self) -> String {
        format!("gtap ({})", self.rt.backend_name())
    }

    /// On the GPU, the same workload under the previous scheduler ([`Scheduler::SharedDeque`],
    /// with `tasks_per_warp` records per warp), as a row beside the work-first one; `None` on
    /// the CPU.
    fn shared_deque_row(
        &self,
        tasks_per_warp: u32,
        grid: Option<u32>,
        f: impl FnMut(&mut Runtime) -> Result<(), String>,
    ) -> Result<Option<Timing>, String> {
        let config = Config {
            scheduler: gtap::Scheduler::SharedDeque,
            tasks_per_warp,
            grid,
            ..Config::default()
        };
        self.variant_row("gtap (gpu), shared deque (before)", config, f)
    }

    /// On the GPU, the same workload under `config` (its backend set here), as a row named
    /// `label` beside the default one; `None` on the CPU.
    fn variant_row(
        &self,
        label: &str,
        config: Config,
        mut f: impl FnMut(&mut Runtime) -> Result<(), String>,
    ) -> Result<Option<Timing>, String> {
        if !self.gpu {
            return Ok(None);
        }
        let config = Config {
            backend: self.rt_backend(),
            ..config
        };
        let mut rt = Runtime::with_ptx(config, host::PTX).map_err(err)?;
        let t = measure(label, self.reps, || {
            f(&mut rt)?;
            Ok(rt.last_stats().and_then(|s| s.kernel_ms()))
        })?;
        Ok(Some(t))
    }

    fn fib(&mut self) -> Result<(), String> {
        let n = if self.gpu { 40 } else { 32 };
        let expected = reference::fib_seq(n);
        let reps = self.reps;
        let name = self.gtap_name();
        let gtap = measure(&name, reps, || {
            let r = self.rt.run::<Fib, _>(fib, (n,)).map_err(err)?;
            if r != expected {
                return Err(format!("fib({n}) = {r}, expected {expected}"));
            }
            Ok(self.kernel_ms())
        })?;
        let rayon = measure("rayon::join at every call", reps, || {
            Ok((reference::fib_rayon(n) == expected)
                .then_some(None)
                .ok_or("rayon wrong")?)
        })?;
        let seq = measure("sequential", reps, || {
            Ok((reference::fib_seq(n) == expected)
                .then_some(None)
                .ok_or("seq wrong")?)
        })?;
        let tasks = self.rt.last_stats().map_or(0, |s| s.tasks);
        let shared = self.shared_deque_row(8192, None, |rt| {
            let r = rt.run::<Fib, _>(fib, (n,)).map_err(err)?;
            (r == expected)
                .then_some(())
                .ok_or(format!("fib({n}) = {r}"))
        })?;
        let ratio = scheduler_ratio(&gtap, shared.as_ref());
        let mut rows = vec![gtap];
        rows.extend(shared);
        rows.extend([rayon, seq]);
        print_table(
            &format!("fib({n}), a task per call ({tasks} tasks in the last gtap run)"),
            &rows,
        );
        print!("{ratio}");
        Ok(())
    }

    fn epaq(&mut self) -> Result<(), String> {
        let (n, cutoffs): (u32, &[u32]) = if self.gpu {
            (40, &[9, 13, 18])
        } else {
            (30, &[9, 13])
        };
        let expected = reference::fib_seq(n);
        let mut rows = Vec::new();
        for &cutoff in cutoffs {
            for (queues, epaq) in [(1u32, false), (3, true)] {
                let config = Config {
                    backend: self.rt_backend(),
                    queues,
                    ..Config::default()
                };
                let mut rt = Runtime::with_ptx(config, host::PTX).map_err(err)?;
                let t = measure(
                    &format!("cutoff {cutoff}, {queues} queue(s)"),
                    self.reps,
                    || {
                        let r = rt
                            .run::<FibCutoff, _>(fib_cutoff, (n, cutoff, epaq))
                            .map_err(err)?;
                        if r != expected {
                            return Err(format!(
                                "fib_cutoff({n}, {cutoff}) = {r}, expected {expected}"
                            ));
                        }
                        Ok(rt.last_stats().and_then(|s| s.kernel_ms()))
                    },
                )?;
                rows.push(t);
            }
        }
        print_table(
            &format!(
                "EPAQ: fib({n}) with a sequential cutoff, 1 queue vs 3 queues ({})",
                self.rt.backend_name()
            ),
            &rows,
        );
        for pair in rows.chunks(2) {
            let (one, three) = (&pair[0], &pair[1]);
            let t = |r: &Timing| r.kernel_median.unwrap_or(r.median);
            println!(
                "  EPAQ speedup at {}: {:.2}x",
                one.name.split(',').next().unwrap_or(""),
                t(one) / t(three)
            );
        }
        Ok(())
    }

    fn rt_backend(&self) -> Backend {
        if self.gpu {
            Backend::Gpu
        } else {
            Backend::Cpu
        }
    }

    fn nqueens(&mut self) -> Result<(), String> {
        let (n, cutoff) = if self.gpu { (16, 7) } else { (13, 5) };
        let expected = reference::nqueens_seq(n);
        let name = self.gtap_name();
        let reps = self.reps;
        let gtap = measure(&name, reps, || {
            let count = self.rt.upload(&[0u64]).map_err(err)?;
            self.rt
                .run::<NQueens, _>(nqueens, (n, 0, 0, 0, 0, cutoff, 0, count.slice()))
                .map_err(err)?;
            let got = self.rt.download(&count).map_err(err)?[0];
            if got != expected {
                return Err(format!("nqueens({n}) = {got}, expected {expected}"));
            }
            Ok(self.kernel_ms())
        })?;
        let rayon = measure(&format!("rayon::scope to depth {cutoff}"), reps, || {
            Ok((reference::nqueens_rayon(n, cutoff) == expected)
                .then_some(None)
                .ok_or("rayon wrong")?)
        })?;
        let seq = measure("sequential", reps, || {
            Ok((reference::nqueens_seq(n) == expected)
                .then_some(None)
                .ok_or("seq wrong")?)
        })?;
        let shared = self.shared_deque_row(8192, None, |rt| {
            let count = rt.upload(&[0u64]).map_err(err)?;
            rt.run::<NQueens, _>(nqueens, (n, 0, 0, 0, 0, cutoff, 0, count.slice()))
                .map_err(err)?;
            let got = rt.download(&count).map_err(err)?[0];
            (got == expected)
                .then_some(())
                .ok_or(format!("nqueens({n}) = {got}"))
        })?;
        let ratio = scheduler_ratio(&gtap, shared.as_ref());
        let mut rows = vec![gtap];
        rows.extend(shared);
        rows.extend([rayon, seq]);
        print_table(
            &format!("nqueens({n}), detached tasks to depth {cutoff}"),
            &rows,
        );
        print!("{ratio}");
        Ok(())
    }

    fn sort(&mut self, which: &str) -> Result<(), String> {
        let cilk = which == "cilksort";
        let n = match (cilk, self.gpu) {
            (true, true) => 100_000_000,
            (false, true) => 10_000_000,
            (true, false) => 2_000_000,
            (false, false) => 1_000_000,
        };
        let keys = reference::random_keys(n, 11);
        let name = self.gtap_name();
        let reps = self.reps;
        // Buffers made once, as a program sorting repeatedly keeps them.
        let mut data = self.rt.alloc_zeroed::<u32>(n).map_err(err)?;
        let tmp = self.rt.alloc_zeroed::<u32>(n).map_err(err)?;
        let mut sorted = vec![0u32; n];
        // The check compares with the keys sorted once here (exact, and cheap per rep).
        let mut expected = keys.clone();
        expected.sort_unstable();
        let rt = &mut self.rt;
        let gtap = measure_split(&name, reps, |ph| {
            ph.upload(|| rt.upload_into(&mut data, &keys))
                .map_err(err)?;
            ph.run(|| {
                if cilk {
                    rt.run::<CilkSort, _>(cilksort, (data.slice(), tmp.slice(), 64, 256, false))
                } else {
                    rt.run::<MergeSort, _>(mergesort, (data.slice(), tmp.slice(), 128))
                }
            })
            .map_err(err)?;
            ph.kernel = rt.last_stats().and_then(|s| s.kernel_ms());
            ph.download(|| rt.download_into(&data, &mut sorted))
                .map_err(err)?;
            if !ph.check(|| sorted == expected) {
                return Err(format!("{which} of {n} keys: not a sorted permutation"));
            }
            Ok(())
        })?;
        let check = |v: &[u32]| {
            if v.is_sorted() {
                Ok(None)
            } else {
                Err(format!("{which} baseline did not sort"))
            }
        };
        // The baselines copy the keys into a buffer they keep, as gtap's upload does.
        let mut v = keys.clone();
        let rayon = measure("rayon::join, same algorithm", reps, || {
            v.copy_from_slice(&keys);
            if cilk {
                reference::cilksort_rayon(&mut v, 64, 256)
            } else {
                reference::mergesort_rayon(&mut v, 128)
            }
            check(&v)
        })?;
        let seq = measure("sequential, same algorithm", reps, || {
            v.copy_from_slice(&keys);
            if cilk {
                reference::cilksort_seq(&mut v, 64, 256)
            } else {
                reference::mergesort_seq(&mut v, 128)
            }
            check(&v)
        })?;
        self.table(
            &format!(
                "{which} of {n} random u32 (gtap: upload + run + download; baselines: copy + sort)"
            ),
            &[gtap, rayon, seq],
        );
        Ok(())
    }

    fn binary_tree(&mut self) -> Result<(), String> {
        let depth = if self.gpu { 22 } else { 18 };
        let (m, c) = (256, 256);
        let mut values = reference::random_f64(1 << 20, 3);
        // SAFETY: `values` outlives every use of the handle in this function.
        let host_data = unsafe { gtap::Slice::from_raw_parts(values.as_mut_ptr(), values.len()) };
        let expected = reference::tree_seq(0, depth, 0, m, c, host_data);
        let mut data = self.rt.upload(&values).map_err(err)?;
        let name = self.gtap_name();
        let reps = self.reps;
        let rt = &mut self.rt;
        // The table uploaded every call; the result comes back with the run.
        let gtap = measure_split(&name, reps, |ph| {
            ph.upload(|| rt.upload_into(&mut data, &values))
                .map_err(err)?;
            let r = ph
                .run(|| rt.run::<BinaryTree, _>(tree, (0, depth, 0, m, c, data.slice())))
                .map_err(err)?;
            ph.kernel = rt.last_stats().and_then(|s| s.kernel_ms());
            if r.to_bits() != expected.to_bits() {
                return Err(format!("binary tree checksum {r}, expected {expected}"));
            }
            Ok(())
        })?;
        let mut rows = vec![gtap];
        if self.gpu {
            // GTaP's launch shape for this benchmark (1000 blocks of 64 threads).
            let config = Config {
                backend: Backend::Gpu,
                grid: Some(1000),
                block: 64,
                ..Config::default()
            };
            let mut rt = Runtime::with_ptx(config, host::PTX).map_err(err)?;
            let data = rt.upload(&values).map_err(err)?;
            rows.push(measure("gtap (gpu), 1000 x 64 like GTaP", reps, || {
                let r = rt
                    .run::<BinaryTree, _>(tree, (0, depth, 0, m, c, data.slice()))
                    .map_err(err)?;
                if r.to_bits() != expected.to_bits() {
                    return Err(format!("binary tree checksum {r}, expected {expected}"));
                }
                Ok(rt.last_stats().and_then(|s| s.kernel_ms()))
            })?);
        }
        let rayon = measure("rayon::join at every node", reps, || {
            Ok(
                (reference::tree_rayon(0, depth, 0, m, c, host_data).to_bits()
                    == expected.to_bits())
                .then_some(None)
                .ok_or("rayon wrong")?,
            )
        })?;
        let seq = measure("sequential", reps, || {
            Ok(
                (reference::tree_seq(0, depth, 0, m, c, host_data).to_bits() == expected.to_bits())
                    .then_some(None)
                    .ok_or("seq wrong")?,
            )
        })?;
        rows.extend([rayon, seq]);
        self.table(
            &format!("binary tree, depth {depth}, mem_ops {m}, compute_iters {c} (gtap: its 8 MB table uploaded every call)"),
            &rows,
        );
        Ok(())
    }

    /// The binary tree at depth 20 over `mem_ops` and `compute_iters` (GTaP's sweeps), each
    /// result checked against the rayon run of the same tree.
    fn tree_sweep(&mut self) -> Result<(), String> {
        let depth = if self.gpu { 20 } else { 14 };
        let mut values = reference::random_f64(1 << 20, 3);
        // SAFETY: `values` outlives every use of the handle in this function.
        let host_data = unsafe { gtap::Slice::from_raw_parts(values.as_mut_ptr(), values.len()) };
        let data = self.rt.upload(&values).map_err(err)?;
        let mut rows = Vec::new();
        for (m, c) in TREE_SWEEP_POINTS {
            let expected = reference::tree_rayon(0, depth, 0, m, c, host_data);
            let name = format!("gtap: mem_ops {m}, compute_iters {c}");
            let reps = self.reps;
            rows.push(measure(&name, reps, || {
                let r = self
                    .rt
                    .run::<BinaryTree, _>(tree, (0, depth, 0, m, c, data.slice()))
                    .map_err(err)?;
                if r.to_bits() != expected.to_bits() {
                    return Err(format!("tree(m {m}, c {c}) = {r}, expected {expected}"));
                }
                Ok(self.kernel_ms())
            })?);
            rows.push(rayon_tree_row((depth, m, c), host_data, expected, reps)?);
        }
        print_table(
            &format!("binary tree sweeps, depth {depth} (checked against rayon)"),
            &rows,
        );
        print_vs_rayon(&rows, "gtap");
        Ok(())
    }

    /// Asynchronous BFS on an R-MAT graph and a grid, depths checked against sequential BFS.
    fn bfs(&mut self) -> Result<(), String> {
        let (scale, side) = if self.gpu { (22, 2048) } else { (16, 256) };
        let graphs = bfs_graphs(scale, side)?;
        for (what, g) in &graphs {
            let expected = bfs_seq(g, 0);
            let edges = traversed_edges(g, &expected);
            let name = self.gtap_name();
            let reps = self.reps;
            let gtap = bfs_split(&mut self.rt, &name, reps, (g, &expected), |rt, args| {
                rt.run::<Bfs, _>(bfs_visit, args).map(|_| ())
            })?;
            let rayon = measure("rayon, level-synchronous", reps, || {
                Ok((bfs_rayon(g, 0) == expected)
                    .then_some(None)
                    .ok_or("rayon wrong")?)
            })?;
            let seq = measure("sequential queue BFS", reps, || {
                Ok((bfs_seq(g, 0) == expected)
                    .then_some(None)
                    .ok_or("seq wrong")?)
            })?;
            let teps = |t: &Timing| edges as f64 / t.kernel_median.unwrap_or(t.median) / 1e6;
            println!(
                "\n  BFS edges/s on {what}: gtap {:.2} G, rayon {:.2} G, sequential {:.2} G ({edges} edges)",
                teps(&gtap), teps(&rayon), teps(&seq)
            );
            self.table(
                &format!("BFS on {what}: {} vertices, {} edges (gtap: the graph and depths uploaded every call)", g.n_rows, g.nnz()),
                &[gtap, rayon, seq],
            );
        }
        Ok(())
    }

    /// GTaP's pruned 3-ary tree (child kept with probability 1 - d/D), m = c = 256, checked
    /// against (and timed beside) rayon; the sequential run only at CPU sizes.
    fn pruned_tree(&mut self) -> Result<(), String> {
        let depths: &[u32] = if self.gpu { &[28, 32, 34] } else { &[20, 24] };
        let (m, c, seed) = (256, 256, 1);
        let mut values = reference::random_f64(1 << 20, 3);
        // SAFETY: `values` outlives every use of the handle in this function.
        let host_data = unsafe { gtap::Slice::from_raw_parts(values.as_mut_ptr(), values.len()) };
        let mut data = self.rt.upload(&values).map_err(err)?;
        for &depth in depths {
            let (expected, nodes) =
                reference::pruned_tree_rayon(0, depth, 0, seed, m, c, host_data);
            let name = self.gtap_name();
            let reps = self.reps;
            let rt = &mut self.rt;
            // The table uploaded every call; the result comes back with the run.
            let gtap = measure_split(&name, reps, |ph| {
                ph.upload(|| rt.upload_into(&mut data, &values))
                    .map_err(err)?;
                let args = (0, depth, 0, seed, m, c, data.slice());
                let r = ph
                    .run(|| rt.run::<PrunedTree, _>(pruned_tree, args))
                    .map_err(err)?;
                ph.kernel = rt.last_stats().and_then(|s| s.kernel_ms());
                if r.to_bits() != expected.to_bits() {
                    return Err(format!("pruned tree D={depth}: {r}, expected {expected}"));
                }
                Ok(())
            })?;
            let rayon = measure("rayon::join at every node", reps, || {
                Ok(
                    (reference::pruned_tree_rayon(0, depth, 0, seed, m, c, host_data)
                        .0
                        .to_bits()
                        == expected.to_bits())
                    .then_some(None)
                    .ok_or("rayon wrong")?,
                )
            })?;
            self.table(
                &format!("pruned 3-ary tree, depth {depth} ({nodes} nodes), mem_ops {m}, compute_iters {c} (gtap: its 8 MB table uploaded every call)"),
                &[gtap, rayon],
            );
        }
        Ok(())
    }

    /// The profiler's cost: fib(36) with the unprofiled kernel and with the profiled one.
    fn profile_overhead(&mut self) -> Result<(), String> {
        if !self.gpu {
            println!("\nprofiler overhead: GPU only (the profiler records GPU warps)");
            return Ok(());
        }
        let n = 36;
        let expected = reference::fib_seq(n);
        let mut rows = Vec::new();
        let mut summary = String::new();
        for records in [0u32, 4096] {
            let config = Config {
                backend: Backend::Gpu,
                profile_records: records,
                ..Config::default()
            };
            let mut rt = Runtime::with_ptx(config, host::PTX).map_err(err)?;
            let name = if records == 0 {
                "fib(36), profiler off".to_string()
            } else {
                format!("fib(36), profiler on ({records} records/warp)")
            };
            rows.push(measure(&name, self.reps, || {
                let r = rt.run::<Fib, _>(fib, (n,)).map_err(err)?;
                if r != expected {
                    return Err(format!("fib({n}) = {r}"));
                }
                Ok(rt.last_stats().and_then(|s| s.kernel_ms()))
            })?);
            if let Some(p) = rt.last_stats().and_then(|s| s.profile.as_ref()) {
                let s = p.summary();
                summary = format!(
                    "{} batches, {:.1} tasks/batch, {:.1}% in bodies, {} records dropped",
                    s.batches,
                    s.tasks_per_batch,
                    s.executing * 100.0,
                    s.dropped
                );
            }
        }
        print_table("profiler overhead on fib(36) (kernel time)", &rows);
        let k = |t: &Timing| t.kernel_median.unwrap_or(t.median);
        println!(
            "  overhead: {:+.1}% kernel, {:+.1}% end to end; profiled run: {summary}",
            (k(&rows[1]) / k(&rows[0]) - 1.0) * 100.0,
            (rows[1].median / rows[0].median - 1.0) * 100.0
        );
        self.profile_overhead_block()
    }

    /// The profiler on block-level workers: the block-level binary tree at depth 20 with
    /// GTaP's compute-heavy shape (m = 64, c = 1024, blocks of [`TREE_BLOCK_THREADS`]), off and
    /// on, checked bit for bit.
    fn profile_overhead_block(&mut self) -> Result<(), String> {
        let (depth, m, c) = (20, 64, 1024);
        let work = TreeWork {
            mem_ops: m,
            compute_iters: c,
        };
        let mut values = reference::random_f64(1 << 20, 3);
        // SAFETY: `values` outlives every use of the handle in this function.
        let host_data = unsafe { gtap::Slice::from_raw_parts(values.as_mut_ptr(), values.len()) };
        let mut rows = Vec::new();
        let mut summary = String::new();
        for records in [0u32, 4096] {
            let config = Config {
                backend: Backend::Gpu,
                block_threads: self.block_threads.unwrap_or(TREE_BLOCK_THREADS),
                profile_records: records,
                ..Config::default()
            };
            let mut rt = Runtime::with_ptx(config, host::PTX).map_err(err)?;
            let b = host::block_size(&rt);
            let expected = reference::tree_block_rayon(0, depth, 0, work, host_data, b);
            let data = rt.upload(&values).map_err(err)?;
            let name = if records == 0 {
                format!("block tree D={depth} B={b}, profiler off")
            } else {
                format!("block tree D={depth} B={b}, profiler on ({records}/block)")
            };
            rows.push(measure(&name, self.reps, || {
                let r = rt
                    .run::<BinaryTreeBlock, _>(tree_block, (0, depth, 0, m, c, data.slice()))
                    .map_err(err)?;
                if r.to_bits() != expected.to_bits() {
                    return Err(format!("block tree checksum {r}, expected {expected}"));
                }
                Ok(rt.last_stats().and_then(|s| s.kernel_ms()))
            })?);
            if let Some(p) = rt.last_stats().and_then(|s| s.profile.as_ref()) {
                let s = p.summary();
                summary = format!(
                    "{} blocks, {} batches, {:.1}% in bodies, {} records dropped",
                    s.warps,
                    s.batches,
                    s.executing * 100.0,
                    s.dropped
                );
            }
        }
        print_table(
            "profiler overhead on block-level workers (kernel time)",
            &rows,
        );
        let k = |t: &Timing| t.kernel_median.unwrap_or(t.median);
        println!(
            "  overhead: {:+.1}% kernel, {:+.1}% end to end; profiled run: {summary}",
            (k(&rows[1]) / k(&rows[0]) - 1.0) * 100.0,
            (rows[1].median / rows[0].median - 1.0) * 100.0
        );
        Ok(())
    }

    /// Divide-and-conquer SpMV on a random CSR matrix, checked bit for bit.
    fn spmv(&mut self) -> Result<(), String> {
        let (rows, per_row) = if self.gpu {
            (1_000_000, 64)
        } else {
            (100_000, 32)
        };
        let a: Csr = random_matrix(rows, per_row, 1).map_err(|e| e.to_string())?;
        let x = reference::random_f64(a.n_cols as usize, 1);
        let expected = spmv_seq(&a, &x);
        let name = self.gtap_name();
        let reps = self.reps;
        let gtap = spmv_split(
            &mut self.rt,
            &name,
            reps,
            (&a, &x, &expected),
            |rt, args| rt.run::<Spmv, _>(spmv, args).map(|_| ()),
        )?;
        let rayon = measure("rayon par_iter over rows", reps, || {
            Ok((spmv_rayon(&a, &x) == expected)
                .then_some(None)
                .ok_or("rayon wrong")?)
        })?;
        let seq = measure("sequential", reps, || {
            Ok((spmv_seq(&a, &x) == expected)
                .then_some(None)
                .ok_or("seq wrong")?)
        })?;
        self.table(
            &format!("SpMV, random {rows} x {rows}, {} entries (gtap: the matrix and x uploaded every call)", a.nnz()),
            &[gtap, rayon, seq],
        );
        Ok(())
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

/// The summary of every data-carrying gtap row (a Markdown table), and on the GPU the two
/// targets of issue 11: cilksort 10^8 upload + run + download <= 150 ms, and mixed mergesort
/// 10^7 upload + run + download faster than rayon.
fn print_pays(pays: &[Pays], gpu: bool) {
    if pays.is_empty() {
        return;
    }
    println!("\nwhat a user pays: upload + run + download, medians in ms (the check timed apart, not in the total)");
    println!("| workload | gtap | upload | run | kernel | download | total | check | rayon | total / rayon | sequential |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let opt = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.2}"));
    for p in pays {
        let s = &p.split;
        println!(
            "| {} | {} | {:.2} | {:.2} | {} | {:.2} | **{:.2}** | {:.2} | {} | {} | {} |",
            p.workload,
            p.row,
            s.upload,
            s.run,
            opt(s.kernel),
            s.download,
            s.total,
            s.check,
            opt(p.rayon),
            opt(p.rayon.map(|r| s.total / r)),
            opt(p.seq),
        );
    }
    if !gpu {
        return;
    }
    let target = |workload: &str, what: &str, ok: &dyn Fn(&Pays) -> (bool, String)| {
        if let Some(p) = pays.iter().find(|p| p.workload == workload) {
            let (met, detail) = ok(p);
            let verdict = if met { "met" } else { "NOT met" };
            println!("target: {what}: {detail}: {verdict}");
        }
    };
    target(
        "cilksort",
        "cilksort 10^8 upload + run + download <= 150 ms",
        &|p| (p.split.total <= 150.0, format!("{:.2} ms", p.split.total)),
    );
    target(
        "mergesort_mixed",
        "mixed mergesort 10^7 upload + run + download faster than rayon (16 cores)",
        &|p| match p.rayon {
            Some(r) => (
                p.split.total < r,
                format!(
                    "{:.2} ms vs rayon {r:.2} ms ({:.2}x)",
                    p.split.total,
                    p.split.total / r
                ),
            ),
            None => (false, "no rayon row".into()),
        },
    );
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
    gtap::Slice<u32>,
    gtap::Slice<u32>,
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
    let mut offsets = rt.upload(&g.offsets).map_err(err)?;
    let mut targets = rt.upload(&g.targets).map_err(err)?;
    let mut depths = rt.upload(&init).map_err(err)?;
    let mut got = vec![0u32; init.len()];
    measure_split(name, reps, |ph| {
        ph.upload(|| -> gtap::Result<()> {
            rt.upload_into(&mut offsets, &g.offsets)?;
            rt.upload_into(&mut targets, &g.targets)?;
            rt.upload_into(&mut depths, &init)
        })
        .map_err(err)?;
        let args = (0, 0, offsets.slice(), targets.slice(), depths.slice());
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
    let all: [(&str, &[&str], Workload); 21] = [
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
