//! Top-down merge sort: two child sorts down to `cutoff` elements, then a sequential merge after
//! the join (GTaP's mergesort; its final merges are one thread's sequential work).
//!
//! `mergesort_mixed` is the mixed-granularity variant: the sorts are thread-level tasks as in
//! `mergesort`, and a merge of at least `block_merge_min` keys is a block-level `merge_block`
//! task, a merge-path merge over the block's threads. Buffers are handled as in `mergesort`:
//! the halves of `data` are merged into `tmp` and copied back.

use gtap::Slice;

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
        task!(merge_block(data, tmp, mid));
        taskwait!();
    } else {
        super::seq::merge(data.slice(0, mid), data.slice(mid, n), tmp);
        data.copy_from(0, tmp, 0, n);
    }
}

/// Merges the sorted halves `data[..mid]` and `data[mid..]` into `tmp` and copies the result
/// back into `data`, on a block: thread `t` of `B` writes output `t * c .. (t + 1) * c`
/// (`c = ceil(n / B)`), starting from its merge-path split point
/// ([`super::seq::merge_path`]: a binary search along its diagonal), then, after a barrier
/// (the inputs are read until every thread is done), copies the same range back.
#[gtap::function(block)]
pub fn merge_block(data: Slice<u32>, tmp: Slice<u32>, mid: usize) {
    let n = data.len();
    let (x, y) = (data.slice(0, mid), data.slice(mid, n));
    let (t, size) = (
        gtap::block::thread_index() as usize,
        gtap::block::size() as usize,
    );
    let chunk = n.div_ceil(size);
    let start = (t * chunk).min(n);
    let end = (start + chunk).min(n);
    if start < end {
        let i = super::seq::merge_path(x, y, start);
        super::seq::merge_part(x, y, tmp, i, start - i, end - start);
    }
    gtap::block::sync();
    if start < end {
        data.copy_from(start, tmp, start, end - start);
    }
}

gtap::program!(
    /// `mergesort_mixed` (thread-level sorts) and `merge_block` (block-level merges).
    pub MergeSortMixed = [mergesort_mixed, merge_block]
);
