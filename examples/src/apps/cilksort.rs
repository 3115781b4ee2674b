//! Cilksort (from the Cilk and BOTS suites): sort four quarters in parallel, then merge pairs
//! with a parallel merge that splits the larger input at its median and the smaller one at the
//! matching position (binary search), recursively, down to a sequential merge.
//!
//! With `epaq` (GTaP's 3-queue experiment, run with `Config::queues = 3`), a child that will
//! sort sequentially goes to queue 1, a merge that will run sequentially to queue 2, and every
//! other task to queue 0; without, everything uses queue 0.

use gtap::Slice;

/// The EPAQ queue of a child: `leaf_queue` when it will run sequentially, else 0.
fn queue_of(epaq: bool, leaf: bool, leaf_queue: u32) -> u32 {
    if epaq && leaf {
        leaf_queue
    } else {
        0
    }
}

/// Sorts `a` using `tmp` (same length) as scratch.
#[gtap::function]
pub fn cilksort(
    a: Slice<u32>,
    tmp: Slice<u32>,
    sort_cutoff: usize,
    merge_cutoff: usize,
    epaq: bool,
) {
    let n = a.len();
    if n <= sort_cutoff || n < 4 {
        super::seq::sort(a);
        return;
    }
    let q = n / 4;
    let (q2, q3) = (2 * q, 3 * q);
    // Quarters of `n / 4` keys (the last one a little longer) sort sequentially below the cutoff.
    let sq = queue_of(epaq, q <= sort_cutoff || q < 4, 1);
    let mq = queue_of(epaq, q2 <= merge_cutoff, 2);
    let fq = queue_of(epaq, n <= merge_cutoff, 2);
    task!(
        queue = sq,
        cilksort(
            a.slice(0, q),
            tmp.slice(0, q),
            sort_cutoff,
            merge_cutoff,
            epaq
        )
    );
    task!(
        queue = sq,
        cilksort(
            a.slice(q, q2),
            tmp.slice(q, q2),
            sort_cutoff,
            merge_cutoff,
            epaq
        )
    );
    task!(
        queue = sq,
        cilksort(
            a.slice(q2, q3),
            tmp.slice(q2, q3),
            sort_cutoff,
            merge_cutoff,
            epaq
        )
    );
    task!(
        queue = sq,
        cilksort(
            a.slice(q3, n),
            tmp.slice(q3, n),
            sort_cutoff,
            merge_cutoff,
            epaq
        )
    );
    taskwait!();
    task!(
        queue = mq,
        cilkmerge(
            a.slice(0, q),
            a.slice(q, q2),
            tmp.slice(0, q2),
            merge_cutoff,
            epaq
        )
    );
    task!(
        queue = mq,
        cilkmerge(
            a.slice(q2, q3),
            a.slice(q3, n),
            tmp.slice(q2, n),
            merge_cutoff,
            epaq
        )
    );
    taskwait!();
    task!(
        queue = fq,
        cilkmerge(tmp.slice(0, q2), tmp.slice(q2, n), a, merge_cutoff, epaq)
    );
    taskwait!();
}

/// Merges the sorted `x` and `y` into `out` (`out.len() == x.len() + y.len()`).
#[gtap::function]
pub fn cilkmerge(x: Slice<u32>, y: Slice<u32>, out: Slice<u32>, cutoff: usize, epaq: bool) {
    let (x, y) = if x.len() < y.len() { (y, x) } else { (x, y) };
    // x is the longer input; splitting it only shrinks both halves while it has 2 or more keys.
    if x.len() + y.len() <= cutoff || y.is_empty() || x.len() < 2 {
        super::seq::merge(x, y, out);
        return;
    }
    let xm = x.len() / 2;
    let ym = super::seq::lower_bound(y, x.get(xm));
    let (left, right) = (xm + ym, out.len() - xm - ym);
    task!(
        queue = queue_of(epaq, left <= cutoff, 2),
        cilkmerge(
            x.slice(0, xm),
            y.slice(0, ym),
            out.slice(0, left),
            cutoff,
            epaq
        )
    );
    task!(
        queue = queue_of(epaq, right <= cutoff, 2),
        cilkmerge(
            x.slice(xm, x.len()),
            y.slice(ym, y.len()),
            out.slice(left, out.len()),
            cutoff,
            epaq
        )
    );
    taskwait!();
}

gtap::program!(
    /// `cilksort` and the parallel merge it spawns.
    pub CilkSort = [cilksort, cilkmerge]
);
