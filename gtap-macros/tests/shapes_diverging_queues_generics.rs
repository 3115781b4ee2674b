//! Task functions in the shapes users write (see `shapes_arguments_and_loops.rs`, `shapes_patterns_closures_errors.rs`,
//! `shapes_searches_and_nested_results.rs`), each on the CPU executor against a plain Rust twin.

mod common;

use common::check;
use gtap::program;

#[gtap::function]
fn sq(x: u64) -> u64 {
    x.wrapping_mul(x)
}

// ---------------------------------------------------------------------------------------------
// a join before a diverging call that is not one of the panic macros

#[gtap::function]
fn abort_arm(n: u64) -> u64 {
    let v;
    match n {
        0..=100 => v = n + 1,
        _ => {
            let r = task!(sq(n));
            taskwait!();
            if r == 7 {
                return r;
            }
            std::process::abort();
        }
    }
    let w = task!(sq(v));
    taskwait!();
    w + v
}

#[gtap::function]
fn exit_arm(n: u64) -> u64 {
    let v: u64;
    if n < 50 {
        v = n * 3;
    } else {
        let r = task!(sq(n));
        taskwait!();
        if r != 0 {
            std::process::exit(3)
        }
        core::panic!("zero");
    }
    let w = task!(sq(v));
    taskwait!();
    w
}

#[gtap::function]
fn loop_arm(n: u64) -> u64 {
    let v;
    match n % 4 {
        0 | 1 | 2 => v = n,
        _ => {
            let r = task!(sq(n));
            taskwait!();
            if r > 1 {
                return r;
            }
            #[allow(clippy::empty_loop)]
            loop {}
        }
    }
    let w = task!(sq(v));
    taskwait!();
    w
}

#[gtap::function]
fn block_return(n: u64) -> u64 {
    let v;
    if n % 2 == 0 {
        v = n;
    } else {
        let r = task!(sq(n));
        taskwait!();
        {
            return r + 1;
        }
    }
    let w = task!(sq(v));
    taskwait!();
    w
}

#[gtap::function]
fn let_return(n: u64) -> u64 {
    let v;
    if n % 2 == 0 {
        v = n;
    } else {
        let r = task!(sq(n));
        taskwait!();
        let _z: u64 = { return r + 2 };
    }
    let w = task!(sq(v));
    taskwait!();
    w
}

#[gtap::function]
fn tail_abort(n: u64) -> u64 {
    let v = match n {
        0..=100 => n,
        _ => {
            let r = task!(sq(n));
            taskwait!();
            if r > 0 {
                return r;
            }
            std::process::abort()
        }
    };
    let w = task!(sq(v));
    taskwait!();
    w
}

/// The user's own `process::exit`, which returns: the code after it must run.
mod process {
    pub fn exit(code: u64) -> u64 {
        code + 1
    }
}

#[gtap::function]
fn own_exit(n: u64, out: gtap::Slice<u64>) {
    let r = task!(sq(n));
    taskwait!();
    process::exit(r);
    out.set(0, r + 1);
}

program!(
    R4a = [
        sq,
        abort_arm,
        exit_arm,
        loop_arm,
        block_return,
        let_return,
        tail_abort,
        own_exit
    ]
);

#[test]
fn joins_before_diverging_calls() {
    for n in [0u64, 3, 4, 7, 100, 101, 1000] {
        if n <= 100 {
            check::<R4a, _>(abort_arm, (n,), (n + 1) * (n + 1) + n + 1);
            check::<R4a, _>(tail_abort, (n,), n * n);
        } else {
            check::<R4a, _>(tail_abort, (n,), n * n);
        }
        if n < 50 {
            check::<R4a, _>(exit_arm, (n,), 9 * n * n);
        }
        // n % 4 == 3 takes the arm with the join, which returns before its `loop {}`
        check::<R4a, _>(loop_arm, (n,), n * n);
        let b = if n % 2 == 0 { n * n } else { n * n + 1 };
        check::<R4a, _>(block_return, (n,), b);
        let l = if n % 2 == 0 { n * n } else { n * n + 2 };
        check::<R4a, _>(let_return, (n,), l);
        let mut rt = gtap::Runtime::cpu(gtap::Config::default()).expect("a CPU runtime");
        let out = rt.alloc_zeroed::<u64>(1).expect("a buffer");
        rt.run::<R4a, _>(own_exit, (n, out.slice())).expect("runs");
        assert_eq!(
            rt.download(&out).expect("download"),
            [n * n + 1],
            "own_exit({n})"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// `queue = expr` hints with non-trivial expressions, on a runtime with several queues

fn check_queues<P: gtap::Program, T: gtap::TaskFn>(f: T, args: T::Args, want: T::Output)
where
    T::Output: PartialEq + std::fmt::Debug,
{
    let config = gtap::Config {
        queues: 3,
        workers: 2,
        ..Default::default()
    };
    let got = gtap::Runtime::cpu(config)
        .expect("a CPU runtime")
        .run::<P, T>(f, args)
        .expect("runs on the CPU executor");
    assert_eq!(got, want, "{}", T::NAME);
}

const fn level_queue(depth: u32) -> u32 {
    if depth > 4 {
        2
    } else {
        depth % 2
    }
}

#[gtap::function]
fn qtree(depth: u32, lo: u64) -> u64 {
    if depth == 0 {
        return lo;
    }
    let hint = [0u32, 1, 2];
    let a = task!(queue = level_queue(depth), qtree(depth - 1, lo * 2));
    let b = task!(
        queue = hint[(lo % 3) as usize],
        qtree(depth - 1, lo * 2 + 1)
    );
    let q = if lo % 2 == 0 { 1u32 } else { 2 };
    taskwait!(
        queue = {
            let k = q + depth;
            k % 3
        }
    );
    let c = task!(queue = (a + b) % 3, qtree(depth / 2, lo));
    taskwait!(queue = (a % 3) as u32);
    a + b + c * q as u64
}

fn seq_qtree(depth: u32, lo: u64) -> u64 {
    if depth == 0 {
        return lo;
    }
    let q = if lo.is_multiple_of(2) { 1u64 } else { 2 };
    let a = seq_qtree(depth - 1, lo * 2);
    let b = seq_qtree(depth - 1, lo * 2 + 1);
    let c = seq_qtree(depth / 2, lo);
    a + b + c * q
}

/// `?` in the queue hint of a spawn and of a join.
#[gtap::function]
fn qtry(n: u64, qs: [Option<u32>; 4]) -> Option<u64> {
    if n == 0 {
        return Some(1);
    }
    let a = task!(queue = qs[(n % 4) as usize]?, qtry(n - 1, qs));
    taskwait!(queue = qs[(n % 4) as usize].map_or(0, |q| q % 2));
    if n % 3 == 0 {
        // no child pending: a `?` in the join's hint returns before it
        taskwait!(queue = qs[((n + 1) % 4) as usize]?);
    }
    Some(a? + n)
}

fn seq_qtry(n: u64, qs: [Option<u32>; 4]) -> Option<u64> {
    if n == 0 {
        return Some(1);
    }
    qs[(n % 4) as usize]?;
    let a = seq_qtry(n - 1, qs);
    if n.is_multiple_of(3) {
        qs[((n + 1) % 4) as usize]?;
    }
    Some(a? + n)
}

program!(R4q = [qtree, qtry]);

#[test]
fn queue_hints_with_expressions() {
    for d in [0u32, 1, 3, 6] {
        for lo in [0u64, 5] {
            check_queues::<R4q, _>(qtree, (d, lo), seq_qtree(d, lo));
        }
    }
    for qs in [
        [Some(0), Some(1), Some(2), Some(1)],
        [Some(0), None, Some(2), Some(1)],
    ] {
        for n in [0u64, 1, 2, 5] {
            check_queues::<R4q, _>(qtry, (n, qs), seq_qtry(n, qs));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// generic task functions over a user trait, spawning each other; const generics over an array
// argument; three-way mutual recursion; unit tasks spawned detached beside joined ones

pub trait Weigh: Copy + 'static {
    const UNIT: u64;
    fn weight(self) -> u64;
    fn split(self) -> (Self, Self);
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Seg {
    lo: u32,
    hi: u32,
}

impl Weigh for Seg {
    const UNIT: u64 = 1;
    fn weight(self) -> u64 {
        u64::from(self.hi - self.lo)
    }
    fn split(self) -> (Self, Self) {
        let mid = self.lo + (self.hi - self.lo) / 2;
        (
            Seg {
                lo: self.lo,
                hi: mid,
            },
            Seg {
                lo: mid,
                hi: self.hi,
            },
        )
    }
}

impl Weigh for u16 {
    const UNIT: u64 = 3;
    fn weight(self) -> u64 {
        u64::from(self)
    }
    fn split(self) -> (Self, Self) {
        (self / 2, self - self / 2)
    }
}

#[gtap::function]
fn gweigh<W: Weigh>(w: W, cutoff: u64) -> u64 {
    if w.weight() <= cutoff {
        return w.weight() * W::UNIT;
    }
    let (l, r) = w.split();
    let a = task!(gweigh::<W>(l, cutoff));
    let b = task!(gsplit::<W>(r, cutoff));
    taskwait!();
    a + b
}

#[gtap::function]
fn gsplit<W>(w: W, cutoff: u64) -> u64
where
    W: Weigh,
{
    let (l, r) = w.split();
    let mut parts = [0u64; 2];
    parts[0] = task!(gweigh::<W>(l, cutoff));
    parts[1] = task!(gweigh::<W>(r, cutoff));
    taskwait!();
    parts[0] + parts[1] + u64::from(w.weight() > cutoff)
}

fn seq_gweigh<W: Weigh>(w: W, cutoff: u64) -> u64 {
    if w.weight() <= cutoff {
        return w.weight() * W::UNIT;
    }
    let (l, r) = w.split();
    seq_gweigh(l, cutoff) + seq_gsplit(r, cutoff)
}

fn seq_gsplit<W: Weigh>(w: W, cutoff: u64) -> u64 {
    let (l, r) = w.split();
    seq_gweigh(l, cutoff) + seq_gweigh(r, cutoff) + u64::from(w.weight() > cutoff)
}

#[gtap::function]
fn csum<const N: usize>(xs: [u32; N], lo: usize, hi: usize) -> u64 {
    if hi - lo <= 2 {
        return xs[lo..hi].iter().map(|&x| u64::from(x)).sum();
    }
    let mid = lo + (hi - lo) / 2;
    let l = task!(csum::<N>(xs, lo, mid));
    let r = task!(csum::<N>(xs, mid, hi));
    taskwait!();
    l + r
}

#[gtap::function]
fn tri_a(n: u32) -> u64 {
    if n == 0 {
        return 1;
    }
    let x = task!(tri_b(n - 1));
    let y = task!(tri_c(n / 2));
    taskwait!();
    x + 2 * y
}

#[gtap::function]
fn tri_b(n: u32) -> u64 {
    if n < 2 {
        return u64::from(n) + 5;
    }
    let x = task!(tri_c(n - 1));
    taskwait!();
    let y = task!(tri_a(n - 2));
    taskwait!();
    x ^ y
}

#[gtap::function]
fn tri_c(n: u32) -> u64 {
    match n {
        0 => 7,
        1 | 2 => {
            let x = task!(tri_a(n - 1));
            taskwait!();
            x * 3
        }
        _ => {
            let x = task!(tri_b(n - 2));
            let y = task!(tri_a(n / 3));
            taskwait!();
            x.wrapping_mul(y) % 1_000_003
        }
    }
}

fn seq_tri_a(n: u32) -> u64 {
    if n == 0 {
        return 1;
    }
    seq_tri_b(n - 1) + 2 * seq_tri_c(n / 2)
}

fn seq_tri_b(n: u32) -> u64 {
    if n < 2 {
        return u64::from(n) + 5;
    }
    seq_tri_c(n - 1) ^ seq_tri_a(n - 2)
}

fn seq_tri_c(n: u32) -> u64 {
    match n {
        0 => 7,
        1 | 2 => seq_tri_a(n - 1) * 3,
        _ => seq_tri_b(n - 2).wrapping_mul(seq_tri_a(n / 3)) % 1_000_003,
    }
}

/// A unit task: adds `v` into `out[i]`, recursing detached.
#[gtap::function]
fn mark(out: gtap::Slice<u64>, i: u32, v: u64, depth: u32) {
    if depth == 0 {
        out.atomic_add(i as usize, v);
        return;
    }
    task!(mark(out, i, v, depth - 1));
    task!(mark(out, (i + depth) % 8, 1, 0));
}

/// Detached unit spawns beside joined ones: the join waits for every child, so the marks
/// are all in `out` after it.
#[gtap::function]
fn marks(out: gtap::Slice<u64>, n: u32) -> u64 {
    let mut total = 0;
    for i in 0..n {
        task!(mark(out, i % 8, u64::from(i), i % 3));
        let s = task!(tri_a(i % 5));
        if i % 2 == 0 {
            task!(mark(out, 7, 100, 0));
        }
        taskwait!();
        total += s;
    }
    let u = task!(mark(out, 0, 1000, 2));
    taskwait!();
    let () = u;
    let mut seen = 0;
    for k in 0..8 {
        seen += out.get(k);
    }
    total * 1_000_000 + seen
}

fn seq_mark(out: &mut [u64; 8], i: u32, v: u64, depth: u32) {
    if depth == 0 {
        out[i as usize] += v;
        return;
    }
    seq_mark(out, i, v, depth - 1);
    seq_mark(out, (i + depth) % 8, 1, 0);
}

fn seq_marks(n: u32) -> u64 {
    let mut out = [0u64; 8];
    let mut total = 0;
    for i in 0..n {
        seq_mark(&mut out, i % 8, u64::from(i), i % 3);
        total += seq_tri_a(i % 5);
        if i % 2 == 0 {
            seq_mark(&mut out, 7, 100, 0);
        }
    }
    seq_mark(&mut out, 0, 1000, 2);
    total * 1_000_000 + out.iter().sum::<u64>()
}

program!(
    R4g = [
        gweigh::<Seg>,
        gsplit::<Seg>,
        gweigh::<u16>,
        gsplit::<u16>,
        csum::<5>,
        csum::<16>,
        tri_a,
        tri_b,
        tri_c,
        mark,
        marks
    ]
);

#[test]
fn generics_mutual_recursion_and_detached_units() {
    for (lo, hi, cut) in [(0u32, 1u32, 1u64), (3, 40, 4), (0, 100, 7), (10, 11, 1)] {
        let s = Seg { lo, hi };
        check::<R4g, _>(gweigh::<Seg>, (s, cut), seq_gweigh(s, cut));
        check::<R4g, _>(gsplit::<Seg>, (s, cut), seq_gsplit(s, cut));
    }
    for (w, cut) in [(1u16, 1u64), (77, 5), (1000, 30)] {
        check::<R4g, _>(gweigh::<u16>, (w, cut), seq_gweigh(w, cut));
    }
    let xs5 = [4u32, 8, 15, 16, 23];
    check::<R4g, _>(csum::<5>, (xs5, 0, 5), 66);
    check::<R4g, _>(csum::<5>, (xs5, 1, 4), 39);
    let mut xs16 = [0u32; 16];
    for (i, x) in xs16.iter_mut().enumerate() {
        *x = (i as u32).wrapping_mul(2_654_435_761) >> 7;
    }
    let want: u64 = xs16.iter().map(|&x| u64::from(x)).sum();
    check::<R4g, _>(csum::<16>, (xs16, 0, 16), want);
    for n in [0u32, 1, 2, 3, 9, 14] {
        check::<R4g, _>(tri_a, (n,), seq_tri_a(n));
        check::<R4g, _>(tri_b, (n,), seq_tri_b(n));
        check::<R4g, _>(tri_c, (n,), seq_tri_c(n));
    }
    for n in [0u32, 1, 5, 12] {
        let mut rt = gtap::Runtime::cpu(gtap::Config::default()).expect("a CPU runtime");
        let out = rt.alloc_zeroed::<u64>(8).expect("a buffer");
        let got = rt.run::<R4g, _>(marks, (out.slice(), n)).expect("runs");
        assert_eq!(got, seq_marks(n), "marks({n})");
    }
}

// ---------------------------------------------------------------------------------------------
// block-level functions as users write them (on the CPU executor, a block of one thread):
// loops with collectives and joins, uniform early exits, leader-guarded spawns, `?`

use gtap::block;

#[gtap::function(block)]
fn bsum(xs: gtap::Slice<u64>, lo: u32, hi: u32) -> u64 {
    let (t, size) = (block::thread_index(), block::size());
    if hi - lo <= 16 {
        let mut acc = 0;
        let mut i = lo + t;
        while i < hi {
            acc += xs.get(i as usize);
            i += size;
        }
        return block::sum_u64(acc);
    }
    let mid = lo + (hi - lo) / 2;
    let (mut a, mut b) = (0, 0);
    if block::is_leader() {
        a = task!(bsum(xs, lo, mid));
        b = task!(bsum(xs, mid, hi));
    }
    taskwait!();
    block::broadcast(a + b)
}

/// Rounds of a block-wide computation: a collective decides (uniformly) whether to stop, the
/// leader spawns the next piece, every thread joins.
#[gtap::function(block)]
fn brounds(xs: gtap::Slice<u64>, n: u32, rounds: u32) -> u64 {
    let t = block::thread_index();
    let size = block::size();
    let mut acc = 0u64;
    let mut round = 0;
    while round < rounds {
        let mut local = 0u64;
        let mut i = t;
        while i < n {
            local = local.wrapping_add(xs.get(i as usize) >> round);
            i += size;
        }
        let total = block::sum_u64(local);
        if total == 0 {
            break;
        }
        let mut part = 0;
        if t == 0 {
            part = task!(bsum(xs, 0, n.min(round * 7 + 1)));
        }
        taskwait!();
        // the shadowing binding is uniform, whatever the leader-only `part` (before: rejected,
        // locals were tracked by name)
        let part = block::broadcast(part);
        if part.is_multiple_of(5) {
            round += 1;
            continue;
        }
        acc = acc.wrapping_add(total ^ part);
        let most = block::max_u32(t);
        acc += u64::from(most + block::count(t < 4));
        round += 1;
    }
    let Some(k) = acc.checked_sub(3) else {
        return 0;
    };
    block::sync();
    if t != 0 {
        return 0; // only thread 0's value is the result; no barrier follows
    }
    k
}

fn seq_bsum(xs: &[u64], lo: u32, hi: u32) -> u64 {
    xs[lo as usize..hi as usize].iter().sum()
}

fn seq_brounds(xs: &[u64], n: u32, rounds: u32) -> u64 {
    let mut acc = 0u64;
    let mut round = 0;
    while round < rounds {
        let total = xs[..n as usize]
            .iter()
            .fold(0u64, |s, &x| s.wrapping_add(x >> round));
        if total == 0 {
            break;
        }
        let part = seq_bsum(xs, 0, n.min(round * 7 + 1));
        if part.is_multiple_of(5) {
            round += 1;
            continue;
        }
        acc = acc.wrapping_add(total ^ part);
        acc += 1;
        round += 1;
    }
    acc.saturating_sub(3)
}

/// `?` in a block-level task on a uniform value, a `for` over a range with a join and a
/// collective, a `match` on a uniform value with joins in its arms.
#[gtap::function(block)]
fn bpick(xs: gtap::Slice<u64>, n: u32, sel: Option<u32>) -> Option<u64> {
    let s = sel?;
    let mut best = 0u64;
    for r in 0..s.min(4) {
        let mut got = 0;
        if block::is_leader() {
            got = task!(bsum(xs, 0, (n / (r + 1)).max(1)));
        }
        taskwait!();
        best = best.max(block::broadcast(got));
    }
    let extra = match s % 3 {
        0 => {
            let mut v = 0;
            if block::is_leader() {
                v = task!(bsum(xs, n / 2, n));
            }
            taskwait!();
            block::broadcast(v)
        }
        1 => return Some(best + 1),
        _ => block::sum_u64(u64::from(block::thread_index() == 0)),
    };
    Some(best + extra)
}

fn seq_bpick(xs: &[u64], n: u32, sel: Option<u32>) -> Option<u64> {
    let s = sel?;
    let mut best = 0u64;
    for r in 0..s.min(4) {
        best = best.max(seq_bsum(xs, 0, (n / (r + 1)).max(1)));
    }
    let extra = match s % 3 {
        0 => seq_bsum(xs, n / 2, n),
        1 => return Some(best + 1),
        _ => 1,
    };
    Some(best + extra)
}

/// A grid-stride loop that runs while `any` thread has work, a leader spawn per round whose
/// result is shared by a shadowing `let r = broadcast(r)`, a collective in a closure, `let ..
/// else` and a late thread-dependent `return`.
#[gtap::function(block)]
fn bstride(xs: gtap::Slice<u64>, n: u32) -> u64 {
    let t = block::thread_index();
    let size = block::size();
    let mut i = t;
    let mut acc = 0u64;
    while block::any(i < n) {
        let v = if i < n { xs.get(i as usize) } else { 0 };
        let s = block::sum_u64(v);
        let mut r = 0;
        if block::is_leader() && s % 2 == 1 {
            r = task!(bsq(s));
        }
        taskwait!();
        let r = block::broadcast(r);
        acc = acc.wrapping_add(s + r);
        i += size;
    }
    let red = |v: u64| block::sum_u64(v);
    let total = red(acc);
    if total == 0 {
        return 0;
    }
    let Some(k) = total.checked_mul(2) else {
        return 1;
    };
    let last = task!(bsq(k % 1000));
    taskwait!();
    if t > 0 {
        return 0;
    }
    last + k
}

fn seq_bstride(xs: &[u64], n: u32) -> u64 {
    let mut acc = 0u64;
    for i in 0..n {
        let s = xs[i as usize];
        let r = if s % 2 == 1 { s * s } else { 0 };
        acc = acc.wrapping_add(s + r);
    }
    if acc == 0 {
        return 0;
    }
    let k = acc * 2;
    (k % 1000) * (k % 1000) + k
}

#[gtap::function]
fn bsq(x: u64) -> u64 {
    x.wrapping_mul(x)
}

program!(R4b = [bsum, brounds, bpick, bstride, bsq]);

#[test]
fn block_level_loops_collectives_and_early_exits() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for n in [1u32, 17, 64, 200] {
        let xs: Vec<u64> = (0..n)
            .map(|_| {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed % 1000
            })
            .collect();
        let mut rt = gtap::Runtime::cpu(gtap::Config::default()).expect("a CPU runtime");
        let buf = rt.upload(&xs).expect("upload");
        let got = rt.run::<R4b, _>(bsum, (buf.slice(), 0, n)).expect("runs");
        assert_eq!(got, seq_bsum(&xs, 0, n), "bsum({n})");
        for rounds in [0u32, 1, 5, 9] {
            let got = rt
                .run::<R4b, _>(brounds, (buf.slice(), n, rounds))
                .expect("runs");
            assert_eq!(got, seq_brounds(&xs, n, rounds), "brounds({n}, {rounds})");
        }
        let got = rt.run::<R4b, _>(bstride, (buf.slice(), n)).expect("runs");
        assert_eq!(got, seq_bstride(&xs, n), "bstride({n})");
        for sel in [None, Some(0), Some(1), Some(2), Some(3), Some(7)] {
            let got = rt
                .run::<R4b, _>(bpick, (buf.slice(), n, sel))
                .expect("runs");
            assert_eq!(got, seq_bpick(&xs, n, sel), "bpick({n}, {sel:?})");
        }
    }
}

// ---------------------------------------------------------------------------------------------
// large arrays as arguments and results: the frame is over the default 256 bytes, so the
// function raises `max_frame_bytes` and the runtime `Config::task_data_limit`

#[gtap::function(max_frame_bytes = 2048)]
fn big_rev(xs: [u64; 64], lo: usize, hi: usize) -> [u64; 40] {
    let mut out = [0u64; 40];
    if hi - lo <= 8 {
        for i in lo..hi {
            out[i % 40] = out[i % 40].wrapping_add(xs[hi - 1 - (i - lo)] ^ i as u64);
        }
        return out;
    }
    let mid = lo + (hi - lo) / 2;
    let a = task!(big_rev(xs, lo, mid));
    let b = task!(big_rev(xs, mid, hi));
    taskwait!();
    for i in 0..40 {
        out[i] = a[i].wrapping_add(b[i]).rotate_left(1);
    }
    out
}

fn seq_big_rev(xs: [u64; 64], lo: usize, hi: usize) -> [u64; 40] {
    let mut out = [0u64; 40];
    if hi - lo <= 8 {
        for i in lo..hi {
            out[i % 40] = out[i % 40].wrapping_add(xs[hi - 1 - (i - lo)] ^ i as u64);
        }
        return out;
    }
    let mid = lo + (hi - lo) / 2;
    let a = seq_big_rev(xs, lo, mid);
    let b = seq_big_rev(xs, mid, hi);
    for i in 0..40 {
        out[i] = a[i].wrapping_add(b[i]).rotate_left(1);
    }
    out
}

program!(R4f = [big_rev]);

#[test]
fn large_array_arguments_and_results() {
    let mut xs = [0u64; 64];
    for (i, x) in xs.iter_mut().enumerate() {
        *x = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    }
    let config = gtap::Config {
        task_data_limit: 2048,
        ..Default::default()
    };
    let mut rt = gtap::Runtime::cpu(config).expect("a CPU runtime");
    for (lo, hi) in [(0usize, 64usize), (3, 9), (5, 50)] {
        let got = rt.run::<R4f, _>(big_rev, (xs, lo, hi)).expect("runs");
        assert_eq!(got, seq_big_rev(xs, lo, hi), "big_rev({lo}, {hi})");
    }
    // The default limit: the runtime's error names the knob.
    let err = gtap::run::<R4f, _>(big_rev, (xs, 0, 64)).expect_err("over the default limit");
    let msg = err.to_string();
    assert!(msg.contains("Config::task_data_limit"), "{msg}");
}
