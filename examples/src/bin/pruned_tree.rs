//! `pruned_tree [DEPTH] [MEM_OPS] [COMPUTE_ITERS] [SEED] [--granularity thread|block]`: GTaP's
//! depth-dependent pruned 3-ary tree (a child exists with probability 1 - depth/DEPTH); the
//! checksum must equal the reference exactly. With `--granularity block` every node is a
//! block-level task and the checksum depends on the block size (1 on the CPU executor).

use std::process::ExitCode;

use gtap_examples::{
    apps::pruned_tree::{pruned_tree, pruned_tree_block, PrunedTree, PrunedTreeBlock},
    host::{self, Granularity, Opts},
    reference::{self, TreeWork},
};

const USAGE: &str = "pruned_tree [DEPTH=24] [MEM_OPS=256] [COMPUTE_ITERS=256] [SEED=1] [--granularity thread|block] [--block-threads N] [--scheduler wf|shared|gq] [--profile DIR] [--cpu|--gpu] [--workers N] [--reps N]";

/// Elements of the array the nodes load from (as in `binary_tree`).
const DATA_LEN: usize = 1 << 20;

fn main() -> ExitCode {
    let opts = Opts::from_env(USAGE);
    opts.require_granularity(&[Granularity::Thread, Granularity::Block], USAGE);
    let block = opts.granularity == Granularity::Block;
    let depth: u32 = opts.arg(0, "DEPTH", 24, USAGE);
    let mem_ops: u32 = opts.arg(1, "MEM_OPS", 256, USAGE);
    let compute_iters: u32 = opts.arg(2, "COMPUTE_ITERS", 256, USAGE);
    let seed: u64 = opts.arg(3, "SEED", 1, USAGE);
    if !(1..=40).contains(&depth) {
        eprintln!("error: DEPTH must be in 1..=40, got {depth}");
        return ExitCode::from(2);
    }
    let mut rt = match opts.runtime() {
        Ok(rt) => rt,
        Err(e) => return host::fail("pruned_tree", &e),
    };
    let values = reference::random_f64(DATA_LEN, 3);
    // SAFETY: `values` outlives every use of the handle in this function.
    let host_data = unsafe { gtap::Table::from_raw_parts(values.as_ptr(), values.len()) };
    let data = match rt.replicate(&values) {
        Ok(d) => d,
        Err(e) => return host::fail("pruned_tree", &e),
    };
    let host::Reps {
        last: result,
        mut times,
        ..
    } = match host::repeat(&mut rt, &opts, "pruned_tree", |rt| {
        let args = (0, depth, 0, seed, mem_ops, compute_iters, data.table());
        if block {
            rt.run::<PrunedTreeBlock, _>(pruned_tree_block, args)
        } else {
            rt.run::<PrunedTree, _>(pruned_tree, args)
        }
    }) {
        Ok(reps) => reps,
        Err(code) => return code,
    };
    let ms = host::median(&mut times);
    let tasks = rt.last_stats().map_or(0, |s| s.tasks);
    let b = host::block_size(&rt);
    let work = TreeWork {
        mem_ops,
        compute_iters,
    };
    let ((expected, nodes), ref_ms) = host::timed(|| {
        if block {
            reference::pruned_tree_block_rayon(0, depth, 0, seed, work, host_data, b)
        } else {
            reference::pruned_tree_rayon(0, depth, 0, seed, mem_ops, compute_iters, host_data)
        }
    });
    let what = if block {
        format!("block-level, {b} threads per block")
    } else {
        "thread-level".to_string()
    };
    println!(
        "pruned_tree(depth {depth}, mem_ops {mem_ops}, compute_iters {compute_iters}, seed {seed}, {what}) = {result} on {} in {ms:.2} ms (median of {}); {nodes} nodes, {tasks} tasks; rayon {ref_ms:.2} ms",
        rt.backend_name(),
        times.len()
    );
    host::report(
        "pruned_tree",
        result.to_bits() == expected.to_bits() && tasks == nodes,
        &format!("expected {expected} over {nodes} nodes (the rayon run)"),
    )
}
