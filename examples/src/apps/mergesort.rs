//! Top-down merge sort: two child sorts down to `cutoff` elements, then a sequential merge after
//! the join (GTaP's mergesort; its final merges are one thread's sequential work).
//!
//! `mergesort_mixed` is the mixed-granularity variant: the sorts are thread-level tasks as in
//! `mergesort`, and a merge of at least `block_merge_min` keys is done by block-level
//! `merge_block` tasks, merge-path merges over a block's threads. A merge of more than
//! [`MERGE_PART_KEYS`] keys is split by merge path over [`merge_parts`] blocks (at most
//! [`MAX_MERGE_PARTS`]), each writing its share of the output: without the split, the top
//! merges ran on one block each while every other block idled (97% idle in the profile of
//! 10^7 keys, `docs/benchmarks.md`). Buffers are handled as in `mergesort`: the halves of
//! `data` are merged into `tmp` and copied back (by the single block, or by `copy_block`
//! tasks once every part has read its inputs).

use gtap::Slice;

/// Output keys per block-level merge part: a merge of `n` keys runs on [`merge_parts`]`(n)`
/// blocks.
pub const MERGE_PART_KEYS: usize = 1 << 16;
/// The most parts of one merge (each is a child of the merging task, so it stays well under
/// `Config::max_children`).
pub const MAX_MERGE_PARTS: usize = 32;

/// Blocks that merge `n` keys together: one per [`MERGE_PART_KEYS`], between 1 and
/// [`MAX_MERGE_PARTS`].
#[must_use]
pub fn merge_parts(n: usize) -> usize {
    (n / MERGE_PART_KEYS).clamp(1, MAX_MERGE_PARTS)
}

/// Output range `[lo, hi)` of part `part` of `parts` of a merge of `n` keys.
#[must_use]
pub fn merge_part_range(n: usize, part: usize, parts: usize) -> (usize, usize) {
    (part * n / parts, (part + 1) * n / parts)
}

/// Sorts `data` using `tmp` (same length) as scratch.
#[gtap::function]
pub fn mergesort(data: Slice<u32>, tmp: Slice<u32>, cutoff: usize) {
    let n = data.len();
    if n <= cutoff {
        super::seq::sort(data);
        return;
    }
    let mid = n / 2;
    task!(mergesort(data.slice(0, mid), tmp.slice(0, mid), cutoff));
    task!(mergesort(data.slice(mid, n), tmp.slice(mid, n), cutoff));
    taskwait!();
    super::seq::merge(data.slice(0, mid), data.slice(mid, n), tmp);
    data.copy_from(0, tmp, 0, n);
}

gtap::program!(
    /// `mergesort` alone.
    pub MergeSort = [mergesort]
);

/// Sorts `data` using `tmp` (same length) as scratch, as [`mergesort`] does, but hands every
/// merge of at least `block_merge_min` keys to a block-level [`merge_block`] task and joins it.
#[gtap::function]
pub fn mergesort_mixed(data: Slice<u32>, tmp: Slice<u32>, cutoff: usize, block_merge_min: usize) {
    let n = data.len();
    if n <= cutoff {
        super::seq::sort(data);
        return;
    }
    let mid = n / 2;
    task!(mergesort_mixed(
        data.slice(0, mid),
        tmp.slice(0, mid),
        cutoff,
        block_merge_min
    ));
    task!(mergesort_mixed(
        data.slice(mid, n),
        tmp.slice(mid, n),
        cutoff,
        block_merge_min
    ));
    taskwait!();
    if n >= block_merge_min {
        let parts = merge_parts(n);
        for part in 0..parts {
            task!(merge_block(data, tmp, mid, part, parts));
        }
        taskwait!();
        if parts > 1 {
            // Every part has read its inputs: copy the merged keys back, on blocks too.
            for part in 0..parts {
                task!(copy_block(tmp, data, part, parts));
            }
            taskwait!();
        }
    } else {
        super::seq::merge(data.slice(0, mid), data.slice(mid, n), tmp);
        data.copy_from(0, tmp, 0, n);
    }
}

/// This thread's share `[start, end)` of part `part` of `parts` of an `n`-key range, on a
/// block: thread `t` of `B` takes `c = ceil(len / B)` consecutive keys.
fn thread_share(n: usize, part: usize, parts: usize) -> (usize, usize) {
    let (lo, hi) = merge_part_range(n, part, parts);
    let (t, size) = (
        gtap::block::thread_index() as usize,
        gtap::block::size() as usize,
    );
    let chunk = (hi - lo).div_ceil(size);
    let start = (lo + t * chunk).min(hi);
    (start, (start + chunk).min(hi))
}

/// Part `part` of `parts` of the merge of the sorted halves `data[..mid]` and `data[mid..]`
/// into `tmp`, on a block: thread `t` writes its share of the part's output range
/// ([`merge_part_range`]), starting from its merge-path split point
/// ([`super::seq::merge_path`]: a binary search along its diagonal). A merge in one part also
/// copies its output back into `data` after a barrier (the inputs are read until every thread
/// is done); with several parts, [`copy_block`] does that once every part has finished.
#[gtap::function(block)]
pub fn merge_block(data: Slice<u32>, tmp: Slice<u32>, mid: usize, part: usize, parts: usize) {
    let n = data.len();
    let (x, y) = (data.slice(0, mid), data.slice(mid, n));
    let (start, end) = thread_share(n, part, parts);
    if start < end {
        let i = super::seq::merge_path(x, y, start);
        super::seq::merge_part(x, y, tmp, i, start - i, end - start);
    }
    if parts == 1 {
        gtap::block::sync();
        if start < end {
            data.copy_from(start, tmp, start, end - start);
        }
    }
}

/// Part `part` of `parts` of copying `src` into `dst` (same length), on a block.
#[gtap::function(block)]
pub fn copy_block(src: Slice<u32>, dst: Slice<u32>, part: usize, parts: usize) {
    let (start, end) = thread_share(src.len(), part, parts);
    if start < end {
        dst.copy_from(start, src, start, end - start);
    }
}

gtap::program!(
    /// `mergesort_mixed` (thread-level sorts) with `merge_block` and `copy_block`
    /// (block-level merges and copies).
    pub MergeSortMixed = [mergesort_mixed, merge_block, copy_block]
);
