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

/// A scheduler variant of the worker-count sweeps.
#[derive(Clone, Copy)]
struct Variant {
    /// The CSV's `variant` column.
    name: &'static str,
    /// Block sizes of the thread-level sweep.
    blocks: &'static [u32],
    batched_claims: bool,
    scheduler: Scheduler,
    /// The most repetitions per point (the global queue's runs take seconds).
    max_reps: usize,
}

/// gtap's scheduler.
const WS: Variant = Variant {
    name: "ws",
    blocks: &[32, 256],
    batched_claims: true,
    scheduler: Scheduler::SharedDeque,
    max_reps: usize::MAX,
};

/// One CAS per claimed deque entry (GTaP's `chaselev` ablation), blocks of 32 only.
const SINGLE: Variant = Variant {
    name: "single",
    blocks: &[32],
    batched_claims: false,
    scheduler: Scheduler::SharedDeque,
    max_reps: usize::MAX,
};

/// One global FIFO queue (GTaP's `gq` ablation).
const GQ: Variant = Variant {
    name: "gq",
    blocks: &[32, 256],
    batched_claims: true,
    scheduler: Scheduler::GlobalQueue,
    max_reps: 3,
};

/// Task records of all workers together in the global-queue runs (see `scaling`).
const GQ_TOTAL_TASKS: u32 = 1 << 26;
/// The same for the block-level tree (2^21 nodes at depth 20, with a margin for uneven
/// allocation across the per-worker pools).
const GQ_TOTAL_BLOCK_TASKS: u32 = 1 << 22;

/// Whether `e` is a measured outcome of `variant` rather than a failure: the global queue's
/// FIFO order can hold many more tasks at once than work stealing, past the pools' or the
/// queue's capacity (reported with the knob to raise; the runtime stays usable).
fn over_capacity(variant: Variant, e: &str) -> bool {
    variant.scheduler == Scheduler::GlobalQueue
        && (e.contains("pool exhausted")
            || e.contains("queue overflow")
            || e.contains("could not allocate"))
}

/// Worker-count sweep of the thread-level workloads with the scheduler `variant`.
fn scaling(out: &Path, reps: usize, variant: Variant) -> Result<(), String> {
    let name = variant.name;
    let reps = reps.min(variant.max_reps);
    let keys = reference::random_keys(20_000_000, 7);
    let (fib35, nq16) = (reference::fib_seq(35), reference::nqueens_seq(16));
    for &block in variant.blocks {
        for k in 0..8 {
            let threads = 1024u32 << k;
            let grid = threads / block;
            let warps = threads / 32;
            let mut rt = gpu(Config {
                grid: Some(grid),
                batched_claims: variant.batched_claims,
                scheduler: variant.scheduler,
                block,
                // The global queue's FIFO order keeps most of the tree alive at once on few
                // workers: like GTaP, keep the total capacity constant (2^26 records, more
                // than fib(35)'s 3·10^7 calls) rather than the per-warp one.
                tasks_per_warp: if variant.scheduler == Scheduler::GlobalQueue {
                    (GQ_TOTAL_TASKS / warps).max(8192)
                } else {
                    Config::default().tasks_per_warp
                },
                ..Config::default()
            })?;
            for workload in ["fib", "nqueens", "cilksort"] {
                let reps = if workload == "nqueens" && threads < 8192 {
                    1
                } else {
                    reps
                };
                let t = match workload {
                    "fib" => median_kernel(&mut rt, reps, |rt| {
                        let r = rt.run::<Fib, _>(fib, (35,)).map_err(|e| e.to_string())?;
                        (r == fib35).then_some(()).ok_or(format!("fib(35) = {r}"))
                    }),
                    "nqueens" => median_kernel(&mut rt, reps, |rt| {
                        let count = rt.upload(&[0u64]).map_err(|e| e.to_string())?;
                        rt.run::<NQueens, _>(nqueens, (16, 0, 0, 0, 0, 7, 0, count.slice()))
                            .map_err(|e| e.to_string())?;
                        let got = rt.download(&count).map_err(|e| e.to_string())?[0];
                        (got == nq16)
                            .then_some(())
                            .ok_or(format!("nqueens(16) = {got}"))
                    }),
                    _ => median_kernel(&mut rt, reps, |rt| {
                        let data = rt.upload(&keys).map_err(|e| e.to_string())?;
                        let tmp = rt
                            .alloc_zeroed::<u32>(keys.len())
                            .map_err(|e| e.to_string())?;
                        rt.run::<CilkSort, _>(
                            cilksort,
                            (data.slice(), tmp.slice(), 64, 256, false),
                        )
                        .map_err(|e| e.to_string())?;
                        let out = rt.download(&data).map_err(|e| e.to_string())?;
                        out.is_sorted()
                            .then_some(())
                            .ok_or("cilksort: not sorted".to_string())
                    }),
                };
                match t {
                    Ok(ms) => {
                        println!("scaling {name:<6} {workload:<8} block {block:>3} threads {threads:>6}: {ms:9.3} ms");
                        append(
                            out,
                            &format!("scaling,{workload},{block},{threads},{name},{threads},{ms}"),
                        )?;
                    }
                    // A grid that is not co-resident is refused before launch: the sweep ends
                    // at the chip's size; any other failure is an error.
                    Err(e) if e.contains("co-resident") => {
                        println!("scaling {name:<6} {workload:<8} block {block:>3} threads {threads:>6}: not co-resident, skipped");
                    }
                    Err(e) if over_capacity(variant, &e) => {
                        println!("scaling {name:<6} {workload:<8} block {block:>3} threads {threads:>6}: {e}, skipped");
                    }
                    Err(e) => {
                        return Err(format!(
                            "{name} {workload} at block {block}, {threads} threads: {e}"
                        ))
                    }
                }
            }
        }
    }
    Ok(())
}

/// The block-level binary tree's workloads of GTaP's tree scaling: name, mem_ops,
/// compute_iters.
const TREE_WORKLOADS: [(&str, u32, u32); 2] = [("compute", 64, 1024), ("memory", 1024, 64)];

/// Block-level worker-count sweep: `tree_block` at depth 20 on grids of 16..=4096 blocks of 32
/// and 256 threads, with both schedulers (all `ws` points first, then `gq`).
fn tree_scaling(out: &Path, reps: usize, variants: &[Variant]) -> Result<(), String> {
    const DEPTH: u32 = 20;
    const BLOCK_THREADS: [u32; 2] = [32, 256];
    let mut values = reference::random_f64(1 << 20, 3);
    // SAFETY: `values` outlives every use of the handle in this function.
    let host_data = unsafe { gtap::Slice::from_raw_parts(values.as_mut_ptr(), values.len()) };
    // The checksum depends on the block size (the order of the additions): one per
    // (workload, block size), computed once.
    let mut expected = BTreeMap::new();
    for (workload, mem_ops, compute_iters) in TREE_WORKLOADS {
        let work = TreeWork {
            mem_ops,
            compute_iters,
        };
        for b in BLOCK_THREADS {
            let e = reference::tree_block_rayon(0, DEPTH, 0, work, host_data, b);
            expected.insert((workload, b), e);
        }
    }
    for &variant in variants {
        let name = variant.name;
        for block_threads in BLOCK_THREADS {
            for workers in [16u32, 64, 256, 1024, 4096] {
                let mut rt = gpu(Config {
                    grid: Some(workers),
                    block_threads,
                    scheduler: variant.scheduler,
                    // As in `scaling`: constant total capacity for the global queue.
                    tasks_per_block: (variant.scheduler == Scheduler::GlobalQueue)
                        .then(|| (GQ_TOTAL_BLOCK_TASKS / workers).max(16384)),
                    ..Config::default()
                })?;
                let data = rt.upload(&values).map_err(|e| e.to_string())?;
                // The ws runs on 16 blocks take 1 to 2.5 s, the gq runs longer.
                let reps = if workers <= 64 { 1 } else { reps.min(3) };
                for (workload, m, c) in TREE_WORKLOADS {
                    let want = expected[&(workload, block_threads)];
                    let t = median_kernel(&mut rt, reps, |rt| {
                        let r = rt
                            .run::<BinaryTreeBlock, _>(
                                tree_block,
                                (0, DEPTH, 0, m, c, data.slice()),
                            )
                            .map_err(|e| e.to_string())?;
                        (r.to_bits() == want.to_bits()).then_some(()).ok_or(format!(
                            "tree_block(m {m}, c {c}, B={block_threads}) = {r}, expected {want}"
                        ))
                    });
                    match t {
                        Ok(ms) => {
                            println!("tree-scaling {name:<2} {workload:<7} block {block_threads:>3} workers {workers:>4}: {ms:9.3} ms");
                            append(
                                out,
                                &format!("tree-scaling,{workload},{block_threads},{workers},{name},{workers},{ms}"),
                            )?;
                        }
                        // As in `scaling`: the sweep ends at the chip's size.
                        Err(e) if e.contains("co-resident") => {
                            println!("tree-scaling {name:<2} {workload:<7} block {block_threads:>3} workers {workers:>4}: not co-resident, skipped");
                        }
                        Err(e) if over_capacity(variant, &e) => {
                            println!("tree-scaling {name:<2} {workload:<7} block {block_threads:>3} workers {workers:>4}: {e}, skipped");
                        }
                        Err(e) => {
                            return Err(format!(
                                "tree-scaling {name} {workload} at block {block_threads}, {workers} workers: {e}"
                            ))
                        }
                    }
                }
            }
        }
    }
    Ok(())
}

fn epaq_sweep(out: &Path, reps: usize) -> Result<(), String> {
    let fib40 = reference::fib_seq(40);
    for queues in [1u32, 3] {
        // At small cutoffs the 3-queue order holds many more records at once (children wait
        // on queue 0 while queue 1 drains), so both variants get GTaP-sized pools.
        let mut rt = gpu(Config {
            queues,
            tasks_per_warp: 131_072,
            ..Config::default()
        })?;
        for cutoff in 2..=18u32 {
            let ms = median_kernel(&mut rt, reps, |rt| {
                let r = rt
                    .run::<FibCutoff, _>(fib_cutoff, (40, cutoff, queues > 1))
                    .map_err(|e| e.to_string())?;
                (r == fib40)
                    .then_some(())
                    .ok_or(format!("fib_cutoff(40, {cutoff}) = {r}"))
            });
            match ms {
                Ok(ms) => {
                    println!("epaq fib(40) cutoff {cutoff:>2}, {queues} queue(s): {ms:8.3} ms");
                    append(out, &format!("epaq,fib,32,0,{queues}queue,{cutoff},{ms}"))?;
                }
                // A pool too small for this cutoff is a measured outcome, not the sweep's end
                // (the runtime stays usable after the error).
                Err(e) if e.contains("pool exhausted") => {
                    println!("epaq fib(40) cutoff {cutoff:>2}, {queues} queue(s): {e}");
                }
                Err(e) => return Err(e),
            }
        }
    }
    Ok(())
}

/// nqueens(16) over cutoffs 3..=10: 1 queue vs 2 (leaf-bound children on queue 1).
fn epaq_nqueens(out: &Path, reps: usize) -> Result<(), String> {
    let expected = reference::nqueens_seq(16);
    for queues in [1u32, 2] {
        let mut rt = gpu(Config {
            queues,
            ..Config::default()
        })?;
        for cutoff in 3..=10u32 {
            let ms = median_kernel(&mut rt, reps, |rt| {
                let count = rt.upload(&[0u64]).map_err(|e| e.to_string())?;
                // Leaf-bound children on queue 1 when there are 2 queues.
                let args = (16, 0, 0, 0, 0, cutoff, queues - 1, count.slice());
                rt.run::<NQueens, _>(nqueens, args)
                    .map_err(|e| e.to_string())?;
                let got = rt.download(&count).map_err(|e| e.to_string())?[0];
                (got == expected)
                    .then_some(())
                    .ok_or(format!("nqueens(16, cutoff {cutoff}) = {got}"))
            })?;
            println!("epaq nqueens(16) cutoff {cutoff:>2}, {queues} queue(s): {ms:8.3} ms");
            append(
                out,
                &format!("epaq,nqueens,32,0,{queues}queue,{cutoff},{ms}"),
            )?;
        }
    }
    Ok(())
}

/// cilksort(5·10^7) over cutoffs 64..=4096 (sort and merge cutoff alike): 1 queue vs 3
/// (sequential sorts on queue 1, sequential merges on queue 2).
fn epaq_cilksort(out: &Path, reps: usize) -> Result<(), String> {
    let keys = reference::random_keys(50_000_000, 5);
    for queues in [1u32, 3] {
        let mut rt = gpu(Config {
            queues,
            ..Config::default()
        })?;
        let tmp = rt
            .alloc_zeroed::<u32>(keys.len())
            .map_err(|e| e.to_string())?;
        for k in 0..7 {
            let cutoff = 64usize << k;
            let ms = median_kernel(&mut rt, reps, |rt| {
                let data = rt.upload(&keys).map_err(|e| e.to_string())?;
                let args = (data.slice(), tmp.slice(), cutoff, cutoff, queues > 1);
                rt.run::<CilkSort, _>(cilksort, args)
                    .map_err(|e| e.to_string())?;
                let out = rt.download(&data).map_err(|e| e.to_string())?;
                out.is_sorted()
                    .then_some(())
                    .ok_or(format!("cilksort cutoff {cutoff}: not sorted"))
            })?;
            println!("epaq cilksort(5e7) cutoff {cutoff:>4}, {queues} queue(s): {ms:8.3} ms");
            append(
                out,
                &format!("epaq,cilksort,32,0,{queues}queue,{cutoff},{ms}"),
            )?;
        }
    }
    Ok(())
}

/// Series name → points, for one chart.
type Series = BTreeMap<String, Vec<(f64, f64)>>;

fn read_csv(path: &Path) -> Result<Vec<Vec<String>>, String> {
    let text =
        std::fs::read_to_string(path).map_err(|e| format!("reading {}: {e}", path.display()))?;
    Ok(text
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.split(',').map(str::to_owned).collect())
        .collect())
}

fn num(s: &str, what: &str) -> Result<f64, String> {
    s.trim().parse().map_err(|e| format!("{what}: `{s}`: {e}"))
}

fn plot(ours: &Path, anchors: &Path, img: &Path) -> Result<(), String> {
    gtap::profile::ensure_font().map_err(|e| e.to_string())?;
    std::fs::create_dir_all(img).map_err(|e| e.to_string())?;
    let rows = read_csv(ours)?;
    for (workload, file, title) in [
        ("fib", "fib_scaling_results.csv", "fib(35)"),
        ("nqueens", "nq_scaling_results.csv", "nqueens(16), cutoff 7"),
        ("cilksort", "cilksort_scaling_results.csv", "cilksort(2e7)"),
    ] {
        let mut series = Series::new();
        for r in rows
            .iter()
            .filter(|r| r[0] == "scaling" && r[1] == workload)
        {
            let variant = match r[4].as_str() {
                "single" => "one CAS per entry",
                v => v,
            };
            series
                .entry(format!("gtap-rs {variant}, block {}", r[2]))
                .or_default()
                .push((num(&r[3], "threads")?, num(&r[6], "ms")?));
        }
        // GTaP: block_size,total_threads,grid_size,max_tasks_per_warp,ws_med,..,gq_med,..,chaselev_med
        for r in read_csv(&anchors.join(file))? {
            if r[0] != "32" && r[0] != "256" {
                continue;
            }
            let threads = num(&r[1], "total_threads")?;
            for (col, name) in [(4, "ws"), (7, "gq"), (10, "chaselev")] {
                let ms = num(&r[col], name)?;
                if ms > 0.0 {
                    series
                        .entry(format!("GTaP {name}, block {}", r[0]))
                        .or_default()
                        .push((threads, ms));
                }
            }
        }
        write_png_svg(
            &LogLog {
                series: &series,
                title: &format!("{title}: kernel ms vs threads (GTaP: GH200, published)"),
                x_desc: "threads (grid x block)",
            },
            &img.join(format!("scaling-{workload}")),
            (1100, 700),
        )?;
    }
    for (workload, file, title) in [
        (
            "compute",
            "tree_compute_heavy_scaling_results.csv",
            "compute-heavy (c 1024, m 64)",
        ),
        (
            "memory",
            "tree_memory_heavy_scaling_results.csv",
            "memory-heavy (c 64, m 1024)",
        ),
    ] {
        let mut series = Series::new();
        for r in rows
            .iter()
            .filter(|r| r[0] == "tree-scaling" && r[1] == workload)
        {
            series
                .entry(format!("gtap-rs {}, block {}", r[4], r[2]))
                .or_default()
                .push((num(&r[5], "workers")?, num(&r[6], "ms")?));
        }
        if series.is_empty() {
            continue;
        }
        // GTaP: block_size,total_workers,grid_size,max_tasks_per_block,ws_med,..,gq_med,..
        for r in read_csv(&anchors.join(file))? {
            if r[0] != "32" && r[0] != "256" {
                continue;
            }
            let workers = num(&r[1], "total_workers")?;
            for (col, name) in [(4, "ws"), (7, "gq")] {
                let ms = num(&r[col], name)?;
                if ms > 0.0 {
                    series
                        .entry(format!("GTaP {name}, block {}", r[0]))
                        .or_default()
                        .push((workers, ms));
                }
            }
        }
        write_png_svg(
            &LogLog {
                series: &series,
                title: &format!(
                    "block-level tree, depth 20, {title}: kernel ms vs workers (GTaP: GH200, published)"
                ),
                x_desc: "block-level workers (blocks of the grid)",
            },
            &img.join(format!("tree-scaling-{workload}")),
            (1100, 700),
        )?;
    }
    for (workload, file, title, many, log2) in [
        (
            "fib",
            "epaq_performance_results_fib.csv",
            "fib(40), 1 vs 3 queues",
            "3queue",
            false,
        ),
        (
            "nqueens",
            "epaq_performance_results_nq.csv",
            "nqueens(16), 1 vs 2 queues",
            "2queue",
            false,
        ),
        (
            "cilksort",
            "epaq_performance_results_cilksort.csv",
            "cilksort(5e7), 1 vs 3 queues",
            "3queue",
            true,
        ),
    ] {
        // Cutoffs that double (cilksort) are drawn on a log2 axis.
        let x = |v: f64| if log2 { v.log2() } else { v };
        let mut series = Series::new();
        for r in rows.iter().filter(|r| r[0] == "epaq" && r[1] == workload) {
            series
                .entry(format!("gtap-rs {}", r[4]))
                .or_default()
                .push((x(num(&r[5], "cutoff")?), num(&r[6], "ms")?));
        }
        if series.is_empty() {
            continue;
        }
        for r in read_csv(&anchors.join(file))? {
            let cutoff = x(num(&r[0], "cutoff")?);
            series
                .entry("GTaP 1queue".into())
                .or_default()
                .push((cutoff, num(&r[1], "1queue")?));
            series
                .entry(format!("GTaP {many}"))
                .or_default()
                .push((cutoff, num(&r[4], many)?));
        }
        let title = format!("EPAQ on {title}: kernel ms vs cutoff (GTaP: GH200, published)");
        let axis = if log2 { "log2(cutoff)" } else { "cutoff" };
        let picture = Epaq {
            series: &series,
            title: &title,
            axis,
        };
        write_png_svg(&picture, &img.join(format!("epaq-{workload}")), (1000, 600))?;
    }
    Ok(())
}

fn colour(i: usize) -> RGBColor {
    const C: [RGBColor; 12] = [
        RGBColor(31, 119, 180),
        RGBColor(255, 127, 14),
        RGBColor(44, 160, 44),
        RGBColor(214, 39, 40),
        RGBColor(148, 103, 189),
        RGBColor(140, 86, 75),
        RGBColor(227, 119, 194),
        RGBColor(127, 127, 127),
        RGBColor(188, 189, 34),
        RGBColor(23, 190, 207),
        RGBColor(0, 0, 128),
        RGBColor(128, 128, 0),
    ];
    C[i % C.len()]
}

/// One picture, drawable on any plotters backend.
trait Picture {
    fn draw<DB: DrawingBackend>(
        &self,
        area: DrawingArea<DB, plotters::coord::Shift>,
    ) -> Result<(), Box<dyn std::error::Error + 'static>>
    where
        DB::ErrorType: 'static;
}

/// Writes `picture` as `stem.png` and `stem.svg`.
fn write_png_svg(picture: &impl Picture, stem: &Path, size: (u32, u32)) -> Result<(), String> {
    for ext in ["png", "svg"] {
        let path = stem.with_extension(ext);
        let r = if ext == "png" {
            picture.draw(BitMapBackend::new(&path, size).into_drawing_area())
        } else {
            picture.draw(SVGBackend::new(&path, size).into_drawing_area())
        };
        r.map_err(|e| format!("{}: {e}", path.display()))?;
        println!("wrote {}", path.display());
    }
    Ok(())
}

/// Kernel ms over the worker count, log-log, with the ideal 1/P line under each of our
/// curves.
struct LogLog<'a> {
    series: &'a Series,
    title: &'a str,
    /// The x axis' label.
    x_desc: &'a str,
}

/// Kernel ms over the cutoff, 1 vs several EPAQ queues.
struct Epaq<'a> {
    series: &'a Series,
    title: &'a str,
    axis: &'a str,
}

impl Picture for LogLog<'_> {
    fn draw<DB: DrawingBackend>(
        &self,
        area: DrawingArea<DB, plotters::coord::Shift>,
    ) -> Result<(), Box<dyn std::error::Error + 'static>>
    where
        DB::ErrorType: 'static,
    {
        let (series, title) = (self.series, self.title);
        area.fill(&WHITE)?;
        let pts = series.values().flatten();
        let (mut x0, mut x1, mut y0, mut y1) = (f64::MAX, 0f64, f64::MAX, 0f64);
        for &(x, y) in pts {
            (x0, x1, y0, y1) = (x0.min(x), x1.max(x), y0.min(y), y1.max(y));
        }
        let mut chart = ChartBuilder::on(&area)
            .caption(title, ("sans-serif", 20))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(
                (x0 * 0.8..x1 * 1.25).log_scale(),
                (y0 * 0.5..y1 * 2.0).log_scale(),
            )?;
        chart
            .configure_mesh()
            .x_desc(self.x_desc)
            .y_desc("kernel ms")
            .draw()?;
        for (i, (name, points)) in series.iter().enumerate() {
            let c = colour(i);
            let style = if name.starts_with("GTaP") {
                c.stroke_width(1)
            } else {
                c.stroke_width(3)
            };
            chart
                .draw_series(LineSeries::new(points.iter().copied(), style))?
                .label(name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
                });
            if name.starts_with("gtap-rs") {
                if let Some(&(px, py)) = points.first() {
                    let ideal: Vec<(f64, f64)> =
                        points.iter().map(|&(x, _)| (x, py * px / x)).collect();
                    chart.draw_series(DashedLineSeries::new(
                        ideal,
                        4,
                        4,
                        c.mix(0.6).stroke_width(1),
                    ))?;
                }
            }
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
        area.present()?;
        Ok(())
    }
}

impl Picture for Epaq<'_> {
    fn draw<DB: DrawingBackend>(
        &self,
        area: DrawingArea<DB, plotters::coord::Shift>,
    ) -> Result<(), Box<dyn std::error::Error + 'static>>
    where
        DB::ErrorType: 'static,
    {
        let (series, title, axis) = (self.series, self.title, self.axis);
        area.fill(&WHITE)?;
        let pts = || series.values().flatten();
        let top = pts().map(|p| p.1).fold(0f64, f64::max);
        let bottom = pts().map(|p| p.1).fold(f64::MAX, f64::min);
        let (x0, x1) = pts().fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
        let mut chart = ChartBuilder::on(&area)
            .caption(title, ("sans-serif", 20))
            .margin(10)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(x0 - 0.5..x1 + 0.5, (bottom * 0.7..top * 1.5).log_scale())?;
        chart
            .configure_mesh()
            .x_desc(axis)
            .y_desc("kernel ms")
            .draw()?;
        for (i, (name, points)) in series.iter().enumerate() {
            let c = colour(i);
            chart
                .draw_series(LineSeries::new(
                    points.iter().copied(),
                    c.stroke_width(if name.starts_with("GTaP") { 1 } else { 3 }),
                ))?
                .label(name.clone())
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2))
                });
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.8))
            .border_style(BLACK)
            .draw()?;
        area.present()?;
        Ok(())
    }
}
