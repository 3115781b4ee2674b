//! Block-level task functions in the shapes users write, after their frames changed (2026-11-26:
//! arguments read from the spawner's copy, per-thread fields field by field, a whole copy per
//! thread only when a `mut` parameter lives across a join). Each has a join and keeps something
//! across it: generic and `where`-bound parameters, user structs, tuples and arrays, parameter
//! patterns, results in loops and in array elements, `op=` results, early returns, `?` on
//! `Option` results, `match` and `if let` after the join, values of `if` over spawns, nested
//! blocks whose `let` hides an outer local, shadowed parameters, closures and `macro_rules!`.
//! Each runs on the CPU executor (a block of one thread) against a plain Rust twin; the
//! `ARGS_READ_ONLY` each gets is checked too, since it picks the layout on the GPU.

#![allow(
    clippy::needless_late_init,
    clippy::needless_return,
    clippy::let_and_return,
    clippy::collapsible_else_if,
    clippy::manual_is_multiple_of,
    reason = "the task functions are written as a new user writes them, and the twins follow"
)]

mod common;

use common::check;
use gtap::{program, TaskFn};

#[gtap::function]
fn leaf(x: u64) -> u64 {
    x.wrapping_mul(2654435761) >> 7
}

fn seq_leaf(x: u64) -> u64 {
    x.wrapping_mul(2654435761) >> 7
}

/// The block's index of the running thread, as a `u64` (0 on the CPU executor).
fn me() -> u64 {
    u64::from(gtap::block::thread_index())
}

// 1. generic parameters, `where` clauses, const generics

#[gtap::function(block)]
fn generic_sum<T: Copy + Into<u64>>(x: T, k: u32) -> u64 {
    let base = x.into() + me();
    let a = task!(leaf(base));
    taskwait!();
    gtap::block::sum_u64(a + base * u64::from(k))
}

#[gtap::function(block)]
fn where_bound<T>(xs: [T; 3]) -> u64
where
    T: Copy + Into<u64>,
{
    let mut total = 0;
    let mut i = 0;
    while i < 3 {
        total += task!(leaf(xs[i].into()));
        taskwait!();
        i += 1;
    }
    total
}

#[gtap::function(block)]
fn const_generic<const N: usize>(xs: [u32; N]) -> u64 {
    let mut r = [0u64; N];
    for i in 0..N {
        if gtap::block::is_leader() {
            r[i] = task!(leaf(u64::from(xs[i])));
        }
    }
    taskwait!();
    r.iter().sum::<u64>() + N as u64
}

// 2. user structs, tuples and parameter patterns

#[derive(Clone, Copy, Debug, PartialEq, Default)]
struct Span {
    lo: u64,
    hi: u64,
}

#[gtap::function(block)]
fn split_span(s: Span) -> u64 {
    if s.hi - s.lo <= 2 {
        return s.lo * 3 + s.hi;
    }
    let mid = s.lo + (s.hi - s.lo) / 2;
    let mut left = 0;
    let mut right = 0;
    if gtap::block::is_leader() {
        left = task!(split_span(Span { lo: s.lo, hi: mid }));
        right = task!(split_span(Span { lo: mid, hi: s.hi }));
    }
    taskwait!();
    left ^ right.rotate_left(5)
}

fn seq_split_span(s: Span) -> u64 {
    if s.hi - s.lo <= 2 {
        return s.lo * 3 + s.hi;
    }
    let mid = s.lo + (s.hi - s.lo) / 2;
    seq_split_span(Span { lo: s.lo, hi: mid })
        ^ seq_split_span(Span { lo: mid, hi: s.hi }).rotate_left(5)
}

#[gtap::function(block)]
fn tuple_pattern((a, mut b): (u64, u64), [c, d]: [u32; 2]) -> u64 {
    b += u64::from(c);
    let r = task!(leaf(a + b));
    taskwait!();
    r + b + u64::from(d) + a
}

// 3. results in loops, array elements and `op=`, kept across joins

#[gtap::function(block)]
fn results_in_array(n: u64) -> u64 {
    let mut out = [0u64; 4];
    for (i, slot) in out.iter_mut().enumerate() {
        *slot = i as u64;
    }
    let mut k = 0;
    while k < 4 {
        out[k] = task!(leaf(n + k as u64));
        k += 1;
    }
    taskwait!();
    out[0] ^ out[1] ^ out[2].wrapping_add(out[3])
}

#[gtap::function(block)]
fn accumulate(n: u64, rounds: u32) -> u64 {
    let mut acc = n;
    for r in 0..rounds {
        acc ^= task!(leaf(acc + u64::from(r)));
        taskwait!();
    }
    acc
}

fn seq_accumulate(n: u64, rounds: u32) -> u64 {
    let mut acc = n;
    for r in 0..rounds {
        acc ^= seq_leaf(acc + u64::from(r));
    }
    acc
}

// 4. early returns, `?`, `match` and `if let` after the join

#[gtap::function]
fn maybe(x: u64) -> Option<u64> {
    if x % 5 == 0 {
        None
    } else {
        Some(x * 7)
    }
}

#[gtap::function(block)]
fn question_mark(x: u64) -> Option<u64> {
    if x > 1000 {
        return Some(x);
    }
    let a = task!(maybe(x));
    let b = task!(maybe(x + 1));
    taskwait!();
    let s = a? + b?;
    Some(s + x)
}

fn seq_question_mark(x: u64) -> Option<u64> {
    if x > 1000 {
        return Some(x);
    }
    let m = |x: u64| if x % 5 == 0 { None } else { Some(x * 7) };
    Some(m(x)? + m(x + 1)? + x)
}

#[gtap::function(block)]
fn match_after(x: u64, mode: u8) -> u64 {
    let a = task!(leaf(x));
    taskwait!();
    match mode {
        0 => a,
        1 => a + x,
        m if m % 2 == 0 => a * u64::from(m),
        _ => {
            if let Some(v) = x.checked_sub(3) {
                v ^ a
            } else {
                a
            }
        }
    }
}

fn seq_match_after(x: u64, mode: u8) -> u64 {
    let a = seq_leaf(x);
    match mode {
        0 => a,
        1 => a + x,
        m if m % 2 == 0 => a * u64::from(m),
        _ => x.checked_sub(3).map_or(a, |v| v ^ a),
    }
}

// 5. values of `if` over spawns, hidden and shadowed locals, mutable locals of parameters

#[gtap::function(block)]
fn if_value(x: u64) -> u64 {
    let v = if x % 2 == 0 { task!(leaf(x)) } else { x + 1 };
    taskwait!();
    v * 3
}

#[gtap::function(block)]
fn hidden_in_block(x: u64) -> u64 {
    let y = x + 10;
    let inner = {
        let y = x * 2;
        let r = task!(leaf(y));
        taskwait!();
        r + y
    };
    inner + y
}

#[gtap::function(block)]
fn shadowed_param(x: u64, step: u64) -> u64 {
    let x = x + me() * step;
    let mut x = x * 2;
    let r = task!(leaf(x));
    taskwait!();
    x += r;
    gtap::block::sum_u64(x)
}

/// A `mut` parameter that lives across the join: the one shape that copies the frame.
#[gtap::function(block)]
fn mut_param_kept(mut x: u64, step: u64) -> u64 {
    x += me() * step;
    let r = task!(leaf(x));
    taskwait!();
    gtap::block::sum_u64(r ^ x)
}

// 6. closures and macros

#[gtap::function(block)]
fn with_closure(x: u64) -> u64 {
    let scale = |v: u64| v * 3 + 1;
    let r = task!(leaf(scale(x)));
    taskwait!();
    scale(r) + scale(x)
}

macro_rules! block_pair {
    ($name:ident, $op:tt) => {
        #[gtap::function(block)]
        fn $name(x: u64) -> u64 {
            let mut a = 0;
            let mut b = 0;
            if gtap::block::is_leader() {
                a = task!(leaf(x));
                b = task!(leaf(x + 1));
            }
            taskwait!();
            a $op b
        }
    };
}

block_pair!(pair_xor, ^);
block_pair!(pair_add, +);

program!(
    BlockShapes = [
        leaf,
        maybe,
        generic_sum::<u32>,
        generic_sum::<u8>,
        where_bound::<u16>,
        const_generic::<3>,
        split_span,
        tuple_pattern,
        results_in_array,
        accumulate,
        question_mark,
        match_after,
        if_value,
        hidden_in_block,
        shadowed_param,
        mut_param_kept,
        with_closure,
        pair_xor,
        pair_add
    ]
);

const NS: [u64; 6] = [0, 1, 2, 7, 64, 1001];

#[test]
fn generic_struct_and_pattern_arguments() {
    for n in NS {
        let k = (n % 4) as u32;
        check::<BlockShapes, _>(
            generic_sum::<u32>,
            (n as u32, k),
            seq_leaf(n) + n * u64::from(k),
        );
        let b = (n % 200) as u8;
        let want = seq_leaf(u64::from(b)) + u64::from(b) * 3;
        check::<BlockShapes, _>(generic_sum::<u8>, (b, 3), want);
        let xs = [n as u16, 3, (n * 7) as u16];
        let want: u64 = xs.iter().map(|&v| seq_leaf(u64::from(v))).sum();
        check::<BlockShapes, _>(where_bound::<u16>, (xs,), want);
        let ys = [n as u32, 9, 4];
        let want: u64 = ys.iter().map(|&v| seq_leaf(u64::from(v))).sum::<u64>() + 3;
        check::<BlockShapes, _>(const_generic::<3>, (ys,), want);
        let s = Span {
            lo: n,
            hi: n + 2 + n % 37,
        };
        check::<BlockShapes, _>(split_span, (s,), seq_split_span(s));
        let (a, b, c, d) = (n, n / 2, (n % 9) as u32, 5u32);
        let want = seq_leaf(a + b + u64::from(c)) + b + u64::from(c) + u64::from(d) + a;
        check::<BlockShapes, _>(tuple_pattern, ((a, b), [c, d]), want);
    }
}

#[test]
fn results_kept_across_joins() {
    for n in NS {
        let r: Vec<u64> = (0..4).map(|k| seq_leaf(n + k)).collect();
        check::<BlockShapes, _>(
            results_in_array,
            (n,),
            r[0] ^ r[1] ^ r[2].wrapping_add(r[3]),
        );
        for rounds in [0u32, 1, 5] {
            check::<BlockShapes, _>(accumulate, (n, rounds), seq_accumulate(n, rounds));
        }
        check::<BlockShapes, _>(question_mark, (n,), seq_question_mark(n));
        for mode in [0u8, 1, 4, 7] {
            check::<BlockShapes, _>(match_after, (n, mode), seq_match_after(n, mode));
        }
        let v = if n % 2 == 0 { seq_leaf(n) } else { n + 1 };
        check::<BlockShapes, _>(if_value, (n,), v * 3);
        check::<BlockShapes, _>(hidden_in_block, (n,), seq_leaf(n * 2) + n * 2 + n + 10);
        // On the CPU executor the block is one thread: `me()` is 0.
        let x = n * 2;
        check::<BlockShapes, _>(shadowed_param, (n, 3), x + seq_leaf(x));
        check::<BlockShapes, _>(mut_param_kept, (n, 3), seq_leaf(n) ^ n);
        let scale = |v: u64| v * 3 + 1;
        check::<BlockShapes, _>(with_closure, (n,), scale(seq_leaf(scale(n))) + scale(n));
        check::<BlockShapes, _>(pair_xor, (n,), seq_leaf(n) ^ seq_leaf(n + 1));
        check::<BlockShapes, _>(pair_add, (n,), seq_leaf(n) + seq_leaf(n + 1));
    }
}

#[test]
fn only_a_mut_parameter_across_a_join_copies_the_frame() {
    let copies: Vec<&str> = [
        (split_span::NAME, <split_span as TaskFn>::ARGS_READ_ONLY),
        (
            tuple_pattern::NAME,
            <tuple_pattern as TaskFn>::ARGS_READ_ONLY,
        ),
        (
            results_in_array::NAME,
            <results_in_array as TaskFn>::ARGS_READ_ONLY,
        ),
        (accumulate::NAME, <accumulate as TaskFn>::ARGS_READ_ONLY),
        (
            question_mark::NAME,
            <question_mark as TaskFn>::ARGS_READ_ONLY,
        ),
        (match_after::NAME, <match_after as TaskFn>::ARGS_READ_ONLY),
        (if_value::NAME, <if_value as TaskFn>::ARGS_READ_ONLY),
        (
            hidden_in_block::NAME,
            <hidden_in_block as TaskFn>::ARGS_READ_ONLY,
        ),
        (
            shadowed_param::NAME,
            <shadowed_param as TaskFn>::ARGS_READ_ONLY,
        ),
        (
            mut_param_kept::NAME,
            <mut_param_kept as TaskFn>::ARGS_READ_ONLY,
        ),
        (with_closure::NAME, <with_closure as TaskFn>::ARGS_READ_ONLY),
        (pair_xor::NAME, <pair_xor as TaskFn>::ARGS_READ_ONLY),
        (
            where_bound::<u16>::NAME,
            <where_bound<u16> as TaskFn>::ARGS_READ_ONLY,
        ),
        (
            const_generic::<3>::NAME,
            <const_generic<3> as TaskFn>::ARGS_READ_ONLY,
        ),
    ]
    .into_iter()
    .filter(|(_, read_only)| !read_only)
    .map(|(name, _)| name)
    .collect();
    assert_eq!(copies, ["mut_param_kept"]);
}
