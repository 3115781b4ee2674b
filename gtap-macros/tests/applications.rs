//! Application programs as a new user writes them (quicksort over a raw pointer, a
//! divide-and-conquer matrix product, a scan, reductions, branch-and-bound searches, a grid DAG,
//! Mandelbrot tiles, Collatz and Ackermann, a tree stored in arrays), each on the CPU executor
//! against a plain sequential Rust twin with several (some randomized) inputs.

mod common;

use common::check;
use gtap::{program, Slice};

/// A small xorshift generator with a fixed seed (no dependency).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

fn cpu() -> gtap::Runtime {
    gtap::Runtime::cpu(gtap::Config {
        workers: 2,
        ..Default::default()
    })
    .expect("a CPU runtime")
}

// ---------------------------------------------------------------------------------------------
// 1. quicksort over an index range of a buffer passed as a raw pointer

/// A raw pointer to the keys; tasks sort disjoint ranges of it.
#[derive(Clone, Copy)]
pub struct Keys(*mut u32);
// SAFETY: tasks running at the same time touch disjoint index ranges.
unsafe impl Send for Keys {}
// SAFETY: as for `Send`.
unsafe impl Sync for Keys {}

/// Lomuto partition of `p[lo..hi]` around its last element; returns the pivot's index.
fn partition(p: *mut u32, lo: usize, hi: usize) -> usize {
    // SAFETY: `lo..hi` is in bounds and owned by the calling task.
    unsafe {
        let pivot = *p.add(hi - 1);
        let mut i = lo;
        for j in lo..hi - 1 {
            if *p.add(j) < pivot {
                core::ptr::swap(p.add(i), p.add(j));
                i += 1;
            }
        }
        core::ptr::swap(p.add(i), p.add(hi - 1));
        i
    }
}

fn insertion_sort(p: *mut u32, lo: usize, hi: usize) {
    for i in lo + 1..hi {
        let mut j = i;
        // SAFETY: as in `partition`.
        unsafe {
            while j > lo && *p.add(j - 1) > *p.add(j) {
                core::ptr::swap(p.add(j - 1), p.add(j));
                j -= 1;
            }
        }
    }
}

/// Sorts `keys[lo..hi]`; returns the number of partition steps.
#[gtap::function]
fn quicksort(keys: Keys, lo: usize, hi: usize, cutoff: usize) -> u64 {
    if hi - lo <= cutoff {
        insertion_sort(keys.0, lo, hi);
        return 0;
    }
    let mid = partition(keys.0, lo, hi);
    let mut steps = 1;
    if mid > lo + 1 {
        let l = task!(quicksort(keys, lo, mid, cutoff));
        taskwait!();
        steps += l;
    }
    if mid + 2 < hi {
        let r = task!(quicksort(keys, mid + 1, hi, cutoff));
        taskwait!();
        steps += r;
    }
    steps
}

/// The same with both sides spawned before one join, and the raw pointer itself as argument.
#[gtap::function]
fn quicksort2(ptr: *mut u32, lo: usize, hi: usize) {
    if hi <= lo + 1 {
        return;
    }
    let keys = Keys(ptr);
    let mid = partition(keys.0, lo, hi);
    task!(quicksort2(ptr, lo, mid));
    task!(quicksort2(ptr, mid + 1, hi));
    taskwait!();
}

fn seq_quicksort(p: *mut u32, lo: usize, hi: usize, cutoff: usize) -> u64 {
    if hi - lo <= cutoff {
        insertion_sort(p, lo, hi);
        return 0;
    }
    let mid = partition(p, lo, hi);
    let mut steps = 1;
    if mid > lo + 1 {
        steps += seq_quicksort(p, lo, mid, cutoff);
    }
    if mid + 2 < hi {
        steps += seq_quicksort(p, mid + 1, hi, cutoff);
    }
    steps
}

// ---------------------------------------------------------------------------------------------
// 2. divide-and-conquer matrix product on small square matrices (row-major, stride `ld`)

#[derive(Clone, Copy, Debug)]
pub struct Mat {
    data: Slice<i64>,
    off: usize,
    ld: usize,
}

impl Mat {
    fn at(self, i: usize, j: usize) -> i64 {
        self.data.get(self.off + i * self.ld + j)
    }
    fn add(self, i: usize, j: usize, v: i64) {
        let k = self.off + i * self.ld + j;
        self.data.set(k, self.data.get(k) + v);
    }
    fn quad(self, qi: usize, qj: usize, half: usize) -> Mat {
        Mat {
            off: self.off + qi * half * self.ld + qj * half,
            ..self
        }
    }
}

/// c += a * b for n x n blocks, n a power of two.
#[gtap::function]
fn matmul(c: Mat, a: Mat, b: Mat, n: usize) {
    if n <= 2 {
        for i in 0..n {
            for j in 0..n {
                let mut s = 0;
                for k in 0..n {
                    s += a.at(i, k) * b.at(k, j);
                }
                c.add(i, j, s);
            }
        }
        return;
    }
    let h = n / 2;
    // two phases: C_ij += A_i0 B_0j, then C_ij += A_i1 B_1j (no two tasks write one block)
    for phase in 0..2 {
        for i in 0..2 {
            for j in 0..2 {
                task!(matmul(
                    c.quad(i, j, h),
                    a.quad(i, phase, h),
                    b.quad(phase, j, h),
                    h
                ));
            }
        }
        taskwait!();
    }
}

fn seq_matmul(a: &[i64], b: &[i64], n: usize) -> Vec<i64> {
    let mut c = vec![0; n * n];
    for i in 0..n {
        for j in 0..n {
            for k in 0..n {
                c[i * n + j] += a[i * n + k] * b[k * n + j];
            }
        }
    }
    c
}

// ---------------------------------------------------------------------------------------------
// 3. parallel prefix sum: an up-sweep that returns each half's total, a down-sweep that adds
// the offset, joins between

/// Returns the sum of `x[lo..hi]` and stores each node's left-half sum in `left[mid]`.
#[gtap::function]
fn upsweep(x: Slice<u64>, left: Slice<u64>, lo: usize, hi: usize) -> u64 {
    if hi - lo == 1 {
        return x.get(lo);
    }
    let mid = (lo + hi) / 2;
    let l = task!(upsweep(x, left, lo, mid));
    let r = task!(upsweep(x, left, mid, hi));
    taskwait!();
    left.set(mid, l);
    l + r
}

/// Writes the inclusive prefix sums of `x[lo..hi]` plus `offset` into `out`.
#[gtap::function]
fn downsweep(x: Slice<u64>, left: Slice<u64>, out: Slice<u64>, lo: usize, hi: usize, offset: u64) {
    if hi - lo == 1 {
        out.set(lo, offset + x.get(lo));
        return;
    }
    let mid = (lo + hi) / 2;
    let lsum = left.get(mid);
    task!(downsweep(x, left, out, lo, mid, offset));
    task!(downsweep(x, left, out, mid, hi, offset + lsum));
    taskwait!();
}

/// Both sweeps in one task; returns the total.
#[gtap::function]
fn scan(x: Slice<u64>, left: Slice<u64>, out: Slice<u64>) -> u64 {
    let n = x.len();
    if n == 0 {
        return 0;
    }
    let total = task!(upsweep(x, left, 0, n));
    taskwait!();
    task!(downsweep(x, left, out, 0, n, 0));
    taskwait!();
    debug_assert_eq!(out.get(n - 1), total);
    total
}

// ---------------------------------------------------------------------------------------------
// 4. a tree reduction with a sequential cutoff: sum, min and max at once

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Stats {
    sum: u64,
    min: u32,
    max: u32,
    count: usize,
}

impl Stats {
    const EMPTY: Stats = Stats {
        sum: 0,
        min: u32::MAX,
        max: 0,
        count: 0,
    };
    fn merge(self, o: Stats) -> Stats {
        Stats {
            sum: self.sum + o.sum,
            min: self.min.min(o.min),
            max: self.max.max(o.max),
            count: self.count + o.count,
        }
    }
}

fn seq_stats(xs: &[u32]) -> Stats {
    xs.iter().fold(Stats::EMPTY, |s, &x| Stats {
        sum: s.sum + u64::from(x),
        min: s.min.min(x),
        max: s.max.max(x),
        count: s.count + 1,
    })
}

/// Splits into `ways` parts (2..=8) above the cutoff.
#[gtap::function]
fn reduce(xs: Slice<u32>, ways: usize, cutoff: usize) -> Stats {
    let n = xs.len();
    if n <= cutoff {
        let mut s = Stats::EMPTY;
        let mut i = 0;
        while i < n {
            let x = xs.get(i);
            s = Stats {
                sum: s.sum + u64::from(x),
                min: s.min.min(x),
                max: s.max.max(x),
                count: s.count + 1,
            };
            i += 1;
        }
        return s;
    }
    let mut parts = [Stats::EMPTY; 8];
    for k in 0..ways {
        let lo = k * n / ways;
        let hi = (k + 1) * n / ways;
        parts[k] = task!(reduce(xs.slice(lo, hi), ways, cutoff));
    }
    taskwait!();
    parts[..ways]
        .iter()
        .fold(Stats::EMPTY, |acc, &p| acc.merge(p))
}

/// The same with the results kept in locals and an early exit for an empty slice.
#[gtap::function]
fn reduce2(xs: Slice<u32>, cutoff: usize) -> Stats {
    let n = xs.len();
    if n == 0 {
        return Stats::EMPTY;
    }
    if n <= cutoff {
        let (a, b) = xs.split_at(n / 2);
        let mut s = Stats::EMPTY;
        for half in [a, b] {
            for i in 0..half.len() {
                let x = half.get(i);
                s = s.merge(Stats {
                    sum: u64::from(x),
                    min: x,
                    max: x,
                    count: 1,
                });
            }
        }
        return s;
    }
    let (a, b) = xs.split_at((n / 3).max(1));
    let left = task!(reduce2(a, cutoff));
    let right = task!(reduce2(b, cutoff));
    taskwait!();
    left.merge(right)
}

// ---------------------------------------------------------------------------------------------
// 5. 0/1 knapsack by branch and bound, subset-sum counting with pruning

#[derive(Clone, Copy)]
pub struct Items {
    weight: Slice<u32>,
    value: Slice<u32>,
}

/// The best value of items `i..` with `room` capacity left, given `value` so far; `best` is a
/// known lower bound to prune against (an upper bound below it returns 0).
#[gtap::function]
fn knapsack(items: Items, i: usize, room: u32, value: u64, best: u64) -> u64 {
    let n = items.weight.len();
    if i == n {
        return value;
    }
    // bound: everything that is left
    let mut bound = value;
    for k in i..n {
        bound += u64::from(items.value.get(k));
    }
    if bound <= best {
        return 0;
    }
    let w = items.weight.get(i);
    let without = task!(knapsack(items, i + 1, room, value, best));
    if w <= room {
        let with = task!(knapsack(
            items,
            i + 1,
            room - w,
            value + u64::from(items.value.get(i)),
            best
        ));
        taskwait!();
        return with.max(without);
    }
    taskwait!();
    without
}

fn seq_knapsack(w: &[u32], v: &[u32], i: usize, room: u32) -> u64 {
    if i == w.len() {
        return 0;
    }
    let mut best = seq_knapsack(w, v, i + 1, room);
    if w[i] <= room {
        best = best.max(u64::from(v[i]) + seq_knapsack(w, v, i + 1, room - w[i]));
    }
    best
}

/// The number of subsets of `xs[i..]` summing to `target`; prunes when `rest` (the sum of
/// `xs[i..]`) cannot reach it. Returns `None` past `limit` solutions.
#[gtap::function]
fn subset_count(xs: Slice<u16>, i: usize, target: u32, rest: u32, limit: u64) -> Option<u64> {
    if target == 0 {
        return Some(1);
    }
    if i == xs.len() || rest < target {
        return Some(0);
    }
    let x = u32::from(xs.get(i));
    let skip = task!(subset_count(xs, i + 1, target, rest - x, limit));
    let take = if x <= target {
        let t = task!(subset_count(xs, i + 1, target - x, rest - x, limit));
        taskwait!();
        t?
    } else {
        taskwait!();
        0
    };
    let total = skip? + take;
    if total > limit {
        None
    } else {
        Some(total)
    }
}

fn seq_subset_count(xs: &[u16], i: usize, target: u32, rest: u32, limit: u64) -> Option<u64> {
    if target == 0 {
        return Some(1);
    }
    if i == xs.len() || rest < target {
        return Some(0);
    }
    let x = u32::from(xs[i]);
    let skip = seq_subset_count(xs, i + 1, target, rest - x, limit);
    let take = if x <= target {
        seq_subset_count(xs, i + 1, target - x, rest - x, limit)?
    } else {
        0
    };
    let total = skip? + take;
    if total > limit {
        None
    } else {
        Some(total)
    }
}

// ---------------------------------------------------------------------------------------------
// 6. paths in a grid DAG (right/down moves, blocked cells), without memo

const BLOCKED: u8 = 1;

#[gtap::function]
fn grid_paths(grid: Slice<u8>, cols: usize, r: usize, c: usize) -> u64 {
    if grid.get(r * cols + c) == BLOCKED {
        return 0;
    }
    if r == 0 && c == 0 {
        return 1;
    }
    let mut total = 0u64;
    match (r, c) {
        (0, _) => {
            let p = task!(grid_paths(grid, cols, 0, c - 1));
            taskwait!();
            total += p;
        }
        (_, 0) => {
            let p = task!(grid_paths(grid, cols, r - 1, 0));
            taskwait!();
            total += p;
        }
        _ => {
            let up = task!(grid_paths(grid, cols, r - 1, c));
            let left = task!(grid_paths(grid, cols, r, c - 1));
            taskwait!();
            total = up + left;
        }
    }
    total
}

fn seq_grid_paths(grid: &[u8], cols: usize, r: usize, c: usize) -> u64 {
    if grid[r * cols + c] == BLOCKED {
        return 0;
    }
    if r == 0 && c == 0 {
        return 1;
    }
    let mut total = 0;
    if r > 0 {
        total += seq_grid_paths(grid, cols, r - 1, c);
    }
    if c > 0 {
        total += seq_grid_paths(grid, cols, r, c - 1);
    }
    total
}

// ---------------------------------------------------------------------------------------------
// 7. Mandelbrot: points inside the set per tile, tiles split in four down to a size

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    x0: f64,
    y0: f64,
    step: f64,
    max_iter: u32,
}

fn escapes(v: View, px: u32, py: u32) -> bool {
    let cx = v.x0 + f64::from(px) * v.step;
    let cy = v.y0 + f64::from(py) * v.step;
    let (mut x, mut y) = (0.0f64, 0.0f64);
    let mut k = 0;
    while k < v.max_iter {
        let xx = x * x - y * y + cx;
        y = 2.0 * x * y + cy;
        x = xx;
        if x * x + y * y > 4.0 {
            return true;
        }
        k += 1;
    }
    false
}

/// Points of the tile `[px, px + w) x [py, py + h)` inside the set; writes each leaf tile's count
/// into `counts` at its tile index (`tiles` per row of leaves of size `leaf`).
#[gtap::function]
fn mandel(
    v: View,
    px: u32,
    py: u32,
    w: u32,
    h: u32,
    leaf: u32,
    counts: Slice<u32>,
    tiles: u32,
) -> u64 {
    if w <= leaf && h <= leaf {
        let mut inside = 0u32;
        for y in py..py + h {
            for x in px..px + w {
                if !escapes(v, x, y) {
                    inside += 1;
                }
            }
        }
        counts.set(((py / leaf) * tiles + px / leaf) as usize, inside);
        return u64::from(inside);
    }
    let (hw, hh) = (w / 2, h / 2);
    let mut sum = 0;
    let quads = [(0, 0), (hw, 0), (0, hh), (hw, hh)];
    let mut got = [0u64; 4];
    for (q, &(dx, dy)) in quads.iter().enumerate() {
        got[q] = task!(mandel(v, px + dx, py + dy, hw, hh, leaf, counts, tiles));
    }
    taskwait!();
    for g in got {
        sum += g;
    }
    sum
}

// ---------------------------------------------------------------------------------------------
// 8. Collatz lengths over a range (the longest and its start), Ackermann with u64

fn collatz_len(mut n: u64) -> u32 {
    let mut len = 1;
    while n != 1 {
        n = if n.is_multiple_of(2) {
            n / 2
        } else {
            3 * n + 1
        };
        len += 1;
    }
    len
}

/// `(length, start)` of the longest sequence starting in `lo..hi` (the smallest start on ties).
#[gtap::function]
fn collatz_max(lo: u64, hi: u64) -> (u32, u64) {
    if hi - lo <= 64 {
        let mut best = (0, 0);
        for s in lo..hi {
            let l = collatz_len(s);
            if l > best.0 {
                best = (l, s);
            }
        }
        return best;
    }
    let mid = lo + (hi - lo) / 2;
    let a = task!(collatz_max(lo, mid));
    let b = task!(collatz_max(mid, hi));
    taskwait!();
    if b.0 > a.0 {
        b
    } else {
        a
    }
}

/// Ackermann's function, the inner call spawned and joined before the outer one.
#[gtap::function]
fn ackermann(m: u64, n: u64) -> u64 {
    match (m, n) {
        (0, n) => n + 1,
        (m, 0) => {
            let r = task!(ackermann(m - 1, 1));
            taskwait!();
            r
        }
        (m, n) => {
            let inner = task!(ackermann(m, n - 1));
            taskwait!();
            let outer = task!(ackermann(m - 1, inner));
            taskwait!();
            outer
        }
    }
}

fn seq_ackermann(m: u64, n: u64) -> u64 {
    match (m, n) {
        (0, n) => n + 1,
        (m, 0) => seq_ackermann(m - 1, 1),
        (m, n) => seq_ackermann(m - 1, seq_ackermann(m, n - 1)),
    }
}

// ---------------------------------------------------------------------------------------------
// 9. a binary tree stored in arrays (left/right child indices, NONE sentinel)

const NONE: u32 = u32::MAX;

#[derive(Clone, Copy)]
pub struct Tree {
    left: Slice<u32>,
    right: Slice<u32>,
    value: Slice<i64>,
}

/// `(sum, height)` of the subtree at `node`.
#[gtap::function]
fn tree_sum(t: Tree, node: u32) -> (i64, u32) {
    if node == NONE {
        return (0, 0);
    }
    let i = node as usize;
    let (l, r) = (t.left.get(i), t.right.get(i));
    let mut sum = t.value.get(i);
    let mut height = 0;
    if l != NONE {
        let ls = task!(tree_sum(t, l));
        if r != NONE {
            let rs = task!(tree_sum(t, r));
            taskwait!();
            sum += ls.0 + rs.0;
            height = ls.1.max(rs.1);
        } else {
            taskwait!();
            sum += ls.0;
            height = ls.1;
        }
    } else if r != NONE {
        let rs = task!(tree_sum(t, r));
        taskwait!();
        let (s, h) = rs;
        sum += s;
        height = h;
    }
    (sum, height + 1)
}

/// The same, children found by `Option` and `if let`; returns the count of nodes with a
/// negative value.
#[gtap::function]
fn tree_neg(t: Tree, node: u32) -> u32 {
    let child = |k: u32| if k == NONE { None } else { Some(k) };
    let i = node as usize;
    let mut count = u32::from(t.value.get(i) < 0);
    let mut pending = [0u32; 2];
    if let Some(l) = child(t.left.get(i)) {
        pending[0] = task!(tree_neg(t, l));
    }
    if let Some(r) = child(t.right.get(i)) {
        pending[1] = task!(tree_neg(t, r));
    }
    taskwait!();
    count += pending[0] + pending[1];
    count
}

fn seq_tree_sum(l: &[u32], r: &[u32], v: &[i64], node: u32) -> (i64, u32) {
    if node == NONE {
        return (0, 0);
    }
    let i = node as usize;
    let (ls, lh) = seq_tree_sum(l, r, v, l[i]);
    let (rs, rh) = seq_tree_sum(l, r, v, r[i]);
    (v[i] + ls + rs, lh.max(rh) + 1)
}

/// A random binary tree of `n` nodes: node 0 is the root, each later node hangs off a free
/// child slot of a random earlier node.
fn random_tree(rng: &mut Rng, n: usize) -> (Vec<u32>, Vec<u32>, Vec<i64>) {
    let mut l = vec![NONE; n];
    let mut r = vec![NONE; n];
    let v: Vec<i64> = (0..n).map(|_| rng.below(2001) as i64 - 1000).collect();
    for k in 1..n {
        loop {
            let p = rng.below(k as u64) as usize;
            let slot = if rng.next().is_multiple_of(2) {
                &mut l
            } else {
                &mut r
            };
            if slot[p] == NONE {
                slot[p] = k as u32;
                break;
            }
        }
    }
    (l, r, v)
}

program!(
    Apps = [
        quicksort,
        quicksort2,
        matmul,
        upsweep,
        downsweep,
        scan,
        reduce,
        reduce2,
        knapsack,
        subset_count,
        grid_paths,
        mandel,
        collatz_max,
        ackermann,
        tree_sum,
        tree_neg
    ]
);

// ---------------------------------------------------------------------------------------------
// the tests

#[test]
fn quicksort_over_a_raw_pointer() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for (n, cutoff) in [
        (0usize, 4usize),
        (1, 4),
        (2, 1),
        (17, 4),
        (300, 8),
        (2000, 16),
    ] {
        let keys: Vec<u32> = (0..n).map(|_| rng.below(500) as u32).collect();
        let mut want = keys.clone();
        let want_steps = if n == 0 {
            0
        } else {
            seq_quicksort(want.as_mut_ptr(), 0, n, cutoff)
        };
        assert!(want.windows(2).all(|w| w[0] <= w[1]));
        let mut got = keys.clone();
        if n > 0 {
            check::<Apps, _>(
                quicksort,
                (Keys(got.as_mut_ptr()), 0, n, cutoff),
                want_steps,
            );
        }
        assert_eq!(got, want, "quicksort n={n}");
        let mut got2 = keys.clone();
        gtap::Runtime::cpu(gtap::Config::default())
            .expect("a CPU runtime")
            .run::<Apps, _>(quicksort2, (got2.as_mut_ptr(), 0, n))
            .expect("runs");
        assert_eq!(got2, want, "quicksort2 n={n}");
    }
}

#[test]
fn matrix_product_divide_and_conquer() {
    let mut rng = Rng(12345);
    for n in [1usize, 2, 4, 8, 16] {
        let a: Vec<i64> = (0..n * n).map(|_| rng.below(21) as i64 - 10).collect();
        let b: Vec<i64> = (0..n * n).map(|_| rng.below(21) as i64 - 10).collect();
        let mut rt = cpu();
        let (ab, bb) = (rt.upload(&a).expect("up"), rt.upload(&b).expect("up"));
        let cb = rt.alloc_zeroed::<i64>(n * n).expect("alloc");
        let m = |s: Slice<i64>| Mat {
            data: s,
            off: 0,
            ld: n,
        };
        rt.run::<Apps, _>(matmul, (m(cb.slice()), m(ab.slice()), m(bb.slice()), n))
            .expect("runs");
        assert_eq!(
            rt.download(&cb).expect("down"),
            seq_matmul(&a, &b, n),
            "n={n}"
        );
    }
}

#[test]
fn prefix_sum_up_and_down_sweep() {
    let mut rng = Rng(777);
    for n in [0usize, 1, 2, 3, 7, 8, 100, 1000] {
        let x: Vec<u64> = (0..n).map(|_| rng.below(1000)).collect();
        let want: Vec<u64> = x
            .iter()
            .scan(0, |s, &v| {
                *s += v;
                Some(*s)
            })
            .collect();
        let mut rt = cpu();
        let xb = rt.upload(&x).expect("up");
        let lb = rt.alloc_zeroed::<u64>(n.max(1)).expect("alloc");
        let ob = rt.alloc_zeroed::<u64>(n).expect("alloc");
        let total = rt
            .run::<Apps, _>(scan, (xb.slice(), lb.slice(), ob.slice()))
            .expect("runs");
        assert_eq!(total, x.iter().sum::<u64>(), "total n={n}");
        assert_eq!(rt.download(&ob).expect("down"), want, "scan n={n}");
    }
}

#[test]
fn tree_reduction_with_cutoff() {
    let mut rng = Rng(4242);
    for n in [0usize, 1, 5, 64, 1000, 5000] {
        let xs: Vec<u32> = (0..n).map(|_| rng.next() as u32).collect();
        let want = seq_stats(&xs);
        let mut rt = cpu();
        let b = rt.upload(&xs).expect("up");
        for (ways, cutoff) in [(2usize, 1usize), (3, 7), (8, 50), (5, 10_000)] {
            let got = rt
                .run::<Apps, _>(reduce, (b.slice(), ways, cutoff))
                .expect("runs");
            assert_eq!(got, want, "reduce n={n} ways={ways} cutoff={cutoff}");
        }
        for cutoff in [1usize, 2, 33] {
            let got = rt
                .run::<Apps, _>(reduce2, (b.slice(), cutoff))
                .expect("runs");
            assert_eq!(got, want, "reduce2 n={n} cutoff={cutoff}");
        }
    }
}

#[test]
fn knapsack_and_subset_sum() {
    let mut rng = Rng(99);
    for n in [0usize, 1, 5, 12] {
        let w: Vec<u32> = (0..n).map(|_| 1 + rng.below(20) as u32).collect();
        let v: Vec<u32> = (0..n).map(|_| rng.below(50) as u32).collect();
        let mut rt = cpu();
        let (wb, vb) = (rt.upload(&w).expect("up"), rt.upload(&v).expect("up"));
        let items = Items {
            weight: wb.slice(),
            value: vb.slice(),
        };
        for room in [0u32, 10, 40, 1000] {
            let got = rt
                .run::<Apps, _>(knapsack, (items, 0, room, 0, 0))
                .expect("runs");
            assert_eq!(
                got,
                seq_knapsack(&w, &v, 0, room),
                "knapsack n={n} room={room}"
            );
        }
        let xs: Vec<u16> = (0..n + 4).map(|_| 1 + rng.below(9) as u16).collect();
        let rest: u32 = xs.iter().map(|&x| u32::from(x)).sum();
        let xb = rt.upload(&xs).expect("up");
        for target in [0u32, 5, 17, rest / 2, rest, rest + 1] {
            for limit in [3u64, u64::MAX] {
                let got = rt
                    .run::<Apps, _>(subset_count, (xb.slice(), 0, target, rest, limit))
                    .expect("runs");
                let want = seq_subset_count(&xs, 0, target, rest, limit);
                assert_eq!(got, want, "subset n={n} target={target} limit={limit}");
            }
        }
    }
}

#[test]
fn grid_dag_paths() {
    let mut rng = Rng(31337);
    for (rows, cols, density) in [
        (1usize, 1usize, 0u64),
        (1, 6, 0),
        (5, 1, 0),
        (4, 4, 0),
        (6, 7, 5),
        (8, 8, 4),
    ] {
        let mut grid: Vec<u8> = (0..rows * cols)
            .map(|_| u8::from(density > 0 && rng.below(density) == 0))
            .collect();
        grid[0] = 0;
        let mut rt = cpu();
        let gb = rt.upload(&grid).expect("up");
        for (r, c) in [(rows - 1, cols - 1), (rows / 2, cols / 2), (0, cols - 1)] {
            let got = rt
                .run::<Apps, _>(grid_paths, (gb.slice(), cols, r, c))
                .expect("runs");
            assert_eq!(
                got,
                seq_grid_paths(&grid, cols, r, c),
                "{rows}x{cols} at ({r},{c})"
            );
        }
    }
}

#[test]
fn mandelbrot_tiles() {
    for (size, leaf, max_iter) in [(8u32, 8u32, 20u32), (16, 4, 50), (32, 8, 100), (64, 4, 30)] {
        let v = View {
            x0: -2.0,
            y0: -1.25,
            step: 2.5 / f64::from(size),
            max_iter,
        };
        let tiles = size / leaf;
        let mut want_counts = vec![0u32; (tiles * tiles) as usize];
        let mut want = 0u64;
        for y in 0..size {
            for x in 0..size {
                if !escapes(v, x, y) {
                    want += 1;
                    want_counts[((y / leaf) * tiles + x / leaf) as usize] += 1;
                }
            }
        }
        let mut rt = cpu();
        let cb = rt
            .alloc_zeroed::<u32>((tiles * tiles) as usize)
            .expect("alloc");
        let got = rt
            .run::<Apps, _>(mandel, (v, 0, 0, size, size, leaf, cb.slice(), tiles))
            .expect("runs");
        assert_eq!(got, want, "mandel size={size} leaf={leaf}");
        assert_eq!(
            rt.download(&cb).expect("down"),
            want_counts,
            "tiles size={size}"
        );
    }
}

#[test]
fn collatz_and_ackermann() {
    for (lo, hi) in [(1u64, 2u64), (1, 100), (1, 10_000), (77_000, 78_000)] {
        let mut want = (0, 0);
        for s in lo..hi {
            let l = collatz_len(s);
            if l > want.0 {
                want = (l, s);
            }
        }
        check::<Apps, _>(collatz_max, (lo, hi), want);
    }
    for (m, n) in [(0u64, 0u64), (0, 5), (1, 3), (2, 3), (2, 10), (3, 3)] {
        check::<Apps, _>(ackermann, (m, n), seq_ackermann(m, n));
    }
}

#[test]
fn binary_tree_in_arrays() {
    let mut rng = Rng(2024);
    for n in [1usize, 2, 3, 10, 200, 3000] {
        let (l, r, v) = random_tree(&mut rng, n);
        let mut rt = cpu();
        let (lb, rb, vb) = (
            rt.upload(&l).expect("up"),
            rt.upload(&r).expect("up"),
            rt.upload(&v).expect("up"),
        );
        let t = Tree {
            left: lb.slice(),
            right: rb.slice(),
            value: vb.slice(),
        };
        let got = rt.run::<Apps, _>(tree_sum, (t, 0)).expect("runs");
        assert_eq!(got, seq_tree_sum(&l, &r, &v, 0), "tree_sum n={n}");
        let got = rt.run::<Apps, _>(tree_sum, (t, NONE)).expect("runs");
        assert_eq!(got, (0, 0));
        let neg = v.iter().filter(|&&x| x < 0).count() as u32;
        assert_eq!(
            rt.run::<Apps, _>(tree_neg, (t, 0)).expect("runs"),
            neg,
            "tree_neg n={n}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// second batch: the same applications written in other styles

/// Quicksort that loops on the right part and spawns the left ones, one join at the end.
#[gtap::function]
fn qs_loop(keys: Keys, lo: usize, hi: usize) {
    let mut lo = lo;
    while hi - lo > 8 {
        let mid = partition(keys.0, lo, hi);
        task!(qs_loop(keys, lo, mid));
        lo = mid + 1;
    }
    insertion_sort(keys.0, lo, hi);
    taskwait!();
}

/// 4x4 matrix product by value: one task per row, the rows kept in an array.
#[gtap::function]
fn mat_row(a: [[i32; 4]; 4], b: [[i32; 4]; 4], i: usize) -> [i32; 4] {
    let mut row = [0; 4];
    for (j, cell) in row.iter_mut().enumerate() {
        *cell = (0..4).map(|k| a[i][k] * b[k][j]).sum();
    }
    row
}

#[gtap::function]
fn mat4(a: [[i32; 4]; 4], b: [[i32; 4]; 4]) -> [[i32; 4]; 4] {
    let mut c = [[0; 4]; 4];
    for i in 0..4 {
        c[i] = task!(mat_row(a, b, i));
    }
    taskwait!();
    c
}

/// Branch and bound with a shared best value in a `Slice<u32>` (atomic max), items sorted by
/// value density; returns the number of nodes visited.
#[gtap::function]
fn knap_shared(
    w: Slice<u32>,
    v: Slice<u32>,
    best: Slice<u32>,
    i: usize,
    room: u32,
    value: u32,
) -> u64 {
    best.atomic_max(0, value);
    if i == w.len() {
        return 1;
    }
    // fractional bound
    let mut bound = value;
    let mut cap = room;
    let mut k = i;
    while k < w.len() && w.get(k) <= cap {
        cap -= w.get(k);
        bound += v.get(k);
        k += 1;
    }
    if k < w.len() {
        bound += v.get(k) * cap / w.get(k);
    }
    if bound <= best.atomic_load(0) {
        return 1;
    }
    let mut visited = 1;
    let mut with = 0;
    if w.get(i) <= room {
        with = task!(knap_shared(
            w,
            v,
            best,
            i + 1,
            room - w.get(i),
            value + v.get(i)
        ));
    }
    let without = task!(knap_shared(w, v, best, i + 1, room, value));
    taskwait!();
    visited += with + without;
    visited
}

/// The first node (preorder) whose value is `target`, searched left before right.
#[gtap::function]
fn tree_find(t: Tree, node: u32, target: i64) -> Option<u32> {
    if node == NONE {
        return None;
    }
    let i = node as usize;
    if t.value.get(i) == target {
        return Some(node);
    }
    let l = task!(tree_find(t, t.left.get(i), target));
    let r = task!(tree_find(t, t.right.get(i), target));
    taskwait!();
    if let Some(found) = l {
        return Some(found);
    }
    r
}

fn seq_tree_find(l: &[u32], r: &[u32], v: &[i64], node: u32, target: i64) -> Option<u32> {
    if node == NONE {
        return None;
    }
    let i = node as usize;
    if v[i] == target {
        return Some(node);
    }
    seq_tree_find(l, r, v, l[i], target).or_else(|| seq_tree_find(l, r, v, r[i], target))
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Op {
    Sum,
    Max,
    Xor { mask: u64 },
}

/// A reduction chosen by an enum argument; the leaves are joined in batches of four.
#[gtap::function]
fn batched(op: Op, lo: u64, hi: u64) -> u64 {
    if hi - lo <= 4 {
        let mut acc = 0;
        for x in lo..hi {
            acc = match op {
                Op::Sum => acc + x * x,
                Op::Max => acc.max(x.wrapping_mul(2_654_435_761) % 1000),
                Op::Xor { mask } => acc ^ (x & mask),
            };
        }
        return acc;
    }
    let step = (hi - lo).div_ceil(10);
    let mut acc = 0u64;
    let mut batch = [0u64; 4];
    let mut filled = 0;
    let mut x = lo;
    while x < hi {
        let end = (x + step).min(hi);
        batch[filled] = task!(batched(op, x, end));
        filled += 1;
        x = end;
        if filled == 4 || x == hi {
            taskwait!();
            for b in &batch[..filled] {
                acc = match op {
                    Op::Sum => acc + b,
                    Op::Max => acc.max(*b),
                    Op::Xor { .. } => acc ^ b,
                };
            }
            filled = 0;
        }
    }
    // the macro cannot tell that the last iteration joined (`x == hi`): a join with nothing
    // pending says so
    taskwait!();
    acc
}

fn seq_batched(op: Op, lo: u64, hi: u64) -> u64 {
    let mut acc = 0;
    for x in lo..hi {
        acc = match op {
            Op::Sum => acc + x * x,
            Op::Max => acc.max(x.wrapping_mul(2_654_435_761) % 1000),
            Op::Xor { mask } => acc ^ (x & mask),
        };
    }
    acc
}

/// Ways to climb `n` stairs with steps of 1, 2 or 3, as u128, the parameter shadowed.
#[gtap::function]
fn stairs(n: u32) -> u128 {
    let n = n.min(18);
    match n {
        0 | 1 => 1,
        2 => 2,
        _ => {
            let a = task!(stairs(n - 1));
            let b = task!(stairs(n - 2));
            let c = task!(stairs(n - 3));
            taskwait!();
            a + b + c
        }
    }
}

fn seq_stairs(n: u32) -> u128 {
    let mut w = [1u128, 1, 2];
    if n < 3 {
        return w[n as usize];
    }
    for _ in 3..=n {
        w = [w[1], w[2], w[0] + w[1] + w[2]];
    }
    w[2]
}

/// A float reduction (the twin uses the same tree, so the rounding is the same).
#[gtap::function]
fn fsum(xs: Slice<f32>) -> (f32, f32) {
    let n = xs.len();
    if n <= 3 {
        let mut s = (0.0, 0.0);
        for i in 0..n {
            let x = xs.get(i);
            s.0 += x;
            s.1 += x * x;
        }
        return s;
    }
    let (a, b) = xs.split_at(n / 2);
    let l = task!(fsum(a));
    let r = task!(fsum(b));
    taskwait!();
    (l.0 + r.0, l.1 + r.1)
}

fn seq_fsum(xs: &[f32]) -> (f32, f32) {
    if xs.len() <= 3 {
        let mut s = (0.0, 0.0);
        for &x in xs {
            s.0 += x;
            s.1 += x * x;
        }
        return s;
    }
    let (a, b) = xs.split_at(xs.len() / 2);
    let (l, r) = (seq_fsum(a), seq_fsum(b));
    (l.0 + r.0, l.1 + r.1)
}

program!(
    Apps2 = [
        qs_loop,
        mat_row,
        mat4,
        knap_shared,
        tree_find,
        batched,
        stairs,
        fsum
    ]
);

#[test]
fn second_batch() {
    let mut rng = Rng(5150);
    for n in [0usize, 1, 9, 100, 3000] {
        let keys: Vec<u32> = (0..n).map(|_| rng.below(1000) as u32).collect();
        let mut want = keys.clone();
        want.sort_unstable();
        let mut got = keys.clone();
        gtap::run::<Apps2, _>(qs_loop, (Keys(got.as_mut_ptr()), 0, n)).expect("runs");
        assert_eq!(got, want, "qs_loop n={n}");
    }
    for _ in 0..5 {
        let mut m = || {
            let mut x = [[0i32; 4]; 4];
            for row in &mut x {
                for c in row.iter_mut() {
                    *c = rng.below(19) as i32 - 9;
                }
            }
            x
        };
        let (a, b) = (m(), m());
        let flat = |x: [[i32; 4]; 4]| {
            x.iter()
                .flatten()
                .map(|&v| i64::from(v))
                .collect::<Vec<_>>()
        };
        let want = seq_matmul(&flat(a), &flat(b), 4);
        let got = gtap::run::<Apps2, _>(mat4, (a, b)).expect("runs");
        assert_eq!(flat(got), want);
    }
    for n in [0usize, 1, 6, 14] {
        let mut items: Vec<(u32, u32)> = (0..n)
            .map(|_| (1 + rng.below(15) as u32, rng.below(40) as u32))
            .collect();
        // by value density, highest first
        items.sort_by(|x, y| {
            (u64::from(y.1) * u64::from(x.0)).cmp(&(u64::from(x.1) * u64::from(y.0)))
        });
        let w: Vec<u32> = items.iter().map(|x| x.0).collect();
        let v: Vec<u32> = items.iter().map(|x| x.1).collect();
        for room in [0u32, 7, 30, 200] {
            let mut rt = cpu();
            let (wb, vb) = (rt.upload(&w).expect("up"), rt.upload(&v).expect("up"));
            let bb = rt.alloc_zeroed::<u32>(1).expect("alloc");
            let visited = rt
                .run::<Apps2, _>(
                    knap_shared,
                    (wb.slice(), vb.slice(), bb.slice(), 0, room, 0),
                )
                .expect("runs");
            assert!(visited >= 1);
            let best = rt.download(&bb).expect("down")[0];
            assert_eq!(
                u64::from(best),
                seq_knapsack(&w, &v, 0, room),
                "knap_shared n={n} room={room}"
            );
        }
    }
    for n in [1usize, 5, 300] {
        let (l, r, v) = random_tree(&mut rng, n);
        let mut rt = cpu();
        let (lb, rb, vb) = (
            rt.upload(&l).expect("up"),
            rt.upload(&r).expect("up"),
            rt.upload(&v).expect("up"),
        );
        let t = Tree {
            left: lb.slice(),
            right: rb.slice(),
            value: vb.slice(),
        };
        for target in [v[0], v[n / 2], v[n - 1], 5000, -3] {
            let got = rt.run::<Apps2, _>(tree_find, (t, 0, target)).expect("runs");
            assert_eq!(
                got,
                seq_tree_find(&l, &r, &v, 0, target),
                "tree_find n={n} {target}"
            );
        }
    }
    for op in [Op::Sum, Op::Max, Op::Xor { mask: 0xf0f }] {
        for (lo, hi) in [(0u64, 0u64), (3, 5), (0, 17), (10, 1000), (0, 12_345)] {
            check::<Apps2, _>(batched, (op, lo, hi), seq_batched(op, lo, hi));
        }
    }
    for n in [0u32, 1, 2, 3, 10, 17, 45] {
        check::<Apps2, _>(stairs, (n,), seq_stairs(n.min(18)));
    }
    for n in [0usize, 1, 4, 50, 999] {
        let xs: Vec<f32> = (0..n).map(|_| rng.below(1000) as f32 / 7.0).collect();
        let mut rt = cpu();
        let b = rt.upload(&xs).expect("up");
        let got = rt.run::<Apps2, _>(fsum, (b.slice(),)).expect("runs");
        assert_eq!(got, seq_fsum(&xs), "fsum n={n}");
    }
}

// ---------------------------------------------------------------------------------------------
// third batch: children from an array of indices, a tuple parameter, `&&` of results, `break`
// with a value after a join, a nested `fn` item, an early return between spawns

#[gtap::function]
fn kids_sum(l: Slice<u32>, r: Slice<u32>, node: u32) -> u64 {
    let i = node as usize;
    let mut res = [0u64; 2];
    let mut k = 0;
    for c in [l.get(i), r.get(i)] {
        if c != NONE {
            res[k] = task!(kids_sum(l, r, c));
            k += 1;
        }
    }
    taskwait!();
    1 + res[0] + res[1]
}

#[gtap::function]
fn pat_param(range: (u64, u64), mut depth: u32) -> u64 {
    let (lo, hi) = range;
    if hi - lo <= 2 || depth == 0 {
        return (lo..hi).sum();
    }
    depth -= 1;
    let mid = (lo + hi) / 2;
    let a = task!(pat_param((lo, mid), depth));
    let b = task!(pat_param((mid, hi), depth));
    taskwait!();
    a + b
}

#[gtap::function]
fn all_even(lo: u64, hi: u64) -> bool {
    if hi - lo == 1 {
        return lo % 2 == 0 || lo > 1000;
    }
    let mid = (lo + hi) / 2;
    let a = task!(all_even(lo, mid));
    let b = task!(all_even(mid, hi));
    taskwait!();
    a && b
}

#[gtap::function]
fn loop_break(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let mut k = 0;
    let found = loop {
        let v = task!(loop_break(n / 2 - k.min(n / 2)));
        taskwait!();
        if v % 3 == 0 || k > 3 {
            break v + k;
        }
        k += 1;
    };
    found + 1
}

fn seq_loop_break(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let mut k = 0;
    let found = loop {
        let v = seq_loop_break(n / 2 - k.min(n / 2));
        if v.is_multiple_of(3) || k > 3 {
            break v + k;
        }
        k += 1;
    };
    found + 1
}

#[gtap::function]
fn nested_helper(n: u32) -> u32 {
    fn leaf(n: u32) -> u32 {
        n * 2 + 1
    }
    if n < 3 {
        return leaf(n);
    }
    let a = task!(nested_helper(n - 1));
    let b = task!(nested_helper(n - 2));
    taskwait!();
    let n = a.max(b);
    leaf(n) % 1000
}

fn seq_nested_helper(n: u32) -> u32 {
    fn leaf(n: u32) -> u32 {
        n * 2 + 1
    }
    if n < 3 {
        return leaf(n);
    }
    let a = seq_nested_helper(n - 1);
    let b = seq_nested_helper(n - 2);
    leaf(a.max(b)) % 1000
}

#[gtap::function]
fn early(n: u64) -> u64 {
    if n < 2 {
        return 1;
    }
    let a = task!(early(n - 1));
    if n % 5 == 0 {
        taskwait!();
        return a * 2;
    }
    let b = task!(early(n - 2));
    taskwait!();
    match a.checked_add(b) {
        Some(s) if s % 7 == 0 => s / 7,
        Some(s) => s,
        None => 0,
    }
}

fn seq_early(n: u64) -> u64 {
    if n < 2 {
        return 1;
    }
    let a = seq_early(n - 1);
    if n.is_multiple_of(5) {
        return a * 2;
    }
    let b = seq_early(n - 2);
    match a.checked_add(b) {
        Some(s) if s % 7 == 0 => s / 7,
        Some(s) => s,
        None => 0,
    }
}

program!(
    Apps3 = [
        kids_sum,
        pat_param,
        all_even,
        loop_break,
        nested_helper,
        early
    ]
);

#[test]
fn third_batch_small_shapes() {
    // a complete tree of 7 nodes
    let l = vec![1u32, 3, 5, NONE, NONE, NONE, NONE];
    let r = vec![2u32, 4, 6, NONE, NONE, NONE, NONE];
    let mut rt = gtap::Runtime::cpu(gtap::Config::default()).unwrap();
    let (lb, rb) = (rt.upload(&l).unwrap(), rt.upload(&r).unwrap());
    assert_eq!(
        rt.run::<Apps3, _>(kids_sum, (lb.slice(), rb.slice(), 0))
            .unwrap(),
        7
    );
    for (lo, hi, d) in [(0u64, 10u64, 3u32), (5, 100, 10), (0, 1, 0)] {
        assert_eq!(
            gtap::run::<Apps3, _>(pat_param, ((lo, hi), d)).unwrap(),
            (lo..hi).sum::<u64>()
        );
    }
    for (lo, hi) in [(0u64, 1u64), (0, 8), (1002, 1010), (998, 1010)] {
        let want = (lo..hi).all(|x| x % 2 == 0 || x > 1000);
        assert_eq!(gtap::run::<Apps3, _>(all_even, (lo, hi)).unwrap(), want);
    }
    for n in [0u64, 1, 2, 5, 17, 100, 1000] {
        assert_eq!(
            gtap::run::<Apps3, _>(loop_break, (n,)).unwrap(),
            seq_loop_break(n),
            "{n}"
        );
        assert_eq!(
            gtap::run::<Apps3, _>(early, (n.min(25),)).unwrap(),
            seq_early(n.min(25)),
            "{n}"
        );
    }
    for n in [0u32, 2, 3, 10, 15] {
        assert_eq!(
            gtap::run::<Apps3, _>(nested_helper, (n,)).unwrap(),
            seq_nested_helper(n)
        );
    }
}

// ---------------------------------------------------------------------------------------------
// fourth batch: one result local assigned in every `match` arm, a local work stack with joins in
// batches of four, a `Result` over an enum argument with `?` on both results

#[gtap::function]
fn arms(n: u64) -> u64 {
    if n < 3 {
        return n + 1;
    }
    let r;
    match n % 3 {
        0 => r = task!(arms(n - 1)),
        1 => r = task!(arms(n - 2)),
        _ => r = task!(arms(n - 3)),
    }
    taskwait!();
    let r = r * 2 % 1_000_003;
    let b = task!(arms(n / 2));
    taskwait!();
    (r + b) % 1_000_003
}

fn seq_arms(n: u64) -> u64 {
    if n < 3 {
        return n + 1;
    }
    let r = match n % 3 {
        0 => seq_arms(n - 1),
        1 => seq_arms(n - 2),
        _ => seq_arms(n - 3),
    };
    let r = r * 2 % 1_000_003;
    (r + seq_arms(n / 2)) % 1_000_003
}

#[gtap::function]
fn worklist(lo: u32, hi: u32) -> u64 {
    // ranges above 8 are split by a local stack; pieces of 8 or less become tasks
    let mut stack = [(0u32, 0u32); 16];
    let mut top = 1;
    stack[0] = (lo, hi);
    let mut res = [0u64; 4];
    let mut nres = 0;
    let mut total = 0u64;
    while top > 0 {
        top -= 1;
        let (a, b) = stack[top];
        if b - a > 8 && top + 2 <= stack.len() {
            let m = a + (b - a) / 2;
            stack[top] = (a, m);
            stack[top + 1] = (m, b);
            top += 2;
        } else if b - a > 1 {
            res[nres] = task!(worklist(a, a + (b - a) / 2));
            nres += 1;
            if nres == 4 {
                taskwait!();
                total += res.iter().sum::<u64>();
                nres = 0;
            }
            stack[top] = (a + (b - a) / 2, b);
            top += 1;
        } else if b > a {
            total += u64::from(a) * u64::from(a);
        }
    }
    taskwait!();
    total + res[..nres].iter().sum::<u64>()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shape {
    Leaf(u32),
    Pair { l: u32, r: u32 },
}

#[gtap::function]
fn shape(s: Shape, depth: u32) -> Result<u64, u32> {
    match s {
        Shape::Leaf(v) if v > 1000 => Err(v),
        Shape::Leaf(v) => Ok(u64::from(v)),
        Shape::Pair { l, r } => {
            if depth == 0 {
                return Ok(u64::from(l + r));
            }
            let a = task!(shape(Shape::Leaf(l), depth - 1));
            let b = task!(shape(Shape::Pair { l: r, r: l / 2 }, depth - 1));
            taskwait!();
            let sum = a? + b?;
            Ok(sum)
        }
    }
}

fn seq_shape(s: Shape, depth: u32) -> Result<u64, u32> {
    match s {
        Shape::Leaf(v) if v > 1000 => Err(v),
        Shape::Leaf(v) => Ok(u64::from(v)),
        Shape::Pair { l, r } => {
            if depth == 0 {
                return Ok(u64::from(l + r));
            }
            let a = seq_shape(Shape::Leaf(l), depth - 1);
            let b = seq_shape(Shape::Pair { l: r, r: l / 2 }, depth - 1);
            Ok(a? + b?)
        }
    }
}

program!(Apps4 = [arms, worklist, shape]);

#[test]
fn fourth_batch_worklist_and_results() {
    for n in [0u64, 3, 4, 5, 20, 33] {
        assert_eq!(
            gtap::run::<Apps4, _>(arms, (n,)).unwrap(),
            seq_arms(n),
            "{n}"
        );
    }
    for (lo, hi) in [(0u32, 0u32), (0, 1), (0, 9), (3, 100), (0, 5000)] {
        let want: u64 = (lo..hi).map(|x| u64::from(x) * u64::from(x)).sum();
        assert_eq!(
            gtap::run::<Apps4, _>(worklist, (lo, hi)).unwrap(),
            want,
            "{lo}..{hi}"
        );
    }
    for s in [
        Shape::Leaf(3),
        Shape::Leaf(2000),
        Shape::Pair { l: 5, r: 9 },
        Shape::Pair { l: 2000, r: 1 },
        Shape::Pair { l: 1, r: 1500 },
    ] {
        for d in [0u32, 1, 3, 6] {
            assert_eq!(
                gtap::run::<Apps4, _>(shape, (s, d)).unwrap(),
                seq_shape(s, d),
                "{s:?} {d}"
            );
        }
    }
}
