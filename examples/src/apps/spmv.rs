//! Sparse matrix–vector product `y = A·x` on CSR by divide and conquer over rows, as GTaP's
//! example: a task halves its row range until at most [`LEAF_ROWS`] rows are left, then
//! computes them one after the other. Spawns are detached (no `taskwait!()`): every row is
//! written by exactly one leaf and nothing is combined afterwards.
//!
//! Invariants: leaves cover `rows_begin..rows_end` exactly once, so each `y[r]` has one writer
//! (no atomics needed); a row is summed in CSR order from `0.0` with `s = s + v * x[c]` (no
//! fused multiply-add: Rust does not contract floating point), the same order as
//! `reference_irregular::spmv_seq`, so results are bitwise equal on both backends.
//!
//! Sources: GTaP's SpMV example, range split to 16 rows (`reference/gtap-runtime.md` §11).

use gtap::Slice;

/// Rows a leaf task computes at most (GTaP: 16).
pub const LEAF_ROWS: u32 = 16;

/// `y[r] = Σ vals[k] · x[cols[k]]` over `k` in `offsets[r]..offsets[r + 1]`, for each row `r`
/// in `rows_begin..rows_end`.
#[gtap::function]
pub fn spmv(
    rows_begin: u32,
    rows_end: u32,
    offsets: Slice<u32>,
    cols: Slice<u32>,
    vals: Slice<f64>,
    x: Slice<f64>,
    y: Slice<f64>,
) {
    if rows_end - rows_begin > LEAF_ROWS {
        let mid = rows_begin + (rows_end - rows_begin) / 2;
        task!(spmv(rows_begin, mid, offsets, cols, vals, x, y));
        task!(spmv(mid, rows_end, offsets, cols, vals, x, y));
        return;
    }
    let mut r = rows_begin;
    while r < rows_end {
        let end = offsets.get(r as usize + 1) as usize;
        let mut k = offsets.get(r as usize) as usize;
        let mut sum = 0.0;
        while k < end {
            sum += vals.get(k) * x.get(cols.get(k) as usize);
            k += 1;
        }
        y.set(r as usize, sum);
        r += 1;
    }
}

gtap::program!(
    /// `spmv` alone.
    pub Spmv = [spmv]
);

/// The block-level SpMV: the leader halves the row range into two detached block tasks down to
/// [`LEAF_ROWS`] rows; a leaf computes its rows one after the other, each row's products
/// strided over the block's threads (thread `t` sums entries `t, t + B, ..` of the row in CSR
/// order from `0.0`), combined with [`gtap::block::sum_f64`], and thread 0 writes `y[r]`. The
/// result depends on the block size `B` and equals `reference_irregular::spmv_block_seq(.., B)`
/// bit for bit (`B = 1`, the CPU executor, is the sequential order).
#[gtap::function(block)]
pub fn spmv_block(
    rows_begin: u32,
    rows_end: u32,
    offsets: Slice<u32>,
    cols: Slice<u32>,
    vals: Slice<f64>,
    x: Slice<f64>,
    y: Slice<f64>,
) {
    if rows_end - rows_begin > LEAF_ROWS {
        if gtap::block::is_leader() {
            let mid = rows_begin + (rows_end - rows_begin) / 2;
            task!(spmv_block(rows_begin, mid, offsets, cols, vals, x, y));
            task!(spmv_block(mid, rows_end, offsets, cols, vals, x, y));
        }
        return;
    }
    let (t, size) = (gtap::block::thread_index(), gtap::block::size());
    let mut r = rows_begin;
    while r < rows_end {
        let end = offsets.get(r as usize + 1) as usize;
        let mut k = offsets.get(r as usize) as usize + t as usize;
        let mut sum = 0.0;
        while k < end {
            sum += vals.get(k) * x.get(cols.get(k) as usize);
            k += size as usize;
        }
        let row = gtap::block::sum_f64(sum);
        if gtap::block::is_leader() {
            y.set(r as usize, row);
        }
        r += 1;
    }
}

gtap::program!(
    /// `spmv_block` alone.
    pub SpmvBlock = [spmv_block]
);
