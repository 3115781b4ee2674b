//! `binary_tree [DEPTH] [MEM_OPS] [COMPUTE_ITERS] [--granularity thread|block]`: a full binary
//! tree of tasks with per-node loads and multiply-adds; the checksum must equal the sequential
//! one exactly. With `--granularity block` every node is a block-level task and the checksum
//! depends on the block size (`--block-threads`, 1 on the CPU executor); the reference takes it.

use std::process::ExitCode;

use gtap_examples::{
    apps::binary_tree::{tree, tree_block, BinaryTree, BinaryTreeBlock},
    host::{self, Granularity, Opts, Reference},
    reference::{self, TreeWork},
};

const USAGE: &str = "binary_tree [DEPTH=16] [MEM_OPS=256] [COMPUTE_ITERS=256] [--granularity thread|block] [--block-threads N] [--scheduler wf|shared|gq] [--reference seq|rayon] [--profile DIR] [--cpu|--gpu] [--workers N] [--reps N]";

/// Elements of the array the nodes load from (8 MiB of f64, several times the L2 of a CPU).
const DATA_LEN: usize = 1 << 20;

fn main() -> ExitCode {
    let opts = Opts::from_env(USAGE);
    opts.require_granularity(&[Granularity::Thread, Granularity::Block], USAGE);
    let block = opts.granularity == Granularity::Block;
    let depth: u32 = opts.arg(0, "DEPTH", 16, USAGE);
    let mem_ops: u32 = opts.arg(1, "MEM_OPS", 256, USAGE);
    let compute_iters: u32 = opts.arg(2, "COMPUTE_ITERS", 256, USAGE);
    if depth > 30 {
        eprintln!("error: DEPTH must be at most 30, got {depth}");
        return ExitCode::from(2);
    }
    let mut rt = match opts.runtime() {
        Ok(rt) => rt,
        Err(e) => return host::fail("binary_tree", &e),
    };
    let values = reference::random_f64(DATA_LEN, 3);
    let data = match rt.replicate(&values) {
        Ok(d) => d,
        Err(e) => return host::fail("binary_tree", &e),
    };
    let host::Reps {
        last: result,
        mut times,
        ..
    } = match host::repeat(&mut rt, &opts, "binary_tree", |rt| {
        let args = (0, depth, 0, mem_ops, compute_iters, data.table());
        if block {
            rt.run::<BinaryTreeBlock, _>(tree_block, args)
        } else {
            rt.run::<BinaryTree, _>(tree, args)
        }
    }) {
        Ok(reps) => reps,
        Err(code) => return code,
    };
    // SAFETY: `values` outlives the handle's only use, the sequential reference below.
    let host_data = unsafe { gtap::Table::from_raw_parts(values.as_ptr(), values.len()) };
    let b = host::block_size(&rt);
    let work = TreeWork {
        mem_ops,
        compute_iters,
    };
    // Both references sum the tree in the task tree's order (each node adds its children's
    // sums, left first), so they and the task program give the same bits.
    let rayon = opts.reference == Reference::Rayon;
    let (expected, seq_ms) = host::timed(|| match (block, rayon) {
        (true, false) => reference::tree_block_seq(0, depth, 0, work, host_data, b),
        (true, true) => reference::tree_block_rayon(0, depth, 0, work, host_data, b),
        (false, false) => reference::tree_seq(0, depth, 0, mem_ops, compute_iters, host_data),
        (false, true) => reference::tree_rayon(0, depth, 0, mem_ops, compute_iters, host_data),
    });
    let ms = host::median(&mut times);
    let what = if block {
        format!("block-level, {b} threads per block")
    } else {
        "thread-level".to_string()
    };
    println!("binary_tree(depth {depth}, mem_ops {mem_ops}, compute_iters {compute_iters}, {what}) = {result} on {} in {ms:.2} ms (median of {}); {} {seq_ms:.2} ms", rt.backend_name(), times.len(), opts.reference.name());
    host::report(
        "binary_tree",
        result.to_bits() == expected.to_bits(),
        &format!("expected {expected}"),
    )
}
