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
//! Block-level and mixed-granularity rows (`only=block`, `only=mixed`, or by name): the binary
//! tree thread vs block, the tree sweeps, the pruned tree at D = 32, SpMV and BFS with
//! block-level tasks, and mergesort with block-level merges beside rayon. Their checksums are
//! checked against the block references for the block size they ran with (1 on the CPU).

use std::process::ExitCode;

use gtap::{Backend, Config, Runtime};
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
    median: f64,
    kernel_median: Option<f64>,
    runs: usize,
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
    })
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
}

impl Bench {
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
        print_table(
            &format!("binary tree thread vs block, depth {depth}, mem_ops {m}, compute_iters {c}"),
            &[thread, block, rayon, seq],
        );
        println!("  block-level {ratio:.2}x faster than thread-level");
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
        let offsets = brt.upload(&a.offsets).map_err(err)?;
        let cols = brt.upload(&a.targets).map_err(err)?;
        let vals = brt.upload(&a.values_or_ones()).map_err(err)?;
        let xb = brt.upload(&x).map_err(err)?;
        let y = brt.alloc_zeroed::<f64>(rows as usize).map_err(err)?;
        let reps = self.reps;
        let gtap = measure(&Self::block_label(&brt), reps, || {
            let args = (
                0,
                rows,
                offsets.slice(),
                cols.slice(),
                vals.slice(),
                xb.slice(),
                y.slice(),
            );
            brt.run::<SpmvBlock, _>(spmv_block, args).map_err(err)?;
            let kernel = brt.last_stats().and_then(|s| s.kernel_ms());
            let got = brt.download(&y).map_err(err)?;
            if got
                .iter()
                .zip(&expected)
                .any(|(a, b)| a.to_bits() != b.to_bits())
            {
                return Err(format!("spmv_block: y differs from the B={b} reference"));
            }
            Ok(kernel)
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
        print_table(
            &format!("block-level SpMV, random {rows} x {rows}, {} entries (gtap end to end includes the download and check)", a.nnz()),
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
            let offsets = brt.upload(&g.offsets).map_err(err)?;
            let targets = brt.upload(&g.targets).map_err(err)?;
            let mut init = vec![UNREACHED; g.n_rows as usize];
            init[0] = 0;
            let reps = self.reps;
            let gtap = measure(&Self::block_label(&brt), reps, || {
                let depths = brt.upload(&init).map_err(err)?;
                let args = (0, 0, offsets.slice(), targets.slice(), depths.slice());
                brt.run::<BfsBlock, _>(bfs_block, args).map_err(err)?;
                let kernel = brt.last_stats().and_then(|s| s.kernel_ms());
                if brt.download(&depths).map_err(err)? != expected {
                    return Err(format!(
                        "block bfs on {what}: depths differ from sequential BFS"
                    ));
                }
                Ok(kernel)
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
            print_table(
                &format!(
                    "block-level BFS on {what}: {} vertices, {} edges",
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
        let gtap = measure(&name, reps, || {
            let data = brt.upload(&keys).map_err(err)?;
            let tmp = brt.alloc_zeroed::<u32>(n).map_err(err)?;
            let args = (data.slice(), tmp.slice(), cutoff, BLOCK_MERGE_MIN);
            brt.run::<MergeSortMixed, _>(mergesort_mixed, args)
                .map_err(err)?;
            let kernel = brt.last_stats().and_then(|s| s.kernel_ms());
            if !reference::is_sorted_permutation(&keys, &brt.download(&data).map_err(err)?) {
                return Err(format!(
                    "mixed mergesort of {n} keys: not a sorted permutation"
                ));
            }
            Ok(kernel)
        })?;
        let rayon = measure("rayon::join + split merges, same algorithm", reps, || {
            let mut v = keys.clone();
            reference::mergesort_rayon_split(&mut v, cutoff, BLOCK_MERGE_MIN);
            Ok(v.is_sorted().then_some(None).ok_or("rayon did not sort")?)
        })?;
        let rayon_seq_merge = measure("rayon::join, sequential merges", reps, || {
            let mut v = keys.clone();
            reference::mergesort_rayon(&mut v, cutoff);
            Ok(v.is_sorted().then_some(None).ok_or("rayon did not sort")?)
        })?;
        let seq = measure("sequential", reps, || {
            let mut v = keys.clone();
            reference::mergesort_seq(&mut v, cutoff);
            Ok(v.is_sorted().then_some(None).ok_or("seq did not sort")?)
        })?;
        let t = |r: &Timing| r.kernel_median.unwrap_or(r.median);
        let (kernel_ratio, e2e_ratio) = (t(&gtap) / rayon.median, gtap.median / rayon.median);
        print_table(
            &format!("mixed mergesort of {n} random u32, block merges from {BLOCK_MERGE_MIN} keys, split over blocks from {} keys (gtap end to end includes upload, download and the check)", 2 * MERGE_PART_KEYS),
            &[gtap, rayon, rayon_seq_merge, seq],
        );
        println!(
            "  gtap / rayon (same algorithm): {kernel_ratio:.2} (kernel), {e2e_ratio:.2} (end to end); the bar is <= 2"
        );
        Ok(())
    }

    fn kernel_ms(&self) -> Option<f64> {
        self.rt.last_stats().and_then(|s| s.kernel_ms())
    }

    fn gtap_name(&self) -> String {
        format!("gtap ({})", self.rt.backend_name())
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
        print_table(
            &format!("fib({n}), a task per call ({tasks} tasks in the last gtap run)"),
            &[gtap, rayon, seq],
        );
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
        print_table(
            &format!("nqueens({n}), detached tasks to depth {cutoff}"),
            &[gtap, rayon, seq],
        );
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
        let gtap = measure(&name, reps, || {
            let data = self.rt.upload(&keys).map_err(err)?;
            let tmp = self.rt.alloc_zeroed::<u32>(n).map_err(err)?;
            if cilk {
                self.rt
                    .run::<CilkSort, _>(cilksort, (data.slice(), tmp.slice(), 64, 256, false))
                    .map_err(err)?;
            } else {
                self.rt
                    .run::<MergeSort, _>(mergesort, (data.slice(), tmp.slice(), 128))
                    .map_err(err)?;
            }
            let kernel = self.kernel_ms();
            if !reference::is_sorted_permutation(&keys, &self.rt.download(&data).map_err(err)?) {
                return Err(format!("{which} of {n} keys: not a sorted permutation"));
            }
            Ok(kernel)
        })?;
        let check = |v: &[u32]| {
            if v.is_sorted() {
                Ok(None)
            } else {
                Err(format!("{which} baseline did not sort"))
            }
        };
        let rayon = measure("rayon::join, same algorithm", reps, || {
            let mut v = keys.clone();
            if cilk {
                reference::cilksort_rayon(&mut v, 64, 256)
            } else {
                reference::mergesort_rayon(&mut v, 128)
            }
            check(&v)
        })?;
        let seq = measure("sequential, same algorithm", reps, || {
            let mut v = keys.clone();
            if cilk {
                reference::cilksort_seq(&mut v, 64, 256)
            } else {
                reference::mergesort_seq(&mut v, 128)
            }
            check(&v)
        })?;
        print_table(&format!("{which} of {n} random u32 (gtap end to end includes upload, download and the check)"), &[gtap, rayon, seq]);
        Ok(())
    }

    fn binary_tree(&mut self) -> Result<(), String> {
        let depth = if self.gpu { 22 } else { 18 };
        let (m, c) = (256, 256);
        let mut values = reference::random_f64(1 << 20, 3);
        // SAFETY: `values` outlives every use of the handle in this function.
        let host_data = unsafe { gtap::Slice::from_raw_parts(values.as_mut_ptr(), values.len()) };
        let expected = reference::tree_seq(0, depth, 0, m, c, host_data);
        let data = self.rt.upload(&values).map_err(err)?;
        let name = self.gtap_name();
        let reps = self.reps;
        let gtap = measure(&name, reps, || {
            let r = self
                .rt
                .run::<BinaryTree, _>(tree, (0, depth, 0, m, c, data.slice()))
                .map_err(err)?;
            if r.to_bits() != expected.to_bits() {
                return Err(format!("binary tree checksum {r}, expected {expected}"));
            }
            Ok(self.kernel_ms())
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
        print_table(
            &format!("binary tree, depth {depth}, mem_ops {m}, compute_iters {c}"),
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
            let offsets = self.rt.upload(&g.offsets).map_err(err)?;
            let targets = self.rt.upload(&g.targets).map_err(err)?;
            let mut init = vec![UNREACHED; g.n_rows as usize];
            init[0] = 0;
            let name = self.gtap_name();
            let reps = self.reps;
            let gtap = measure(&name, reps, || {
                let depths = self.rt.upload(&init).map_err(err)?;
                let args = (0, 0, offsets.slice(), targets.slice(), depths.slice());
                self.rt.run::<Bfs, _>(bfs_visit, args).map_err(err)?;
                let kernel = self.kernel_ms();
                if self.rt.download(&depths).map_err(err)? != expected {
                    return Err(format!("bfs on {what}: depths differ from sequential BFS"));
                }
                Ok(kernel)
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
            print_table(
                &format!("BFS on {what}: {} vertices, {} edges", g.n_rows, g.nnz()),
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
        let data = self.rt.upload(&values).map_err(err)?;
        for &depth in depths {
            let (expected, nodes) =
                reference::pruned_tree_rayon(0, depth, 0, seed, m, c, host_data);
            let name = self.gtap_name();
            let reps = self.reps;
            let gtap = measure(&name, reps, || {
                let r = self
                    .rt
                    .run::<PrunedTree, _>(pruned_tree, (0, depth, 0, seed, m, c, data.slice()))
                    .map_err(err)?;
                if r.to_bits() != expected.to_bits() {
                    return Err(format!("pruned tree D={depth}: {r}, expected {expected}"));
                }
                Ok(self.kernel_ms())
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
            print_table(
                &format!("pruned 3-ary tree, depth {depth} ({nodes} nodes), mem_ops {m}, compute_iters {c}"),
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
        let offsets = self.rt.upload(&a.offsets).map_err(err)?;
        let cols = self.rt.upload(&a.targets).map_err(err)?;
        let vals = self.rt.upload(&a.values_or_ones()).map_err(err)?;
        let xb = self.rt.upload(&x).map_err(err)?;
        let y = self.rt.alloc_zeroed::<f64>(rows as usize).map_err(err)?;
        let name = self.gtap_name();
        let reps = self.reps;
        let gtap = measure(&name, reps, || {
            let args = (
                0,
                rows,
                offsets.slice(),
                cols.slice(),
                vals.slice(),
                xb.slice(),
                y.slice(),
            );
            self.rt.run::<Spmv, _>(spmv, args).map_err(err)?;
            let kernel = self.kernel_ms();
            let got = self.rt.download(&y).map_err(err)?;
            if got
                .iter()
                .zip(&expected)
                .any(|(a, b)| a.to_bits() != b.to_bits())
            {
                return Err("spmv: y differs from sequential SpMV".into());
            }
            Ok(kernel)
        })?;
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
        print_table(
            &format!("SpMV, random {rows} x {rows}, {} entries (gtap end to end includes the download and check)", a.nnz()),
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
    };
    let mut failed = false;
    // (name, tags, workload): `only=` takes names and tags.
    let all: [(&str, &[&str], Workload); 17] = [
        ("fib", &[], Bench::fib),
        ("nqueens", &[], Bench::nqueens),
        ("cilksort", &[], |b| b.sort("cilksort")),
        ("mergesort", &[], |b| b.sort("mergesort")),
        ("binary_tree", &[], Bench::binary_tree),
        ("epaq", &[], Bench::epaq),
        ("tree_sweep", &[], Bench::tree_sweep),
        ("bfs", &[], Bench::bfs),
        ("spmv", &[], Bench::spmv),
        ("profile", &[], Bench::profile_overhead),
        ("pruned_tree", &[], Bench::pruned_tree),
        ("binary_tree_block", &["block"], Bench::binary_tree_block),
        ("tree_sweep_block", &["block"], Bench::tree_sweep_block),
        ("pruned_tree_block", &["block"], Bench::pruned_tree_block),
        ("spmv_block", &["block"], Bench::spmv_block),
        ("bfs_block", &["block"], Bench::bfs_block),
        ("mergesort_mixed", &["mixed"], Bench::mergesort_mixed),
    ];
    for (name, tags, f) in all {
        if !b.wants(name, tags) {
            continue;
        }
        if let Err(e) = f(&mut b) {
            eprintln!("{name}: FAILED: {e}");
            failed = true;
        }
    }
    if failed {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
