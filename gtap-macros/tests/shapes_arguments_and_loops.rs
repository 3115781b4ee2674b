//! Programs in the shapes users write beyond the one-construct cases of `constructs.rs`:
//! struct and array arguments and results, mutual recursion, loops with several joins per
//! iteration and early exits, values given on some paths and results on others, helper items,
//! closures, enums with data, `let .. else`, wide and `u128` arguments, `where` clauses,
//! consts and macros in a task's body. Each runs on the CPU executor (`gtap::run`) and is
//! compared with a plain Rust version of the same computation.

mod common;

use common::check;
use gtap::{program, Slice};

#[derive(Clone, Copy, Default, PartialEq, Debug)]
pub struct V3 {
    x: f64,
    y: f64,
    z: f64,
}

#[gtap::function]
fn vsum(lo: u32, hi: u32) -> V3 {
    if hi - lo == 1 {
        let f = lo as f64;
        return V3 {
            x: f,
            y: 2.0 * f,
            z: -f,
        };
    }
    let mid = (lo + hi) / 2;
    let a = task!(vsum(lo, mid));
    let b = task!(vsum(mid, hi));
    taskwait!();
    V3 {
        x: a.x + b.x,
        y: a.y + b.y,
        z: a.z + b.z,
    }
}
program!(VSum = [vsum]);

#[test]
fn struct_results() {
    let n = 37u32;
    let s: f64 = (0..n).map(|i| i as f64).sum();
    check::<VSum, _>(
        vsum,
        (0, n),
        V3 {
            x: s,
            y: 2.0 * s,
            z: -s,
        },
    );
}

#[gtap::function]
fn arr_task(a: [u32; 4], depth: u8) -> [u32; 4] {
    if depth == 0 {
        return [a[3], a[2], a[1], a[0]];
    }
    let r = task!(arr_task([a[0] + 1, a[1], a[2], a[3]], depth - 1));
    taskwait!();
    let mut out = r;
    out[0] ^= depth as u32;
    out
}
program!(Arr = [arr_task]);

fn seq_arr(a: [u32; 4], depth: u8) -> [u32; 4] {
    if depth == 0 {
        return [a[3], a[2], a[1], a[0]];
    }
    let mut out = seq_arr([a[0] + 1, a[1], a[2], a[3]], depth - 1);
    out[0] ^= depth as u32;
    out
}

#[test]
fn array_args_and_results() {
    for d in [0u8, 1, 5, 9] {
        check::<Arr, _>(arr_task, ([1, 2, 3, 4], d), seq_arr([1, 2, 3, 4], d));
    }
}

// mutual recursion, bool and i64 and char args
#[gtap::function]
fn even(n: i64, tag: char) -> bool {
    if n == 0 {
        return tag == 'e';
    }
    let r = task!(odd(n - 1, tag));
    taskwait!();
    r
}
#[gtap::function]
fn odd(n: i64, tag: char) -> bool {
    if n == 0 {
        return tag != 'e';
    }
    let r = task!(even(n - 1, tag));
    taskwait!();
    r
}
program!(EvenOdd = [even, odd]);

#[test]
fn mutual_recursion() {
    for n in [0i64, 1, 10, 33] {
        check::<EvenOdd, _>(even, (n, 'e'), n % 2 == 0);
    }
}

// a loop with several joins per iteration, early return after a join, continue, shadowing
#[gtap::function]
fn sq(x: u64) -> u64 {
    x * x
}

#[gtap::function]
fn multi_join(n: u64) -> u64 {
    let mut acc = 0u64;
    let mut i = 0u64;
    loop {
        if i >= n {
            break;
        }
        i += 1;
        if i % 3 == 0 {
            continue;
        }
        let a = task!(sq(i));
        taskwait!();
        let a = a + 1;
        let b = task!(sq(a));
        let c = task!(sq(i + 2));
        taskwait!();
        acc = acc.wrapping_add(b ^ c);
        if acc > 1_000_000 {
            return acc;
        }
    }
    acc
}
program!(MultiJoin = [multi_join, sq]);

fn seq_multi_join(n: u64) -> u64 {
    let mut acc = 0u64;
    let mut i = 0u64;
    loop {
        if i >= n {
            break;
        }
        i += 1;
        if i.is_multiple_of(3) {
            continue;
        }
        let a = i * i + 1;
        let b = a * a;
        let c = (i + 2) * (i + 2);
        acc = acc.wrapping_add(b ^ c);
        if acc > 1_000_000 {
            return acc;
        }
    }
    acc
}

#[test]
fn loops_with_several_joins() {
    for n in [0u64, 1, 2, 5, 9, 40] {
        check::<MultiJoin, _>(multi_join, (n,), seq_multi_join(n));
    }
}

// a result on some paths and a value on others, if-let, match with guards around joins, a
// block expression with a join
#[gtap::function]
fn deferred(x: u64, o: Option<u64>) -> u64 {
    let mut v: u64 = 0;
    if let Some(k) = o {
        v = task!(sq(k));
    } else {
        v = 5;
    }
    taskwait!();
    let w = {
        let t = task!(sq(v % 7));
        taskwait!();
        t + 1
    };
    match x {
        0 => w,
        n if n % 2 == 0 => {
            let r = task!(sq(n));
            taskwait!();
            r + w
        }
        _ => w * 2,
    }
}
/// Declared without a value, and given a task's result on every path.
#[gtap::function]
fn every_path(o: Option<u64>) -> u64 {
    let v: u64;
    match o {
        Some(k) => v = task!(sq(k)),
        None => v = task!(sq(3)),
    }
    taskwait!();
    v + 1
}
program!(Deferred = [deferred, every_path, sq]);

fn seq_deferred(x: u64, o: Option<u64>) -> u64 {
    let v = match o {
        Some(k) => k * k,
        None => 5,
    };
    let w = (v % 7) * (v % 7) + 1;
    match x {
        0 => w,
        n if n % 2 == 0 => n * n + w,
        _ => w * 2,
    }
}

#[test]
fn deferred_init_and_guards() {
    for x in [0u64, 1, 4, 7] {
        for o in [None, Some(3u64), Some(10)] {
            check::<Deferred, _>(deferred, (x, o), seq_deferred(x, o));
        }
    }
    for o in [None, Some(5u64)] {
        check::<Deferred, _>(every_path, (o,), o.unwrap_or(3).pow(2) + 1);
    }
}

// helper fn and const inside the body, macros, unsafe block, for with step_by/rev
#[gtap::function]
fn misc(n: u32) -> u64 {
    const K: u64 = 3;
    fn helper(a: u64) -> u64 {
        a.rotate_left(7) ^ K
    }
    debug_assert!(n < 1000, "n too big");
    let mut total = 0u64;
    // `(0..n).rev().step_by(2)`, as a while loop (a `for` with a join runs over a range only).
    let mut next = n;
    while next > 0 {
        let i = next - 1;
        next = next.saturating_sub(2);
        let r = task!(sq(i as u64));
        taskwait!();
        total = total.wrapping_add(helper(r));
        if matches!(i % 5, 0 | 1) {
            total ^= 1;
        }
    }
    let arr = [1u64, 2, 3];
    // SAFETY: index in bounds
    let third = unsafe { *arr.get_unchecked(2) };
    total + third
}
program!(Misc = [misc, sq]);

fn seq_misc(n: u32) -> u64 {
    const K: u64 = 3;
    let mut total = 0u64;
    for i in (0..n).rev().step_by(2) {
        let r = (i as u64) * (i as u64);
        total = total.wrapping_add(r.rotate_left(7) ^ K);
        if matches!(i % 5, 0 | 1) {
            total ^= 1;
        }
    }
    total + 3
}

#[test]
fn helpers_consts_macros() {
    for n in [0u32, 1, 2, 11, 30] {
        check::<Misc, _>(misc, (n,), seq_misc(n));
    }
}

// unit-returning task writing a Slice; tuple destructuring nested
#[gtap::function]
fn fill(out: gtap::Slice<u64>, lo: usize, hi: usize) {
    if hi - lo <= 2 {
        for i in lo..hi {
            out.set(i, (i * i) as u64);
        }
        return;
    }
    let mid = lo + (hi - lo) / 2;
    task!(fill(out, lo, mid));
    task!(fill(out, mid, hi));
    taskwait!();
}

program!(Fill = [fill]);

#[test]
fn unit_tasks_writing_a_slice() {
    for n in [1usize, 2, 3, 100] {
        let mut out = vec![0u64; n];
        // SAFETY: `out` outlives the run and nothing else touches it meanwhile.
        let slice = unsafe { Slice::from_raw_parts(out.as_mut_ptr(), out.len()) };
        gtap::run::<Fill, _>(fill, (slice, 0, n)).expect("runs on the CPU executor");
        assert_eq!(out, (0..n).map(|i| (i * i) as u64).collect::<Vec<_>>());
    }
}

// items in a nested block before a join, and a body item declared after its use
#[gtap::function]
fn nested_items(x: u64) -> u64 {
    let r = if x > 2 {
        fn twice(a: u64) -> u64 {
            2 * a
        }
        let a = task!(sq(x));
        taskwait!();
        twice(a)
    } else {
        1
    };
    let b = task!(sq(r));
    taskwait!();
    return late(b);
    fn late(a: u64) -> u64 {
        a + 7
    }
}
program!(NestedItems = [nested_items, sq]);

#[test]
fn items_around_joins() {
    for x in [0u64, 3, 9] {
        let r = if x > 2 { 2 * x * x } else { 1 };
        check::<NestedItems, _>(nested_items, (x,), r * r + 7);
    }
}

// enums with data, `let .. else`, tuple structs, `Option` of a tuple
#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Shape {
    Leaf(u32),
    Node { depth: u8, width: u16 },
}

#[derive(Clone, Copy, PartialEq, Debug, Default)]
pub struct W(u64);

/// Counts leaves of an implicit tree described by a `Shape`.
#[gtap::function]
fn count(s: Shape, salt: W) -> Option<(u64, u64)> {
    let Shape::Node { depth, width } = s else {
        return Some((1, salt.0));
    };
    if depth == 0 {
        return None;
    }
    let mut total = (0u64, 0u64);
    let mut i = 0u16;
    while i < width {
        let child = if depth == 1 {
            Shape::Leaf(i as u32)
        } else {
            Shape::Node {
                depth: depth - 1,
                width,
            }
        };
        let r = task!(count(child, W(salt.0 ^ i as u64)));
        taskwait!();
        if let Some((a, b)) = r {
            total.0 += a;
            total.1 = total.1.wrapping_add(b);
        }
        i += 1;
    }
    Some(total)
}
program!(Count = [count]);

fn seq_count(s: Shape, salt: W) -> Option<(u64, u64)> {
    let Shape::Node { depth, width } = s else {
        return Some((1, salt.0));
    };
    if depth == 0 {
        return None;
    }
    let mut total = (0u64, 0u64);
    for i in 0..width {
        let child = if depth == 1 {
            Shape::Leaf(i as u32)
        } else {
            Shape::Node {
                depth: depth - 1,
                width,
            }
        };
        if let Some((a, b)) = seq_count(child, W(salt.0 ^ i as u64)) {
            total.0 += a;
            total.1 = total.1.wrapping_add(b);
        }
    }
    Some(total)
}

#[test]
fn enums_let_else_tuple_structs() {
    for (d, w) in [(0u8, 3u16), (1, 4), (3, 3)] {
        let s = Shape::Node { depth: d, width: w };
        check::<Count, _>(count, (s, W(9)), seq_count(s, W(9)));
    }
    check::<Count, _>(count, (Shape::Leaf(1), W(2)), Some((1, 2)));
}

/// Many arguments, u128 and i8, a shadowed parameter, a closure used before and after a join.
#[gtap::function]
fn wide(a: u128, b: i8, c: u16, d: u32, e: u64, f: bool, g: f32, h: f64, n: u32) -> u128 {
    let n = n.min(6);
    let scale = move |x: u128| x.wrapping_mul(3).wrapping_add(b as u128);
    if n == 0 {
        return scale(a)
            ^ (c as u128)
            ^ (d as u128)
            ^ (e as u128)
            ^ (f as u128)
            ^ (g as u128)
            ^ (h as u128);
    }
    let l = task!(wide(a + 1, b, c, d, e, !f, g * 2.0, h + 0.5, n - 1));
    let r = task!(wide(a, b.wrapping_neg(), c ^ 1, d, e, f, g, h, n - 1));
    taskwait!();
    let twice = |x: u128| x.wrapping_mul(2);
    twice(l) ^ scale(r) ^ n as u128
}
program!(Wide = [wide]);

#[allow(
    clippy::too_many_arguments,
    reason = "the twin of `wide`, argument for argument"
)]
fn seq_wide(a: u128, b: i8, c: u16, d: u32, e: u64, f: bool, g: f32, h: f64, n: u32) -> u128 {
    let n = n.min(6);
    let scale = |x: u128| x.wrapping_mul(3).wrapping_add(b as u128);
    if n == 0 {
        return scale(a)
            ^ (c as u128)
            ^ (d as u128)
            ^ (e as u128)
            ^ (f as u128)
            ^ (g as u128)
            ^ (h as u128);
    }
    let l = seq_wide(a + 1, b, c, d, e, !f, g * 2.0, h + 0.5, n - 1);
    let r = seq_wide(a, b.wrapping_neg(), c ^ 1, d, e, f, g, h, n - 1);
    l.wrapping_mul(2) ^ scale(r) ^ n as u128
}

#[test]
fn many_wide_arguments() {
    for n in [0u32, 1, 5, 9] {
        let args = (
            u128::MAX / 3,
            -5i8,
            7u16,
            11u32,
            13u64,
            true,
            1.5f32,
            2.25f64,
            n,
        );
        check::<Wide, _>(
            wide,
            args,
            seq_wide(
                args.0, args.1, args.2, args.3, args.4, args.5, args.6, args.7, args.8,
            ),
        );
    }
}

/// A loop whose value comes from `break` after a join; a where clause; explicit `-> ()` task.
#[gtap::function]
fn search<T>(target: T, lo: u64) -> u64
where
    T: Copy + Into<u64> + 'static,
{
    let t: u64 = target.into();
    let mut k = lo;
    let found = loop {
        let s = task!(sq(k));
        taskwait!();
        if s >= t {
            break k;
        }
        k += 1;
    };
    task!(noop(found));
    found
}

#[gtap::function]
fn noop(_x: u64) -> () {}

program!(Search = [search::<u32>, sq, noop]);

#[test]
fn break_value_where_clause_unit() {
    for t in [0u32, 1, 50, 10_000] {
        let want = (0u64..).find(|k| k * k >= t as u64).unwrap();
        check::<Search, _>(search::<u32>, (t, 0), want);
    }
}

/// Closures around a join: one capturing nothing (kept as it is), one `move` over a `Copy`.
#[gtap::function]
fn closures(n: u64, k: u64) -> u64 {
    let plain = |x: u64| x + 1;
    let scaled = move |x: u64| x * k;
    let a = task!(sq(n));
    taskwait!();
    plain(scaled(a))
}
program!(Closures = [closures, sq]);

#[test]
fn closures_across_a_join() {
    check::<Closures, _>(closures, (3, 5), 46);
}

/// `for` loops with joins over a range's `.rev()`, exclusive and inclusive, with `continue`.
#[gtap::function]
fn countdown(n: u64) -> u64 {
    let mut acc = 0u64;
    for i in (0..n).rev() {
        if i % 4 == 1 {
            continue;
        }
        let s = task!(sq(i));
        taskwait!();
        acc = acc.wrapping_mul(31).wrapping_add(s);
    }
    for j in (2..=n).rev() {
        let s = task!(sq(j));
        taskwait!();
        acc ^= s << (j % 7);
    }
    acc
}
program!(Countdown = [countdown, sq]);

#[test]
fn reversed_ranges() {
    for n in [0u64, 1, 2, 3, 10] {
        let mut acc = 0u64;
        for i in (0..n).rev() {
            if i % 4 == 1 {
                continue;
            }
            acc = acc.wrapping_mul(31).wrapping_add(i * i);
        }
        for j in (2..=n).rev() {
            acc ^= (j * j) << (j % 7);
        }
        check::<Countdown, _>(countdown, (n,), acc);
    }
    // The inclusive range's lower end is the type's smallest value.
    check::<Countdown, _>(countdown, (u64::from(u8::MAX),), {
        let mut acc = 0u64;
        for i in (0..255u64).rev() {
            if i % 4 != 1 {
                acc = acc.wrapping_mul(31).wrapping_add(i * i);
            }
        }
        for j in (2..=255u64).rev() {
            acc ^= (j * j) << (j % 7);
        }
        acc
    });
}

/// An inclusive reversed range down to 0 (the counter stops before going below it).
#[gtap::function]
fn down_to_zero(n: u8) -> u64 {
    let mut total = 0u64;
    for i in (0..=n).rev() {
        let s = task!(sq(u64::from(i)));
        taskwait!();
        total = total.wrapping_mul(3).wrapping_add(s);
    }
    total
}
program!(DownToZero = [down_to_zero, sq]);

#[test]
fn reversed_inclusive_range_to_zero() {
    for n in [0u8, 1, 5, 255] {
        let want = (0..=n).rev().fold(0u64, |t, i| {
            t.wrapping_mul(3).wrapping_add(u64::from(i) * u64::from(i))
        });
        check::<DownToZero, _>(down_to_zero, (n,), want);
    }
}

// task functions in a module, called by path; a generic struct argument; `let (l, r);` filled by
// tasks inside an `unsafe` block; a `let v;` with neither value nor type
pub mod tasks {
    #[gtap::function]
    pub fn fib(n: u32) -> u64 {
        if n < 2 {
            return n as u64;
        }
        let a = task!(fib(n - 1));
        let b = task!(super::tasks::fib(n - 2));
        taskwait!();
        a + b
    }

    /// Generic struct argument.
    #[derive(Clone, Copy, Debug, PartialEq)]
    pub struct Span2<T> {
        pub lo: T,
        pub hi: T,
    }

    #[gtap::function]
    pub fn span_sum(s: Span2<u32>) -> u64 {
        if s.hi - s.lo <= 4 {
            let mut t = 0u64;
            let mut i = s.lo;
            while i < s.hi {
                t += i as u64;
                i += 1;
            }
            return t;
        }
        let mid = s.lo + (s.hi - s.lo) / 2;
        let (l, r);
        unsafe {
            l = task!(span_sum(Span2 { lo: s.lo, hi: mid }));
            r = task!(span_sum(Span2 { lo: mid, hi: s.hi }));
        }
        taskwait!();
        match (l, r) {
            (0, x) | (x, 0) => x,
            (x, y) => x + y,
        }
    }
}

/// Declared without a value or a type: the type comes from the task.
#[gtap::function]
fn untyped(n: u32) -> u64 {
    let v;
    if n % 2 == 0 {
        v = task!(tasks::fib(n));
    } else {
        v = task!(tasks::fib(n + 1));
    }
    taskwait!();
    v * 2
}

program!(Fibs = [tasks::fib, untyped]);
program!(Spans = [tasks::span_sum]);

#[test]
fn module_paths_and_generic_struct_args() {
    check::<Fibs, _>(tasks::fib, (20,), 6765);
    check::<Spans, _>(tasks::span_sum, (tasks::Span2 { lo: 0, hi: 100 },), 4950);
    check::<Fibs, _>(untyped, (10,), 110);
    check::<Fibs, _>(untyped, (11,), 288);
}

// a block-level reduce (on the CPU executor, a block of one thread); shadowing across joins
/// Block-level: the leader forks halves; every thread sums a strided share of a leaf chunk.
#[gtap::function(block)]
pub fn bsum(xs: Slice<u32>, lo: usize, hi: usize) -> u64 {
    let (t, size) = (
        gtap::block::thread_index() as usize,
        gtap::block::size() as usize,
    );
    if hi - lo <= 64 {
        let mut own = 0u64;
        let mut i = lo + t;
        while i < hi {
            own += xs.get(i) as u64;
            i += size;
        }
        return gtap::block::sum_u64(own);
    }
    let mid = lo + (hi - lo) / 2;
    let (mut a, mut b) = (0u64, 0u64);
    if gtap::block::is_leader() {
        a = task!(bsum(xs, lo, mid));
        b = task!(bsum(xs, mid, hi));
    }
    taskwait!();
    let total = a + b;
    gtap::block::broadcast(total)
}
program!(BSum = [bsum]);

#[test]
fn block_level_reduce() {
    let mut v: Vec<u32> = (0..10_000).map(|i| i % 97).collect();
    let want: u64 = v.iter().map(|&x| x as u64).sum();
    // SAFETY: v outlives the run.
    let s = unsafe { Slice::from_raw_parts(v.as_mut_ptr(), v.len()) };
    let got = gtap::run::<BSum, _>(bsum, (s, 0, 10_000)).unwrap();
    assert_eq!(got, want);
}

/// Shadowing across joins.
#[gtap::function]
fn shadows(x: u64) -> u64 {
    let x = x + 1;
    let y = task!(sq(x));
    taskwait!();
    let x = y + x;
    let y = task!(sq(x % 1000));
    taskwait!();
    let y = y ^ x;
    y
}
program!(Shadows = [shadows, sq]);

#[test]
fn shadowing() {
    for x in [0u64, 5, 77] {
        let a = x + 1;
        let b = a * a + a;
        let c = ((b % 1000) * (b % 1000)) ^ b;
        assert_eq!(gtap::run::<Shadows, _>(shadows, (x,)).unwrap(), c);
    }
}

// a spawn loop (no join inside) over any iterator: `.step_by(..).enumerate()`, results into an array
#[gtap::function]
fn chunk(lo: u64, hi: u64) -> u64 {
    (lo..hi).sum()
}

#[gtap::function]
fn chunks(n: u64, step: usize) -> u64 {
    let mut parts = [0u64; 16];
    for (k, lo) in (0..n).step_by(step).enumerate() {
        parts[k] = task!(chunk(lo, (lo + step as u64).min(n)));
    }
    taskwait!();
    parts.iter().sum()
}
program!(Chunks = [chunks, chunk]);

#[test]
fn spawn_loop_over_step_by() {
    assert_eq!(gtap::run::<Chunks, _>(chunks, (100, 7)).unwrap(), 4950);
}

/// `for` loops with joins over `.step_by(k)` of exclusive and inclusive ranges, to the end of
/// the type.
#[gtap::function]
fn strided(n: u64, k: usize, top: u8) -> u64 {
    let mut acc = 0u64;
    for i in (0..n).step_by(k) {
        if i % 5 == 3 {
            continue;
        }
        let s = task!(sq(i));
        taskwait!();
        acc = acc.wrapping_mul(7).wrapping_add(s);
    }
    for j in (1..=n).step_by(k + 1) {
        let s = task!(sq(j));
        taskwait!();
        acc ^= s;
    }
    for b in (top..=u8::MAX).step_by(4) {
        let s = task!(sq(u64::from(b)));
        taskwait!();
        acc = acc.wrapping_add(s);
    }
    acc
}
program!(Strided = [strided, sq]);

#[test]
fn strided_ranges() {
    for (n, k, top) in [
        (0u64, 1usize, 255u8),
        (10, 3, 250),
        (31, 4, 0),
        (5, 100, 200),
    ] {
        let mut acc = 0u64;
        for i in (0..n).step_by(k) {
            if i % 5 != 3 {
                acc = acc.wrapping_mul(7).wrapping_add(i * i);
            }
        }
        for j in (1..=n).step_by(k + 1) {
            acc ^= j * j;
        }
        for b in (top..=u8::MAX).step_by(4) {
            acc = acc.wrapping_add(u64::from(b) * u64::from(b));
        }
        check::<Strided, _>(strided, (n, k, top), acc);
    }
    // step 0 panics, as Iterator::step_by does: a typed error, not a hang.
    let r = gtap::run::<Strided, _>(strided, (4, 0, 0));
    assert!(matches!(r, Err(gtap::Error::TaskPanicked { .. })), "{r:?}");
}

// a labelled break out of a while with joins, if-let / else-if-let chains, `?` on a joined
// Result, a match over a tuple with a join in an arm, early returns
#[gtap::function]
fn half(x: u64) -> Result<u64, u64> {
    if x % 2 == 0 {
        Ok(x / 2)
    } else {
        Err(x)
    }
}

#[gtap::function]
fn flow(a: u64, b: Option<u64>, c: Result<u64, u64>) -> Result<u64, u64> {
    let mut acc = 0u64;
    'outer: loop {
        let mut i = 0u64;
        while i < a {
            let s = task!(sq(i));
            taskwait!();
            if s > 50 {
                break 'outer;
            }
            acc += s;
            i += 1;
        }
        break;
    }
    if let Some(k) = b {
        let h = task!(half(k));
        taskwait!();
        acc += h?;
    } else if let Ok(v) = c {
        let s = task!(sq(v));
        taskwait!();
        match (s % 3, a) {
            (0, 0) => return Ok(s),
            (0, _) => acc += s,
            (r, n) => {
                let t = task!(sq(r + n));
                taskwait!();
                acc ^= t;
            }
        }
    } else {
        return Err(acc);
    }
    let mut j = 0;
    while j < 3 {
        let h = task!(half(acc + j));
        taskwait!();
        let h = h.unwrap_or(1);
        acc = acc.wrapping_add(h);
        j += 1;
    }
    Ok(acc)
}
program!(Flow = [flow, sq, half]);

#[allow(clippy::never_loop, reason = "the twin of `flow`, loop for loop")]
fn seq_flow(a: u64, b: Option<u64>, c: Result<u64, u64>) -> Result<u64, u64> {
    let mut acc = 0u64;
    'outer: loop {
        let mut i = 0u64;
        while i < a {
            let s = i * i;
            if s > 50 {
                break 'outer;
            }
            acc += s;
            i += 1;
        }
        break;
    }
    let hf = |x: u64| {
        if x.is_multiple_of(2) {
            Ok(x / 2)
        } else {
            Err(x)
        }
    };
    if let Some(k) = b {
        acc += hf(k)?;
    } else if let Ok(v) = c {
        let s = v * v;
        match (s % 3, a) {
            (0, 0) => return Ok(s),
            (0, _) => acc += s,
            (r, n) => acc ^= (r + n) * (r + n),
        }
    } else {
        return Err(acc);
    }
    for j in 0..3 {
        acc = acc.wrapping_add(hf(acc + j).unwrap_or(1));
    }
    Ok(acc)
}

#[test]
fn control_flow_mix() {
    for a in [0u64, 3, 9] {
        for b in [None, Some(4u64), Some(5)] {
            for c in [Ok(3u64), Ok(4), Err(7)] {
                check::<Flow, _>(flow, (a, b, c), seq_flow(a, b, c));
            }
        }
    }
}
