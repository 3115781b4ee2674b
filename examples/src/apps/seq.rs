//! Sequential kernels the task functions call below their cutoffs (ordinary functions, usable
//! on both backends and by the host references).

use gtap::Slice;

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
#[must_use]
pub fn nqueens_count(n: u32, row: u32, cols: u32, diag1: u32, diag2: u32) -> u64 {
    if row == n {
        return 1;
    }
    let all = (1u32 << n) - 1;
    // An explicit stack of (cols, d1, d2, free) per row: at most 32 rows.
    let mut stack = [(0u32, 0u32, 0u32, 0u32); 32];
    let mut depth = 0usize;
    stack[0] = (cols, diag1, diag2, all & !(cols | diag1 | diag2));
    let rows_left = (n - row) as usize;
    let mut count = 0u64;
    loop {
        let (c, d1, d2, free) = stack[depth];
        if free == 0 {
            if depth == 0 {
                return count;
            }
            depth -= 1;
            continue;
        }
        let bit = free & free.wrapping_neg();
        stack[depth].3 = free ^ bit;
        if depth + 1 == rows_left {
            count += 1;
            continue;
        }
        let (nc, nd1, nd2) = (c | bit, ((d1 | bit) << 1) & all, (d2 | bit) >> 1);
        depth += 1;
        stack[depth] = (nc, nd1, nd2, all & !(nc | nd1 | nd2));
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

/// Merges the sorted `x` and `y` into `out` (`out.len() == x.len() + y.len()`).
pub fn merge(x: Slice<u32>, y: Slice<u32>, out: Slice<u32>) {
    let (mut i, mut j, mut k) = (0, 0, 0);
    while i < x.len() && j < y.len() {
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
    out.copy_from(k, x, i, x.len() - i);
    k += x.len() - i;
    out.copy_from(k, y, j, y.len() - j);
}

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
pub fn tree_node_work(node: u64, mem_ops: u32, compute_iters: u32, data: Slice<f64>) -> f64 {
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
