//! The Rust users write around joins, run on the CPU executor (`gtap::run`) and compared with
//! the same code run sequentially (`seq_*`: the task function with `task!` read as a call and
//! `taskwait!()` dropped). One program per construct; see `docs/frontend.md`.

mod common;

use common::check;
use gtap::program;

#[gtap::function]
fn sq(x: u64) -> u64 {
    x * x
}

#[gtap::function]
fn inc(x: u64) -> u64 {
    x + 1
}

// ---- task results into places ----

#[gtap::function]
fn into_array(n: u64) -> u64 {
    let mut counts = [0u64; 8];
    let mut i = 0;
    while i < 8 {
        counts[i] = task!(sq(n + i as u64));
        i += 1;
    }
    taskwait!();
    counts.iter().sum()
}
program!(IntoArray = [into_array, sq]);

#[test]
fn array_element_in_a_loop() {
    for n in [0u64, 3, 10] {
        check::<IntoArray, _>(into_array, (n,), (0..8).map(|i| (n + i) * (n + i)).sum());
    }
}

#[derive(Clone, Copy, Default, PartialEq, Debug)]
struct Pair {
    x: u64,
    y: u64,
}

#[gtap::function]
fn into_fields(n: u64) -> u64 {
    let mut p = Pair::default();
    let mut t = (0u64, 0u64);
    p.x = task!(sq(n));
    p.y = task!(inc(n));
    t.0 = 7;
    t.1 = task!(sq(n + 1));
    taskwait!();
    p.x * 1000 + p.y * 10 + t.0 + t.1
}

#[gtap::function]
fn into_element_fields(n: u64) -> u64 {
    let mut ps = [Pair::default(); 4];
    for (i, p) in ps.iter_mut().enumerate() {
        p.y = i as u64;
    }
    for i in 0..4 {
        ps[i].x = task!(sq(n + i as u64));
    }
    taskwait!();
    let mut s = 0;
    for p in ps {
        s += p.x * p.y;
    }
    s
}

#[gtap::function]
fn into_nested(n: u64) -> u64 {
    let mut grid = [[0u64; 3]; 3];
    let mut i = 0;
    while i < 3 {
        let mut j = 0;
        while j < 3 {
            grid[i][j] = task!(inc(n * i as u64 + j as u64));
            j += 1;
        }
        taskwait!();
        i += 1;
    }
    grid[0][0] + grid[1][2] * 10 + grid[2][1] * 100
}
program!(Places = [into_fields, into_element_fields, into_nested, sq, inc]);

#[test]
fn fields_and_elements() {
    for n in [0u64, 2, 9] {
        check::<Places, _>(
            into_fields,
            (n,),
            n * n * 1000 + (n + 1) * 10 + 7 + (n + 1) * (n + 1),
        );
        let want: u64 = (0..4).map(|i| (n + i) * (n + i) * i).sum();
        check::<Places, _>(into_element_fields, (n,), want);
        check::<Places, _>(
            into_nested,
            (n,),
            1 + (n + 2 + 1) * 10 + (2 * n + 1 + 1) * 100,
        );
    }
}

// ---- `for` over a range whose type comes from the bounds ----

#[gtap::function]
fn for_u64_bound(x: u64) -> u64 {
    let mut total = 0;
    for i in 0..x {
        let s = task!(sq(i));
        taskwait!();
        total += s;
    }
    total
}

#[gtap::function]
fn for_inclusive(x: u64) -> u64 {
    let mut total = 0;
    for i in 1..=x {
        let s = task!(sq(i));
        taskwait!();
        total += s * i;
    }
    total
}
program!(Fors = [for_u64_bound, for_inclusive, sq]);

#[test]
fn range_loops() {
    for x in [0u64, 1, 5, 20] {
        check::<Fors, _>(for_u64_bound, (x,), (0..x).map(|i| i * i).sum());
        check::<Fors, _>(for_inclusive, (x,), (1..=x).map(|i| i * i * i).sum());
    }
}

// ---- loops and blocks with values ----

#[gtap::function]
fn labelled_break_value(x: u64) -> u64 {
    let mut k = x;
    let v = 'search: loop {
        let s = task!(sq(k));
        taskwait!();
        if s > 50 {
            break 'search s + k;
        }
        k += 1;
    };
    v * 2
}

#[gtap::function]
fn tail_loop_value(x: u64) -> u64 {
    let mut k = x;
    'l: loop {
        let s = task!(sq(k));
        taskwait!();
        if s % 3 == 0 {
            break 'l s;
        }
        k += 1;
    }
}

#[gtap::function]
fn shadow_with_block(x: u64) -> u64 {
    let x = {
        let a = task!(sq(x));
        taskwait!();
        a * x
    };
    x + 1
}

#[gtap::function]
fn let_loop_value(x: u64) -> u64 {
    let mut i = 0;
    let v = loop {
        let a = task!(inc(i));
        taskwait!();
        if a * a > x {
            break a;
        }
        i += 1;
    };
    v
}

#[gtap::function]
fn labelled_block_value(x: u64) -> u64 {
    let v = 'b: {
        let a = task!(sq(x));
        taskwait!();
        if a > 10 {
            break 'b a - 10;
        }
        a + 100
    };
    v
}

#[gtap::function]
fn nested_loop_breaks(x: u64) -> u64 {
    let mut found = 0;
    let v = 'outer: loop {
        let mut j = 0;
        while j < 4 {
            let a = task!(sq(found + j));
            taskwait!();
            if a > x {
                break 'outer a;
            }
            if a == 4 {
                break;
            }
            j += 1;
        }
        found += 1;
    };
    v
}
program!(
    Values = [
        labelled_break_value,
        tail_loop_value,
        shadow_with_block,
        let_loop_value,
        labelled_block_value,
        nested_loop_breaks,
        sq,
        inc
    ]
);

fn seq_labelled_break_value(x: u64) -> u64 {
    let mut k = x;
    loop {
        if k * k > 50 {
            return (k * k + k) * 2;
        }
        k += 1;
    }
}

fn seq_tail_loop_value(x: u64) -> u64 {
    (x..).map(|k| k * k).find(|s| s % 3 == 0).unwrap_or(0)
}

fn seq_let_loop_value(x: u64) -> u64 {
    (1..).find(|a| a * a > x).unwrap_or(0)
}

fn seq_nested_loop_breaks(x: u64) -> u64 {
    let mut found = 0;
    loop {
        for j in 0..4 {
            let a = (found + j) * (found + j);
            if a > x {
                return a;
            }
            if a == 4 {
                break;
            }
        }
        found += 1;
    }
}

#[test]
fn values_of_loops_and_blocks() {
    for x in [0u64, 1, 3, 7, 12, 40] {
        check::<Values, _>(labelled_break_value, (x,), seq_labelled_break_value(x));
        check::<Values, _>(tail_loop_value, (x,), seq_tail_loop_value(x));
        check::<Values, _>(shadow_with_block, (x,), x * x * x + 1);
        check::<Values, _>(let_loop_value, (x,), seq_let_loop_value(x));
        check::<Values, _>(
            labelled_block_value,
            (x,),
            if x * x > 10 { x * x - 10 } else { x * x + 100 },
        );
        check::<Values, _>(nested_loop_breaks, (x,), seq_nested_loop_breaks(x));
    }
}

// ---- `?` ----

#[gtap::function]
fn checked_sq(x: u64) -> Option<u64> {
    x.checked_mul(x)
}

#[gtap::function]
fn opt_chain(x: u64) -> Option<u64> {
    let a = x.checked_sub(1)?;
    let b = task!(checked_sq(a));
    taskwait!();
    let b = b?;
    let c = b.checked_add(u64::MAX / 2)?;
    Some(c - u64::MAX / 2 + 1)
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Failure {
    Odd(u64),
    Big,
}

#[gtap::function]
fn halve(x: u64) -> Result<u64, Failure> {
    if x % 2 == 1 {
        return Err(Failure::Odd(x));
    }
    Ok(x / 2)
}

#[gtap::function]
fn res_chain(x: u64) -> Result<u64, Failure> {
    let a = task!(halve(x));
    taskwait!();
    let a = a?;
    if a > 1000 {
        Err(Failure::Big)?;
    }
    let b = task!(halve(a));
    taskwait!();
    Ok(b? + 1)
}
program!(Tries = [opt_chain, checked_sq, res_chain, halve]);

#[test]
fn question_mark() {
    for x in [0u64, 1, 2, 5, 1 << 33] {
        let want = x
            .checked_sub(1)
            .and_then(|a| a.checked_mul(a))
            .and_then(|b| b.checked_add(u64::MAX / 2))
            .map(|c| c - u64::MAX / 2 + 1);
        check::<Tries, _>(opt_chain, (x,), want);
    }
    for x in [0u64, 1, 2, 4, 6, 3000, 4000] {
        let want = if x % 2 == 1 {
            Err(Failure::Odd(x))
        } else if x / 2 > 1000 {
            Err(Failure::Big)
        } else if (x / 2) % 2 == 1 {
            Err(Failure::Odd(x / 2))
        } else {
            Ok(x / 4 + 1)
        };
        check::<Tries, _>(res_chain, (x,), want);
    }
}

// ---- generic task functions ----

/// Sums `f(lo..hi)` for a generic integer type, splitting in halves.
#[gtap::function]
fn gsum<T: Copy + core::ops::Add<Output = T> + From<u8> + PartialOrd + 'static>(
    lo: u32,
    hi: u32,
    scale: T,
) -> T {
    if hi - lo <= 1 {
        let mut v = T::from(0);
        let mut k = 0;
        while k < lo {
            v = v + scale;
            k += 1;
        }
        return v;
    }
    let mid = lo + (hi - lo) / 2;
    let a = task!(gsum::<T>(lo, mid, scale));
    let b = task!(gsum::<T>(mid, hi, scale));
    taskwait!();
    a + b
}

/// Sums `N` copies of the leaf value through `N` children, each result in an array element.
#[gtap::function]
fn fan<const N: usize>(x: u64) -> u64 {
    let mut parts = [0u64; N];
    for i in 0..N {
        parts[i] = task!(sq(x + i as u64));
    }
    taskwait!();
    let mut s = 0;
    for p in parts {
        s += p;
    }
    s
}

/// A generic result that appears only in the output.
#[gtap::function]
fn make<T: Default + Copy + 'static>() -> T {
    T::default()
}

#[gtap::function]
fn pair_of_defaults(x: u64) -> (u64, f32) {
    let a = task!(make::<u64>());
    let b = task!(make::<f32>());
    taskwait!();
    (a + x, b)
}
program!(GenSum = [gsum::<u64>]);
program!(GenSumF = [gsum::<f64>]);
program!(Fan = [fan::<4>, fan::<7>, sq]);
program!(Defaults = [pair_of_defaults, make::<u64>, make::<f32>]);

#[test]
fn generic_functions() {
    for (lo, hi) in [(0u32, 1u32), (0, 10), (3, 40)] {
        let want: u64 = (lo..hi).map(|k| 3 * k as u64).sum();
        check::<GenSum, _>(gsum::<u64>, (lo, hi, 3), want);
        let got = gtap::run::<GenSumF, _>(gsum::<f64>, (lo, hi, 0.5)).expect("runs");
        assert_eq!(got, (lo..hi).map(|k| 0.5 * k as f64).sum::<f64>());
    }
    for x in [0u64, 5] {
        check::<Fan, _>(fan::<4>, (x,), (0..4).map(|i| (x + i) * (x + i)).sum());
        check::<Fan, _>(fan::<7>, (x,), (0..7).map(|i| (x + i) * (x + i)).sum());
        check::<Defaults, _>(pair_of_defaults, (x,), (x, 0.0));
    }
    assert_ne!(
        <fan<4> as gtap::TaskFn>::ID,
        <fan<7> as gtap::TaskFn>::ID,
        "instantiations have their own kinds"
    );
}

// ---- more statement and expression forms around joins ----

#[gtap::function]
fn tuple_pattern_over_block(x: u64) -> u64 {
    let (a, b) = {
        let s = task!(sq(x));
        let t = task!(inc(x));
        taskwait!();
        (s, t)
    };
    a * 100 + b
}

#[gtap::function]
fn let_else_over_match(x: u64) -> u64 {
    let Some(v) = (match x % 2 {
        0 => {
            let s = task!(sq(x));
            taskwait!();
            Some(s)
        }
        _ => None,
    }) else {
        return 1;
    };
    v + 2
}

#[gtap::function]
fn while_let_with_join(x: u64) -> u64 {
    let mut stack = [0u64; 4];
    let mut top = 0;
    let mut next = Some(x);
    let mut total = 0;
    while let Some(v) = next {
        let s = task!(sq(v));
        taskwait!();
        total += s;
        if top < 4 && v > 0 {
            stack[top] = v / 2;
            top += 1;
            next = Some(v / 2);
        } else {
            next = None;
        }
    }
    total + stack[0]
}

#[gtap::function]
fn places_in_match_arms(x: u64) -> u64 {
    let mut r = [0u64; 3];
    match x % 3 {
        0 => r[0] = task!(sq(x)),
        1 => {
            r[1] = task!(inc(x));
            r[2] = task!(sq(x + 1));
        }
        _ => {}
    }
    taskwait!();
    r[0] + r[1] * 10 + r[2] * 100
}

#[gtap::function]
fn labelled_continue_in_nested(x: u64) -> u64 {
    let mut total = 0;
    'rows: for i in 0..x {
        let mut j = 0;
        while j < 3 {
            let s = task!(sq(i + j));
            taskwait!();
            j += 1;
            if s % 2 == 1 {
                continue 'rows;
            }
            total += s;
        }
    }
    total
}

#[gtap::function]
fn partial_spawn_in_branch(x: u64) -> u64 {
    let mut a = 5;
    if x % 2 == 0 {
        a = task!(sq(x));
    }
    taskwait!();
    a
}

#[gtap::function]
fn index_from_expression(x: u64) -> u64 {
    let mut slots = [0u64; 5];
    let mut i = 0;
    while i < 5 {
        slots[(i * 3) % 5] = task!(inc(x + i as u64));
        i += 1;
    }
    taskwait!();
    slots[0] + slots[1] * 10 + slots[4] * 100
}

#[gtap::function]
fn if_value_with_joins_in_both(x: u64) -> u64 {
    let y = if x > 3 {
        let a = task!(sq(x));
        taskwait!();
        a
    } else {
        let b = task!(inc(x));
        taskwait!();
        b * 7
    };
    y + x
}
program!(
    More = [
        tuple_pattern_over_block,
        let_else_over_match,
        while_let_with_join,
        places_in_match_arms,
        labelled_continue_in_nested,
        partial_spawn_in_branch,
        index_from_expression,
        if_value_with_joins_in_both,
        sq,
        inc
    ]
);

fn seq_while_let(x: u64) -> u64 {
    let (mut stack, mut top, mut next, mut total) = ([0u64; 4], 0, Some(x), 0);
    while let Some(v) = next {
        total += v * v;
        if top < 4 && v > 0 {
            stack[top] = v / 2;
            top += 1;
            next = Some(v / 2);
        } else {
            next = None;
        }
    }
    total + stack[0]
}

fn seq_labelled_continue(x: u64) -> u64 {
    let mut total = 0;
    'rows: for i in 0..x {
        for j in 0..3 {
            let s = (i + j) * (i + j);
            if s % 2 == 1 {
                continue 'rows;
            }
            total += s;
        }
    }
    total
}

#[test]
fn statement_forms() {
    for x in [0u64, 1, 2, 3, 4, 7, 12] {
        check::<More, _>(tuple_pattern_over_block, (x,), x * x * 100 + x + 1);
        check::<More, _>(
            let_else_over_match,
            (x,),
            if x % 2 == 0 { x * x + 2 } else { 1 },
        );
        check::<More, _>(while_let_with_join, (x,), seq_while_let(x));
        let want = match x % 3 {
            0 => x * x,
            1 => (x + 1) * 10 + (x + 1) * (x + 1) * 100,
            _ => 0,
        };
        check::<More, _>(places_in_match_arms, (x,), want);
        check::<More, _>(labelled_continue_in_nested, (x,), seq_labelled_continue(x));
        check::<More, _>(
            partial_spawn_in_branch,
            (x,),
            if x % 2 == 0 { x * x } else { 5 },
        );
        // slots[(i * 3) % 5] = x + i + 1: slot 0 <- i 0, slot 1 <- i 2, slot 4 <- i 3
        check::<More, _>(
            index_from_expression,
            (x,),
            (x + 1) + (x + 3) * 10 + (x + 4) * 100,
        );
        let y = if x > 3 { x * x } else { (x + 1) * 7 };
        check::<More, _>(if_value_with_joins_in_both, (x,), y + x);
    }
}

// ---- found by the random-program tester (`docs/frontend.md`, "Random programs") ----

/// The value of a loop with a join leaves through a loop without markers nested in it:
/// `break 'outer v` there became `{ tmp = v; break 'outer; }`, and the nested loop is one node
/// of the graph, whose assignment of `tmp` counted as a read: `tmp` looked live at the join, was
/// saved before it had a value and restored as an immutable local (rustc E0381 and E0384 on
/// the generated code). The shrunk program of seed 40.
// The inner loop never loops: the shape the generator made and the minimizer left.
#[allow(clippy::never_loop)]
#[gtap::function]
fn value_break_from_a_nested_loop(d: u32, x: u64) -> u64 {
    let mut acc: u64 = x ^ 40;
    let mut n: u64 = 0;
    let outer: u64 = 'outer: loop {
        n += 1;
        if n > 2 {
            break 'outer x;
        }
        let inner: u64 = 'inner: loop {
            if acc % 4 == 1 {
                break 'outer acc;
            }
            break 'inner 3;
        };
        acc = acc.wrapping_add(inner);
        if d > 0 {
            let r = task!(sq(acc % 1000));
            taskwait!();
            acc = acc.wrapping_add(r);
        }
    };
    acc.wrapping_add(outer)
}
program!(FoundByRandomPrograms = [value_break_from_a_nested_loop, sq]);

#[allow(clippy::never_loop)]
fn seq_value_break_from_a_nested_loop(d: u32, x: u64) -> u64 {
    let mut acc: u64 = x ^ 40;
    let mut n: u64 = 0;
    let outer: u64 = 'outer: loop {
        n += 1;
        if n > 2 {
            break 'outer x;
        }
        let inner: u64 = 'inner: loop {
            if acc % 4 == 1 {
                break 'outer acc;
            }
            break 'inner 3;
        };
        acc = acc.wrapping_add(inner);
        if d > 0 {
            let r = (acc % 1000) * (acc % 1000);
            acc = acc.wrapping_add(r);
        }
    };
    acc.wrapping_add(outer)
}

#[test]
fn value_break_from_a_loop_nested_in_a_loop_with_a_join() {
    for d in [0u32, 1] {
        for x in [0u64, 1, 3, 5, 6, 9, 41, 100] {
            check::<FoundByRandomPrograms, _>(
                value_break_from_a_nested_loop,
                (d, x),
                seq_value_break_from_a_nested_loop(d, x),
            );
        }
    }
}
