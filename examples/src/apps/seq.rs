//! Sequential kernels the task functions call below their cutoffs (ordinary functions, usable
//! on both backends and by the host references).

use gtap::{Slice, Table};

/// Plain recursive Fibonacci.
#[must_use]
pub fn fib(n: u32) -> u64 {
    if n < 2 {
        n as u64
    } else {
        fib(n - 1) + fib(n - 2)
    }
}

/// Counts the completions of an N-Queens board with `cols`/`diag1`/`diag2` occupied (bitmasks,
/// row by row), without recursion so it is safe on the GPU's small stack.
///
/// The row being filled lives in registers (its occupied columns and diagonals, and the
/// candidates not tried yet); only the rows above it are on the stack, one entry each, written
/// when the search descends and read when it backtracks. The last row is counted with one
/// `count_ones` instead of a step per square. On the GPU the stack is per-lane local memory,
/// and the lanes of a batch search unequal subtrees, so each store is a memory request of its
/// own that ends in L2: this form makes one store per board placed below the last row, where a
/// stack holding the current row too made two per board and one per last-row square
/// (`docs/benchmarks.md`, twelfth session).
#[must_use]
pub fn nqueens_count(n: u32, row: u32, cols: u32, diag1: u32, diag2: u32) -> u64 {
    if row == n {
        return 1;
    }
    let all = (1u32 << n) - 1;
    // Depth (rows below `row`) of the last row: at most 31.
    let last = (n - row - 1) as usize;
    let mut stack = [(0u32, 0u32, 0u32, 0u32); 32];
    let mut depth = 0usize;
    let (mut c, mut d1, mut d2) = (cols, diag1, diag2);
    let mut free = all & !(c | d1 | d2);
    let mut count = 0u64;
    loop {
        if depth == last {
            // Every free square of the last row completes a board.
            count += u64::from(free.count_ones());
            free = 0;
        }
        if free == 0 {
            if depth == 0 {
                return count;
            }
            depth -= 1;
            (c, d1, d2, free) = stack[depth];
            continue;
        }
        let bit = free & free.wrapping_neg();
        stack[depth] = (c, d1, d2, free ^ bit);
        depth += 1;
        c |= bit;
        d1 = ((d1 | bit) << 1) & all;
        d2 = (d2 | bit) >> 1;
        free = all & !(c | d1 | d2);
    }
}

/// Sorts `a` in place: insertion sort for short runs, heap sort otherwise (no recursion, no
/// allocation: fit for a GPU thread).
pub fn sort(a: Slice<u32>) {
    let n = a.len();
    if n <= 32 {
        insertion_sort(a);
    } else {
        heap_sort(a);
    }
}

fn insertion_sort(a: Slice<u32>) {
    for i in 1..a.len() {
        let v = a.get(i);
        let mut j = i;
        while j > 0 && a.get(j - 1) > v {
            a.set(j, a.get(j - 1));
            j -= 1;
        }
        a.set(j, v);
    }
}

fn heap_sort(a: Slice<u32>) {
    let n = a.len();
    for start in (0..n / 2).rev() {
        sift_down(a, start, n);
    }
    for end in (1..n).rev() {
        a.swap(0, end);
        sift_down(a, 0, end);
    }
}

fn sift_down(a: Slice<u32>, mut root: usize, end: usize) {
    loop {
        let mut child = 2 * root + 1;
        if child >= end {
            return;
        }
        if child + 1 < end && a.get(child) < a.get(child + 1) {
            child += 1;
        }
        if a.get(root) >= a.get(child) {
            return;
        }
        a.swap(root, child);
        root = child;
    }
}

/// Merges the sorted `x` and `y` into `out` (`out.len() == x.len() + y.len()`); on ties `x`'s
/// element comes first.
///
/// Written for a GPU lane, where each memory instruction of a lane is a request of its own (the
/// lanes of a batch merge different arrays): the heads of `x` and `y` stay in registers, so an
/// element taken costs one load, and while both inputs have more than four elements left the
/// output goes out four at a time, in one 16-byte store once `out` is 16-aligned
/// (`docs/benchmarks.md`, twelfth session).
pub fn merge(x: Slice<u32>, y: Slice<u32>, out: Slice<u32>) {
    let (nx, ny) = (x.len(), y.len());
    assert!(
        out.len() == nx + ny,
        "merge: out has {} elements, x and y {} together",
        out.len(),
        nx + ny
    );
    let (mut i, mut j, mut k) = (0, 0, 0);
    if nx > 0 && ny > 0 {
        let (mut a, mut b) = (x.get(0), y.get(0));
        // Takes the smaller head (`x`'s on ties) and loads the next element of its input;
        // the caller makes sure that input has one.
        macro_rules! take {
            () => {
                if a <= b {
                    let v = a;
                    i += 1;
                    // SAFETY: the callers check that `i` is still below `nx` here.
                    a = unsafe { x.get_unchecked(i) };
                    v
                } else {
                    let v = b;
                    j += 1;
                    // SAFETY: as above, `j` below `ny`.
                    b = unsafe { y.get_unchecked(j) };
                    v
                }
            };
        }
        let aligned = |k: usize| (out.as_ptr().wrapping_add(k) as usize).is_multiple_of(16);
        // Element by element until `out[k]` is 16-aligned.
        while i + 1 < nx && j + 1 < ny && !aligned(k) {
            out.set(k, take!());
            k += 1;
        }
        // Four at a time: with more than four elements left in each input, no step exhausts
        // one (so every load above is in bounds).
        if aligned(k) {
            while i + 4 < nx && j + 4 < ny {
                let v = Aligned4([take!(), take!(), take!(), take!()]);
                // SAFETY: k = i + j before the four steps, when i + 4 < nx and j + 4 < ny, so
                // k + 4 < nx + ny = out.len(); out[k] is 16-aligned (checked above, and k
                // moves by 4).
                unsafe { out.as_ptr().add(k).cast::<Aligned4>().write(v) };
                k += 4;
            }
        }
        // The rest element by element while both inputs last; `a` and `b` are their heads.
        while i < nx && j < ny {
            if a <= b {
                out.set(k, a);
                i += 1;
                if i < nx {
                    a = x.get(i);
                }
            } else {
                out.set(k, b);
                j += 1;
                if j < ny {
                    b = y.get(j);
                }
            }
            k += 1;
        }
    }
    out.copy_from(k, x, i, nx - i);
    k += nx - i;
    out.copy_from(k, y, j, ny - j);
}

/// Four `u32` written with one 16-byte store ([`merge`]).
#[repr(C, align(16))]
struct Aligned4([u32; 4]);

/// The first index of `y` whose element is `>= v` (`y` sorted).
#[must_use]
pub fn lower_bound(y: Slice<u32>, v: u32) -> usize {
    let (mut lo, mut hi) = (0, y.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        if y.get(mid) < v {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The per-node work of the binary-tree benchmark: `mem_ops` pseudo-random loads from `data`
/// and `compute_iters` multiply-adds, folded into one value (deterministic in `node`).
#[must_use]
pub fn tree_node_work(node: u64, mem_ops: u32, compute_iters: u32, data: Table<f64>) -> f64 {
    // A 32-bit xorshift per node, mapped onto `0..len` by Lemire's multiply-shift: no division
    // (a 64-bit `%` is a long software routine on the GPU). Tables of 2^32 elements or more
    // only use their first 2^32 - 1.
    let mut h = ((node as u32).wrapping_mul(0x9e37_79b9) ^ (node >> 32) as u32) | 1;
    let mut acc = 0.0f64;
    let len = data.len().min(u32::MAX as usize) as u64;
    if len > 0 {
        for _ in 0..mem_ops {
            h ^= h << 13;
            h ^= h >> 17;
            h ^= h << 5;
            let i = ((u64::from(h) * len) >> 32) as usize;
            // SAFETY: h < 2^32, so h * len / 2^32 < len <= data.len().
            acc += unsafe { data.get_unchecked(i) };
        }
    }
    let mut x = (node % 1024) as f64 * 1.0e-3;
    for _ in 0..compute_iters {
        x = gtap::math::mul_add(x, 0.999_999, 1.0e-6);
    }
    acc + x
}

/// Index of the `k`-th load of `node` in the block-level trees, in `0..len` (`len > 0`): a
/// hash of `(node, k)` rather than a chain, so each thread of a block computes its own loads.
#[inline(always)]
#[must_use]
pub fn block_load_index(node: u64, k: u32, len: u64) -> usize {
    // murmur3's 32-bit finalizer over the node's and the load's numbers, mapped onto `0..len`
    // by Lemire's multiply-shift (no division; see `tree_node_work`).
    let mut h =
        (node as u32).wrapping_mul(0x9e37_79b9) ^ (node >> 32) as u32 ^ k.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^= h >> 16;
    ((u64::from(h) * len) >> 32) as usize
}

/// Thread `t`'s share (of a block of `size`) of the block-level trees' per-node work: the loads
/// `k = t, t + size, ..` below `mem_ops`, at [`block_load_index`], summed in that order, plus a
/// multiply-add chain of as many steps as `t` has among `0..compute_iters` strided by `size`
/// (GTaP strides both over the block), started from the node's seed; `0.0` for the chain of a
/// thread without steps. The node's value is the block's [`gtap::block::sum_f64`] of these, so
/// it depends on `size` and the host reproduces it with `sum_f64_reference`.
#[must_use]
pub fn tree_block_partial(
    node: u64,
    mem_ops: u32,
    compute_iters: u32,
    data: Table<f64>,
    t: u32,
    size: u32,
) -> f64 {
    let len = data.len().min(u32::MAX as usize) as u64;
    let mut acc = 0.0f64;
    if len > 0 {
        let mut k = t;
        while k < mem_ops {
            let i = block_load_index(node, k, len);
            // SAFETY: `block_load_index` returns an index below len <= data.len().
            acc += unsafe { data.get_unchecked(i) };
            k += size;
        }
    }
    let steps = if t < compute_iters {
        (compute_iters - t).div_ceil(size)
    } else {
        0
    };
    if steps == 0 {
        return acc;
    }
    let mut x = (node % 1024) as f64 * 1.0e-3;
    for _ in 0..steps {
        x = gtap::math::mul_add(x, 0.999_999, 1.0e-6);
    }
    acc + x
}

/// Writes `count` elements of the merge of the sorted `x` and `y` into `out` from index
/// `i + j`, starting at `x[i]` and `y[j]` (a merge-path split point); ties take `x` first, as
/// [`merge`] does.
pub fn merge_part(x: Slice<u32>, y: Slice<u32>, out: Slice<u32>, i: usize, j: usize, count: usize) {
    let (mut i, mut j, mut k) = (i, j, i + j);
    let end = k + count;
    while k < end && i < x.len() && j < y.len() {
        let (a, b) = (x.get(i), y.get(j));
        if a <= b {
            out.set(k, a);
            i += 1;
        } else {
            out.set(k, b);
            j += 1;
        }
        k += 1;
    }
    if k < end && i < x.len() {
        out.copy_from(k, x, i, end - k);
    } else if k < end {
        out.copy_from(k, y, j, end - k);
    }
}

/// The merge-path split of output diagonal `d` (`d <= x.len() + y.len()`): the `i` such that
/// the first `d` elements of the merge of `x` and `y` are `x[..i]` and `y[..d - i]` (ties take
/// `x` first, as [`merge`] does).
#[must_use]
pub fn merge_path(x: Slice<u32>, y: Slice<u32>, d: usize) -> usize {
    let mut lo = d.saturating_sub(y.len());
    let mut hi = d.min(x.len());
    while lo < hi {
        let mid = lo + (hi - lo) / 2;
        // x[mid] goes before y[d - 1 - mid] when x[mid] <= y[d - 1 - mid]: then more of x
        // belongs to the first d.
        if x.get(mid) <= y.get(d - 1 - mid) {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

/// splitmix64's output function applied to `x + 0x9e37_79b9_7f4a_7c15`: the next output of a
/// splitmix64 generator whose state is `x` (a bijection on `u64`). `chain` and `uts` derive
/// their values with it.
///
/// Refs: Steele, Lea, Flood, "Fast splittable pseudorandom number generators", OOPSLA 2014;
/// the constants are Vigna's `splitmix64.c` (prng.di.unimi.it).
#[must_use]
pub fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}
