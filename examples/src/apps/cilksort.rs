//! Cilksort (from the Cilk and BOTS suites): sort four quarters in parallel, then merge pairs
//! with a parallel merge that splits the larger input at its median and the smaller one at the
//! matching position (binary search), recursively, down to a sequential merge.

use gtap::Slice;

/// Sorts `a` using `tmp` (same length) as scratch.
#[gtap::function]
pub fn cilksort(a: Slice<u32>, tmp: Slice<u32>, sort_cutoff: usize, merge_cutoff: usize) {
    let n = a.len();
    if n <= sort_cutoff || n < 4 {
        super::seq::sort(a);
        return;
    }
    let q = n / 4;
    let (q2, q3) = (2 * q, 3 * q);
    task!(cilksort(
        a.slice(0, q),
        tmp.slice(0, q),
        sort_cutoff,
        merge_cutoff
    ));
    task!(cilksort(
        a.slice(q, q2),
        tmp.slice(q, q2),
        sort_cutoff,
        merge_cutoff
    ));
    task!(cilksort(
        a.slice(q2, q3),
        tmp.slice(q2, q3),
        sort_cutoff,
        merge_cutoff
    ));
    task!(cilksort(
        a.slice(q3, n),
        tmp.slice(q3, n),
        sort_cutoff,
        merge_cutoff
    ));
    taskwait!();
    task!(cilkmerge(
        a.slice(0, q),
        a.slice(q, q2),
        tmp.slice(0, q2),
        merge_cutoff
    ));
    task!(cilkmerge(
        a.slice(q2, q3),
        a.slice(q3, n),
        tmp.slice(q2, n),
        merge_cutoff
    ));
    taskwait!();
    task!(cilkmerge(
        tmp.slice(0, q2),
        tmp.slice(q2, n),
        a,
        merge_cutoff
    ));
    taskwait!();
}

/// Merges the sorted `x` and `y` into `out` (`out.len() == x.len() + y.len()`).
#[gtap::function]
pub fn cilkmerge(x: Slice<u32>, y: Slice<u32>, out: Slice<u32>, cutoff: usize) {
    let (x, y) = if x.len() < y.len() { (y, x) } else { (x, y) };
    // x is the longer input; splitting it only shrinks both halves while it has 2 or more keys.
    if x.len() + y.len() <= cutoff || y.is_empty() || x.len() < 2 {
        super::seq::merge(x, y, out);
        return;
    }
    let xm = x.len() / 2;
    let ym = super::seq::lower_bound(y, x.get(xm));
    task!(cilkmerge(
        x.slice(0, xm),
        y.slice(0, ym),
        out.slice(0, xm + ym),
        cutoff
    ));
    task!(cilkmerge(
        x.slice(xm, x.len()),
        y.slice(ym, y.len()),
        out.slice(xm + ym, out.len()),
        cutoff
    ));
    taskwait!();
}

gtap::program!(
    /// `cilksort` and the parallel merge it spawns.
    pub CilkSort = [cilksort, cilkmerge]
);
