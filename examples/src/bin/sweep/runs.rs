//! The sweeps `sweep run` carries out on the GPU (module doc of `sweep.rs`): worker-count
//! scaling with each scheduler variant, the block-level tree's scaling, and the EPAQ cutoff
//! sweeps; each point checked and appended to the CSV as it finishes.

use super::*;

/// A scheduler variant of the worker-count sweeps.
#[derive(Clone, Copy)]
pub(crate) struct Variant {
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
pub(crate) const WS: Variant = Variant {
    name: "ws",
    blocks: &[32, 256],
    batched_claims: true,
    scheduler: Scheduler::SharedDeque,
    max_reps: usize::MAX,
};

/// One CAS per claimed deque entry (GTaP's `chaselev` ablation), blocks of 32 only.
pub(crate) const SINGLE: Variant = Variant {
    name: "single",
    blocks: &[32],
    batched_claims: false,
    scheduler: Scheduler::SharedDeque,
    max_reps: usize::MAX,
};

/// One global FIFO queue (GTaP's `gq` ablation).
pub(crate) const GQ: Variant = Variant {
    name: "gq",
    blocks: &[32, 256],
    batched_claims: true,
    scheduler: Scheduler::GlobalQueue,
    max_reps: 3,
};

/// Task records of all workers together in the global-queue runs (see `scaling`).
pub(crate) const GQ_TOTAL_TASKS: u32 = 1 << 26;
/// The same for the block-level tree (2^21 nodes at depth 20, with a margin for uneven
/// allocation across the per-worker pools).
pub(crate) const GQ_TOTAL_BLOCK_TASKS: u32 = 1 << 22;

/// Whether `e` is a measured outcome of `variant` rather than a failure: the global queue's
/// FIFO order can hold many more tasks at once than work stealing, past the pools' or the
/// queue's capacity (reported with the knob to raise; the runtime stays usable).
pub(crate) fn over_capacity(variant: Variant, e: &str) -> bool {
    variant.scheduler == Scheduler::GlobalQueue
        && (e.contains("pool exhausted")
            || e.contains("queue overflow")
            || e.contains("could not allocate"))
}

/// Worker-count sweep of the thread-level workloads with the scheduler `variant`.
pub(crate) fn scaling(out: &Path, reps: usize, variant: Variant) -> Result<(), String> {
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
pub(crate) const TREE_WORKLOADS: [(&str, u32, u32); 2] =
    [("compute", 64, 1024), ("memory", 1024, 64)];

/// Block-level worker-count sweep: `tree_block` at depth 20 on grids of 16..=4096 blocks of 32
/// and 256 threads, with both schedulers (all `ws` points first, then `gq`).
pub(crate) fn tree_scaling(out: &Path, reps: usize, variants: &[Variant]) -> Result<(), String> {
    const DEPTH: u32 = 20;
    const BLOCK_THREADS: [u32; 2] = [32, 256];
    let values = reference::random_f64(1 << 20, 3);
    // SAFETY: `values` outlives every use of the handle in this function.
    let host_data = unsafe { gtap::Table::from_raw_parts(values.as_ptr(), values.len()) };
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
                let data = rt.replicate(&values).map_err(|e| e.to_string())?;
                // The ws runs on 16 blocks take 1 to 2.5 s, the gq runs longer.
                let reps = if workers <= 64 { 1 } else { reps.min(3) };
                for (workload, m, c) in TREE_WORKLOADS {
                    let want = expected[&(workload, block_threads)];
                    let t = median_kernel(&mut rt, reps, |rt| {
                        let r = rt
                            .run::<BinaryTreeBlock, _>(
                                tree_block,
                                (0, DEPTH, 0, m, c, data.table()),
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

pub(crate) fn epaq_sweep(out: &Path, reps: usize) -> Result<(), String> {
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
pub(crate) fn epaq_nqueens(out: &Path, reps: usize) -> Result<(), String> {
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
pub(crate) fn epaq_cilksort(out: &Path, reps: usize) -> Result<(), String> {
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
