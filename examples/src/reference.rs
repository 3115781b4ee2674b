//! Baselines every example is checked and timed against: sequential Rust and rayon (work
//! stealing on the CPU's cores), written with the same algorithms and cutoffs as the tasks.

use std::sync::atomic::{AtomicU64, Ordering};

use crate::apps::seq;
use gtap::{Slice, Table};

/// Sequential fib.
#[must_use]
pub fn fib_seq(n: u32) -> u64 {
    seq::fib(n)
}

/// fib with `rayon::join` at every call.
#[must_use]
pub fn fib_rayon(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    let (a, b) = rayon::join(|| fib_rayon(n - 1), || fib_rayon(n - 2));
    a + b
}

/// Sequential N-Queens count.
#[must_use]
pub fn nqueens_seq(n: u32) -> u64 {
    seq::nqueens_count(n, 0, 0, 0, 0)
}

/// N-Queens with `rayon::scope` spawns down to `cutoff` rows (the tasks' shape).
#[must_use]
pub fn nqueens_rayon(n: u32, cutoff: u32) -> u64 {
    /// The board's size and the row down to which rows are spawned.
    #[derive(Clone, Copy)]
    struct Shape {
        n: u32,
        cutoff: u32,
    }
    fn go<'s>(
        s: &rayon::Scope<'s>,
        total: &'s AtomicU64,
        shape: Shape,
        row: u32,
        c: u32,
        d1: u32,
        d2: u32,
    ) {
        let Shape { n, cutoff } = shape;
        if row >= cutoff || row == n {
            // Ordering: Relaxed; the scope's end orders it before the final read.
            total.fetch_add(seq::nqueens_count(n, row, c, d1, d2), Ordering::Relaxed);
            return;
        }
        let all = (1u32 << n) - 1;
        let mut free = all & !(c | d1 | d2);
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            s.spawn(move |s| {
                go(
                    s,
                    total,
                    shape,
                    row + 1,
                    c | bit,
                    ((d1 | bit) << 1) & all,
                    (d2 | bit) >> 1,
                )
            });
        }
    }
    let total = AtomicU64::new(0);
    rayon::scope(|s| go(s, &total, Shape { n, cutoff }, 0, 0, 0, 0));
    // Ordering: Relaxed; rayon::scope returned, so every add happened-before this load.
    total.load(Ordering::Relaxed)
}

fn slice_of(v: &mut [u32]) -> Slice<u32> {
    // SAFETY: the handle is used only while `v` is borrowed by the caller.
    unsafe { Slice::from_raw_parts(v.as_mut_ptr(), v.len()) }
}

/// Sequential top-down merge sort with the tasks' cutoff and merge.
pub fn mergesort_seq(v: &mut [u32], cutoff: usize) {
    merge_sort(v, cutoff, SortMode::Sequential);
}

/// Merge sort with `rayon::join` for the two halves.
pub fn mergesort_rayon(v: &mut [u32], cutoff: usize) {
    merge_sort(v, cutoff, SortMode::Join);
}

/// Merge sort with `rayon::join` for the two halves and the mixed program's split merges:
/// a merge of at least `split_min` keys is cut by merge path into
/// [`merge_parts`](crate::apps::mergesort::merge_parts) parts merged in parallel (rayon's
/// `par_iter`), then copied back in parallel; smaller merges are sequential. The same work as
/// `mergesort_mixed` on the GPU, for a fair CPU baseline.
pub fn mergesort_rayon_split(v: &mut [u32], cutoff: usize, split_min: usize) {
    merge_sort(v, cutoff, SortMode::JoinSplitMerges { split_min });
}

/// How the reference merge sorts run the two halves and the merge.
#[derive(Clone, Copy)]
enum SortMode {
    /// One after the other, sequential merges.
    Sequential,
    /// `rayon::join`, sequential merges.
    Join,
    /// `rayon::join`, merges of at least `split_min` keys split by merge path.
    JoinSplitMerges { split_min: usize },
}

fn merge_sort(v: &mut [u32], cutoff: usize, mode: SortMode) {
    let mut tmp = vec![0u32; v.len()];
    merge_sort_rec(slice_of(v), slice_of(&mut tmp), cutoff, mode);
}

fn merge_sort_rec(data: Slice<u32>, tmp: Slice<u32>, cutoff: usize, mode: SortMode) {
    use crate::apps::mergesort::{merge_part_range, merge_parts};
    use rayon::prelude::*;
    let n = data.len();
    if n <= cutoff {
        seq::sort(data);
        return;
    }
    let mid = n / 2;
    let (l, r) = (
        || merge_sort_rec(data.slice(0, mid), tmp.slice(0, mid), cutoff, mode),
        || merge_sort_rec(data.slice(mid, n), tmp.slice(mid, n), cutoff, mode),
    );
    if matches!(mode, SortMode::Sequential) {
        l();
        r();
    } else {
        rayon::join(l, r);
    }
    let (x, y) = (data.slice(0, mid), data.slice(mid, n));
    let parts = merge_parts(n);
    match mode {
        SortMode::JoinSplitMerges { split_min } if n >= split_min && parts > 1 => {
            (0..parts).into_par_iter().for_each(|part| {
                let (lo, hi) = merge_part_range(n, part, parts);
                let i = seq::merge_path(x, y, lo);
                seq::merge_part(x, y, tmp, i, lo - i, hi - lo);
            });
            (0..parts).into_par_iter().for_each(|part| {
                let (lo, hi) = merge_part_range(n, part, parts);
                data.copy_from(lo, tmp, lo, hi - lo);
            });
        }
        _ => {
            seq::merge(x, y, tmp);
            data.copy_from(0, tmp, 0, n);
        }
    }
}

/// Sequential cilksort (same algorithm and cutoffs as the tasks).
pub fn cilksort_seq(v: &mut [u32], sort_cutoff: usize, merge_cutoff: usize) {
    let mut tmp = vec![0u32; v.len()];
    cilksort_rec(
        slice_of(v),
        slice_of(&mut tmp),
        sort_cutoff,
        merge_cutoff,
        false,
    );
}

/// Cilksort with `rayon::join` at every fork.
pub fn cilksort_rayon(v: &mut [u32], sort_cutoff: usize, merge_cutoff: usize) {
    let mut tmp = vec![0u32; v.len()];
    cilksort_rec(
        slice_of(v),
        slice_of(&mut tmp),
        sort_cutoff,
        merge_cutoff,
        true,
    );
}

fn join2(parallel: bool, a: impl FnOnce() + Send, b: impl FnOnce() + Send) {
    if parallel {
        rayon::join(a, b);
    } else {
        a();
        b();
    }
}

fn cilksort_rec(a: Slice<u32>, tmp: Slice<u32>, sc: usize, mc: usize, par: bool) {
    let n = a.len();
    if n <= sc || n < 4 {
        seq::sort(a);
        return;
    }
    let q = n / 4;
    let (q2, q3) = (2 * q, 3 * q);
    join2(
        par,
        || {
            join2(
                par,
                || cilksort_rec(a.slice(0, q), tmp.slice(0, q), sc, mc, par),
                || cilksort_rec(a.slice(q, q2), tmp.slice(q, q2), sc, mc, par),
            )
        },
        || {
            join2(
                par,
                || cilksort_rec(a.slice(q2, q3), tmp.slice(q2, q3), sc, mc, par),
                || cilksort_rec(a.slice(q3, n), tmp.slice(q3, n), sc, mc, par),
            )
        },
    );
    join2(
        par,
        || cilkmerge_rec(a.slice(0, q), a.slice(q, q2), tmp.slice(0, q2), mc, par),
        || cilkmerge_rec(a.slice(q2, q3), a.slice(q3, n), tmp.slice(q2, n), mc, par),
    );
    cilkmerge_rec(tmp.slice(0, q2), tmp.slice(q2, n), a, mc, par);
}

fn cilkmerge_rec(x: Slice<u32>, y: Slice<u32>, out: Slice<u32>, cutoff: usize, par: bool) {
    let (x, y) = if x.len() < y.len() { (y, x) } else { (x, y) };
    // x is the longer input; splitting it only shrinks both halves while it has 2 or more keys.
    if x.len() + y.len() <= cutoff || y.is_empty() || x.len() < 2 {
        seq::merge(x, y, out);
        return;
    }
    let xm = x.len() / 2;
    let ym = seq::lower_bound(y, x.get(xm));
    join2(
        par,
        || {
            cilkmerge_rec(
                x.slice(0, xm),
                y.slice(0, ym),
                out.slice(0, xm + ym),
                cutoff,
                par,
            )
        },
        || {
            cilkmerge_rec(
                x.slice(xm, x.len()),
                y.slice(ym, y.len()),
                out.slice(xm + ym, out.len()),
                cutoff,
                par,
            )
        },
    );
}

/// Sequential binary-tree checksum.
#[must_use]
pub fn tree_seq(
    depth: u32,
    max_depth: u32,
    node: u64,
    mem_ops: u32,
    compute_iters: u32,
    data: Table<f64>,
) -> f64 {
    let mut children = 0.0;
    if depth < max_depth {
        let l = tree_seq(
            depth + 1,
            max_depth,
            2 * node + 1,
            mem_ops,
            compute_iters,
            data,
        );
        let r = tree_seq(
            depth + 1,
            max_depth,
            2 * node + 2,
            mem_ops,
            compute_iters,
            data,
        );
        children = l + r;
    }
    children + seq::tree_node_work(node, mem_ops, compute_iters, data)
}

/// Binary-tree checksum with `rayon::join` at every node.
#[must_use]
pub fn tree_rayon(
    depth: u32,
    max_depth: u32,
    node: u64,
    mem_ops: u32,
    compute_iters: u32,
    data: Table<f64>,
) -> f64 {
    let mut children = 0.0;
    if depth < max_depth {
        let (l, r) = rayon::join(
            || {
                tree_rayon(
                    depth + 1,
                    max_depth,
                    2 * node + 1,
                    mem_ops,
                    compute_iters,
                    data,
                )
            },
            || {
                tree_rayon(
                    depth + 1,
                    max_depth,
                    2 * node + 2,
                    mem_ops,
                    compute_iters,
                    data,
                )
            },
        );
        children = l + r;
    }
    children + seq::tree_node_work(node, mem_ops, compute_iters, data)
}

/// The pruned 3-ary tree's checksum, sequentially (same child order and sums as the task).
#[must_use]
#[allow(clippy::too_many_arguments)]
pub fn pruned_tree_seq(
    depth: u32,
    max_depth: u32,
    node: u64,
    seed: u64,
    mem_ops: u32,
    compute_iters: u32,
    data: Table<f64>,
) -> (f64, u64) {
    use crate::apps::pruned_tree::child_kept;
    let mut sums = [0.0; 3];
    let mut nodes = 1;
    if depth < max_depth {
        for (c, sum) in sums.iter_mut().enumerate() {
            if child_kept(seed, node, c as u64, depth, max_depth) {
                let (s, n) = pruned_tree_seq(
                    depth + 1,
                    max_depth,
                    3 * node + 1 + c as u64,
                    seed,
                    mem_ops,
                    compute_iters,
                    data,
                );
                *sum = s;
                nodes += n;
            }
        }
    }
    (
        sums[0] + sums[1] + sums[2] + seq::tree_node_work(node, mem_ops, compute_iters, data),
        nodes,
    )
}

/// The pruned 3-ary tree's checksum and node count with `rayon::join` at every node.
#[must_use]
#[allow(clippy::too_many_arguments)]
pub fn pruned_tree_rayon(
    depth: u32,
    max_depth: u32,
    node: u64,
    seed: u64,
    mem_ops: u32,
    compute_iters: u32,
    data: Table<f64>,
) -> (f64, u64) {
    use crate::apps::pruned_tree::child_kept;
    let child = |c: u64| {
        if depth < max_depth && child_kept(seed, node, c, depth, max_depth) {
            pruned_tree_rayon(
                depth + 1,
                max_depth,
                3 * node + 1 + c,
                seed,
                mem_ops,
                compute_iters,
                data,
            )
        } else {
            (0.0, 0)
        }
    };
    let (a, (b, c)) = rayon::join(|| child(0), || rayon::join(|| child(1), || child(2)));
    (
        a.0 + b.0 + c.0 + seq::tree_node_work(node, mem_ops, compute_iters, data),
        1 + a.1 + b.1 + c.1,
    )
}

/// The value of one node of the block-level trees on a block of `block` threads: the threads'
/// [`seq::tree_block_partial`]s summed in [`gtap::block::sum_f64`]'s order.
///
/// # Panics
///
/// If `block` is not 1 or a multiple of 32 up to 1024 (a block the GPU can run).
#[must_use]
pub fn tree_block_node(
    node: u64,
    mem_ops: u32,
    compute_iters: u32,
    data: Table<f64>,
    block: u32,
) -> f64 {
    assert!(
        block == 1 || (block.is_multiple_of(32) && block <= 1024),
        "block size {block}: expected 1 or a multiple of 32 up to 1024"
    );
    let mut partials = [0.0f64; 1024];
    let partials = &mut partials[..block as usize];
    for (t, p) in (0..block).zip(partials.iter_mut()) {
        *p = seq::tree_block_partial(node, mem_ops, compute_iters, data, t, block);
    }
    gtap::block::sum_f64_reference(partials)
}

/// The block-level binary tree's checksum (`tree_block`) on blocks of `block` threads,
/// sequentially: bit for bit what the GPU computes with `Config::block_threads = block`, and
/// the CPU executor with `block = 1`.
#[must_use]
pub fn tree_block_seq(
    depth: u32,
    max_depth: u32,
    node: u64,
    work: TreeWork,
    data: Table<f64>,
    block: u32,
) -> f64 {
    let mut children = 0.0;
    if depth < max_depth {
        let l = tree_block_seq(depth + 1, max_depth, 2 * node + 1, work, data, block);
        let r = tree_block_seq(depth + 1, max_depth, 2 * node + 2, work, data, block);
        children = l + r;
    }
    children + tree_block_node(node, work.mem_ops, work.compute_iters, data, block)
}

/// [`tree_block_seq`] with `rayon::join` at every node (same result).
#[must_use]
pub fn tree_block_rayon(
    depth: u32,
    max_depth: u32,
    node: u64,
    work: TreeWork,
    data: Table<f64>,
    block: u32,
) -> f64 {
    let mut children = 0.0;
    if depth < max_depth {
        let (l, r) = rayon::join(
            || tree_block_rayon(depth + 1, max_depth, 2 * node + 1, work, data, block),
            || tree_block_rayon(depth + 1, max_depth, 2 * node + 2, work, data, block),
        );
        children = l + r;
    }
    children + tree_block_node(node, work.mem_ops, work.compute_iters, data, block)
}

/// The per-node work of the trees: `mem_ops` loads and `compute_iters` multiply-adds.
#[derive(Clone, Copy, Debug)]
pub struct TreeWork {
    /// Loads per node.
    pub mem_ops: u32,
    /// Multiply-adds per node.
    pub compute_iters: u32,
}

/// The block-level pruned tree's checksum and node count (`pruned_tree_block`) on blocks of
/// `block` threads: same tree as [`pruned_tree_seq`], node values as [`tree_block_node`].
#[must_use]
pub fn pruned_tree_block_seq(
    depth: u32,
    max_depth: u32,
    node: u64,
    seed: u64,
    work: TreeWork,
    data: Table<f64>,
    block: u32,
) -> (f64, u64) {
    use crate::apps::pruned_tree::child_kept;
    let mut sums = [0.0; 3];
    let mut nodes = 1;
    if depth < max_depth {
        for (c, sum) in sums.iter_mut().enumerate() {
            if child_kept(seed, node, c as u64, depth, max_depth) {
                let child = 3 * node + 1 + c as u64;
                let (s, n) =
                    pruned_tree_block_seq(depth + 1, max_depth, child, seed, work, data, block);
                *sum = s;
                nodes += n;
            }
        }
    }
    let own = tree_block_node(node, work.mem_ops, work.compute_iters, data, block);
    (sums[0] + sums[1] + sums[2] + own, nodes)
}

/// [`pruned_tree_block_seq`] with `rayon::join` at every node (same result).
#[must_use]
pub fn pruned_tree_block_rayon(
    depth: u32,
    max_depth: u32,
    node: u64,
    seed: u64,
    work: TreeWork,
    data: Table<f64>,
    block: u32,
) -> (f64, u64) {
    use crate::apps::pruned_tree::child_kept;
    let child = |c: u64| {
        if depth < max_depth && child_kept(seed, node, c, depth, max_depth) {
            let n = 3 * node + 1 + c;
            pruned_tree_block_rayon(depth + 1, max_depth, n, seed, work, data, block)
        } else {
            (0.0, 0)
        }
    };
    let (a, (b, c)) = rayon::join(|| child(0), || rayon::join(|| child(1), || child(2)));
    let own = tree_block_node(node, work.mem_ops, work.compute_iters, data, block);
    (a.0 + b.0 + c.0 + own, 1 + a.1 + b.1 + c.1)
}

/// `n` pseudo-random 32-bit keys from `seed` (xorshift64*), for the sorts.
#[must_use]
pub fn random_keys(n: usize, seed: u64) -> Vec<u32> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s >> 12;
            s ^= s << 25;
            s ^= s >> 27;
            (s.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 32) as u32
        })
        .collect()
}

/// `n` pseudo-random values in [0, 1) from `seed`, the binary tree's data.
#[must_use]
pub fn random_f64(n: usize, seed: u64) -> Vec<f64> {
    random_keys(n, seed)
        .into_iter()
        .map(|k| f64::from(k) / 4_294_967_296.0)
        .collect()
}

/// Whether `sorted` is sorted and a permutation of `original`.
#[must_use]
pub fn is_sorted_permutation(original: &[u32], sorted: &[u32]) -> bool {
    if original.len() != sorted.len() || !sorted.is_sorted() {
        return false;
    }
    let mut expect = original.to_vec();
    expect.sort_unstable();
    expect == sorted
}
