//! Searches, nested results and many-argument tasks in the shapes users write (see `shapes_arguments_and_loops.rs`, `shapes_patterns_closures_errors.rs`), each on the
//! CPU executor against a plain Rust twin.

mod common;

use common::check;
use gtap::{program, Slice};

/// A tiny deterministic generator for randomized inputs.
fn rng(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

#[gtap::function]
fn sq(x: u64) -> u64 {
    x.wrapping_mul(x)
}

// ---------------------------------------------------------------------------------------------
// n-queens with a solution limit: several joins in a loop, early-out flag, break out of the loop

#[gtap::function]
fn queens(n: u32, row: u32, cols: u32, d1: u32, d2: u32, limit: u64) -> u64 {
    if row == n {
        return 1;
    }
    let mut found = 0u64;
    let mut stop = false;
    let mut c = 0;
    while c < n && !stop {
        let bit = 1u32 << c;
        if cols & bit == 0 && d1 & (1 << (row + c)) == 0 && d2 & (1 << (row + n - c)) == 0 {
            let sub = task!(queens(
                n,
                row + 1,
                cols | bit,
                d1 | (1 << (row + c)),
                d2 | (1 << (row + n - c)),
                limit
            ));
            taskwait!();
            found += sub;
            if found >= limit {
                stop = true;
            }
        }
        c += 1;
    }
    found.min(limit)
}

fn seq_queens(n: u32, row: u32, cols: u32, d1: u32, d2: u32, limit: u64) -> u64 {
    if row == n {
        return 1;
    }
    let mut found = 0u64;
    let mut stop = false;
    let mut c = 0;
    while c < n && !stop {
        let bit = 1u32 << c;
        if cols & bit == 0 && d1 & (1 << (row + c)) == 0 && d2 & (1 << (row + n - c)) == 0 {
            let sub = seq_queens(
                n,
                row + 1,
                cols | bit,
                d1 | (1 << (row + c)),
                d2 | (1 << (row + n - c)),
                limit,
            );
            found += sub;
            if found >= limit {
                stop = true;
            }
        }
        c += 1;
    }
    found.min(limit)
}

// search for a target in a Slice: two halves spawned, early-out when the left found it
#[gtap::function]
fn find(xs: Slice<u64>, lo: usize, hi: usize, target: u64) -> Option<usize> {
    if hi - lo <= 4 {
        for i in lo..hi {
            if xs.get(i) == target {
                return Some(i);
            }
        }
        return None;
    }
    let mid = lo + (hi - lo) / 2;
    let left = task!(find(xs, lo, mid, target));
    taskwait!();
    if let Some(i) = left {
        return Some(i);
    }
    let right = task!(find(xs, mid, hi, target));
    taskwait!();
    right
}

// ---------------------------------------------------------------------------------------------
// divide and conquer with a struct of results with nested fields

#[derive(Clone, Copy, PartialEq, Debug, Default)]
pub struct Sum {
    total: u64,
    n: u32,
}

#[derive(Clone, Copy, PartialEq, Debug, Default)]
pub struct Stats {
    range: (u64, u64),
    sum: Sum,
    argmax: [usize; 1],
}

impl Stats {
    fn leaf(x: u64, i: usize) -> Stats {
        Stats {
            range: (x, x),
            sum: Sum { total: x, n: 1 },
            argmax: [i],
        }
    }
    fn merge(&self, o: &Stats) -> Stats {
        Stats {
            range: (self.range.0.min(o.range.0), self.range.1.max(o.range.1)),
            sum: Sum {
                total: self.sum.total.wrapping_add(o.sum.total),
                n: self.sum.n + o.sum.n,
            },
            argmax: if o.range.1 > self.range.1 {
                o.argmax
            } else {
                self.argmax
            },
        }
    }
}

#[gtap::function]
fn stats(xs: Slice<u64>, lo: usize, hi: usize) -> Stats {
    if hi - lo == 1 {
        return Stats::leaf(xs.get(lo), lo);
    }
    let mid = (lo + hi) / 2;
    let mut acc = Stats::default();
    acc.sum.n = 0;
    acc.range.0 = u64::MAX;
    let l = task!(stats(xs, lo, mid));
    let r = task!(stats(xs, mid, hi));
    taskwait!();
    acc.range = (l.range.0.min(acc.range.0), l.range.1);
    let merged = l.merge(&r);
    acc.sum.total = merged.sum.total;
    acc.sum.n += merged.sum.n;
    acc.range.1 = merged.range.1;
    acc.range.0 = merged.range.0;
    acc.argmax[0] = merged.argmax[0];
    acc
}

fn seq_stats(xs: &[u64]) -> Stats {
    let mut s = Stats::leaf(xs[0], 0);
    for (i, &x) in xs.iter().enumerate().skip(1) {
        s = s.merge(&Stats::leaf(x, i));
    }
    s
}

// results into nested fields of a struct local
#[gtap::function]
fn into_fields(n: u64) -> Stats {
    let mut s = Stats::default();
    s.sum.total = task!(sq(n));
    s.range.1 = task!(sq(n + 1));
    taskwait!();
    s.argmax[0] = s.range.1 as usize % 7;
    s
}

// ---------------------------------------------------------------------------------------------
// an expression tree stored in an array, enum node kinds

#[derive(Clone, Copy, PartialEq, Debug)]
pub enum Node {
    Lit(i64),
    Neg(u32),
    Add(u32, u32),
    Mul { l: u32, r: u32 },
    Sel { c: u32, t: u32, e: u32 },
}

#[gtap::function]
fn eval(nodes: Slice<Node>, i: u32) -> i64 {
    match nodes.get(i as usize) {
        Node::Lit(v) => v,
        Node::Neg(c) => {
            let v = task!(eval(nodes, c));
            taskwait!();
            v.wrapping_neg()
        }
        Node::Add(a, b) => {
            let x = task!(eval(nodes, a));
            let y = task!(eval(nodes, b));
            taskwait!();
            x.wrapping_add(y)
        }
        Node::Mul { l, r } if l == r => {
            let x = task!(eval(nodes, l));
            taskwait!();
            x.wrapping_mul(x)
        }
        Node::Mul { l, r } => {
            let x = task!(eval(nodes, l));
            let y = task!(eval(nodes, r));
            taskwait!();
            x.wrapping_mul(y)
        }
        Node::Sel { c, t, e } => {
            let cv = task!(eval(nodes, c));
            taskwait!();
            let pick = if cv > 0 { t } else { e };
            let v = task!(eval(nodes, pick));
            taskwait!();
            v
        }
    }
}

fn seq_eval(nodes: &[Node], i: u32) -> i64 {
    match nodes[i as usize] {
        Node::Lit(v) => v,
        Node::Neg(c) => seq_eval(nodes, c).wrapping_neg(),
        Node::Add(a, b) => seq_eval(nodes, a).wrapping_add(seq_eval(nodes, b)),
        Node::Mul { l, r } => seq_eval(nodes, l).wrapping_mul(seq_eval(nodes, r)),
        Node::Sel { c, t, e } => {
            if seq_eval(nodes, c) > 0 {
                seq_eval(nodes, t)
            } else {
                seq_eval(nodes, e)
            }
        }
    }
}

fn gen_tree(seed: &mut u64, nodes: &mut Vec<Node>, depth: u32) -> u32 {
    let k = rng(seed) % 6;
    let node = if depth == 0 || k == 0 {
        Node::Lit((rng(seed) % 21) as i64 - 10)
    } else {
        match k {
            1 => Node::Neg(gen_tree(seed, nodes, depth - 1)),
            2 => Node::Add(
                gen_tree(seed, nodes, depth - 1),
                gen_tree(seed, nodes, depth - 1),
            ),
            3 => {
                let l = gen_tree(seed, nodes, depth - 1);
                let r = if rng(seed).is_multiple_of(2) {
                    l
                } else {
                    gen_tree(seed, nodes, depth - 1)
                };
                Node::Mul { l, r }
            }
            _ => Node::Sel {
                c: gen_tree(seed, nodes, depth - 1),
                t: gen_tree(seed, nodes, depth - 1),
                e: gen_tree(seed, nodes, depth - 1),
            },
        }
    };
    nodes.push(node);
    (nodes.len() - 1) as u32
}

// ---------------------------------------------------------------------------------------------
// tuple / array / nested results

#[gtap::function]
fn parts(x: u64) -> ([u64; 3], (bool, char), Option<(u8, i64)>) {
    let c = char::from_u32(('a' as u32) + (x % 26) as u32).unwrap_or('?');
    let o = if x % 3 == 0 {
        None
    } else {
        Some(((x % 251) as u8, -(x as i64)))
    };
    ([x, x * 2, x * 3], (x % 2 == 0, c), o)
}

#[gtap::function]
fn combine(n: u64) -> (u64, char, i64) {
    let a = task!(parts(n));
    let b = task!(parts(n + 1));
    taskwait!();
    let ([a0, _, a2], (even, ch)) = (a.0, a.1);
    let neg = match (a.2, b.2) {
        (Some((_, x)), Some((_, y))) => x + y,
        (Some((k, _)), None) | (None, Some((k, _))) => k as i64,
        (None, None) => 0,
    };
    let s = a0 + a2 + b.0.iter().sum::<u64>() + if even { 100 } else { 0 };
    (s, if b.1 .0 { ch } else { b.1 .1 }, neg)
}

type Parts = ([u64; 3], (bool, char), Option<(u8, i64)>);

fn seq_parts(x: u64) -> Parts {
    let c = char::from_u32(('a' as u32) + (x % 26) as u32).unwrap_or('?');
    let o = if x.is_multiple_of(3) {
        None
    } else {
        Some(((x % 251) as u8, -(x as i64)))
    };
    ([x, x * 2, x * 3], (x.is_multiple_of(2), c), o)
}

fn seq_combine(n: u64) -> (u64, char, i64) {
    let a = seq_parts(n);
    let b = seq_parts(n + 1);
    let ([a0, _, a2], (even, ch)) = (a.0, a.1);
    let neg = match (a.2, b.2) {
        (Some((_, x)), Some((_, y))) => x + y,
        (Some((k, _)), None) | (None, Some((k, _))) => k as i64,
        (None, None) => 0,
    };
    let s = a0 + a2 + b.0.iter().sum::<u64>() + if even { 100 } else { 0 };
    (s, if b.1 .0 { ch } else { b.1 .1 }, neg)
}

// ---------------------------------------------------------------------------------------------
// many arguments of many scalar types

#[allow(clippy::too_many_arguments)]
#[gtap::function]
fn wide(
    a: u8,
    b: i64,
    c: f32,
    d: f64,
    e: bool,
    f: char,
    g: i8,
    h: u16,
    i: isize,
    j: u128,
    depth: u32,
) -> f64 {
    if depth == 0 {
        let t = if e { 1.0 } else { -1.0 };
        return a as f64
            + b as f64
            + c as f64 * t
            + d
            + f as u32 as f64
            + g as f64
            + h as f64
            + i as f64
            + (j % 1000) as f64;
    }
    let x = task!(wide(
        a.wrapping_add(1),
        b - 3,
        c * 0.5,
        d + 0.25,
        !e,
        f,
        g.wrapping_sub(5),
        h ^ 0xff,
        i - 1,
        j.wrapping_mul(3),
        depth - 1
    ));
    let y = task!(wide(a, b, c, d, e, 'z', g, h, i, j, depth - 1));
    taskwait!();
    x * 0.5 + y * 0.25 + if e { c as f64 } else { d }
}

#[allow(clippy::too_many_arguments)]
fn seq_wide(
    a: u8,
    b: i64,
    c: f32,
    d: f64,
    e: bool,
    f: char,
    g: i8,
    h: u16,
    i: isize,
    j: u128,
    depth: u32,
) -> f64 {
    if depth == 0 {
        let t = if e { 1.0 } else { -1.0 };
        return a as f64
            + b as f64
            + c as f64 * t
            + d
            + f as u32 as f64
            + g as f64
            + h as f64
            + i as f64
            + (j % 1000) as f64;
    }
    let x = seq_wide(
        a.wrapping_add(1),
        b - 3,
        c * 0.5,
        d + 0.25,
        !e,
        f,
        g.wrapping_sub(5),
        h ^ 0xff,
        i - 1,
        j.wrapping_mul(3),
        depth - 1,
    );
    let y = seq_wide(a, b, c, d, e, 'z', g, h, i, j, depth - 1);
    x * 0.5 + y * 0.25 + if e { c as f64 } else { d }
}

program!(
    R3 = [
        sq,
        queens,
        find,
        stats,
        into_fields,
        eval,
        parts,
        combine,
        wide,
    ]
);

#[test]
fn queens_with_limit() {
    for n in 1..=7u32 {
        for limit in [1u64, 3, 1000] {
            check::<R3, _>(
                queens,
                (n, 0, 0, 0, 0, limit),
                seq_queens(n, 0, 0, 0, 0, limit),
            );
        }
    }
}

#[test]
fn find_early_out() {
    let mut seed = 0x9e37_79b9_7f4a_7c15u64;
    for len in [1usize, 5, 17, 100] {
        let mut v: Vec<u64> = (0..len).map(|_| rng(&mut seed) % 50).collect();
        // SAFETY: v outlives the runs and nothing writes it meanwhile.
        let s = unsafe { Slice::from_raw_parts(v.as_mut_ptr(), v.len()) };
        for target in [0u64, 7, 49, 1000] {
            let want = v.iter().position(|&x| x == target);
            check::<R3, _>(find, (s, 0, len, target), want);
        }
    }
}

#[test]
fn struct_of_results() {
    let mut seed = 7u64;
    for len in [1usize, 2, 3, 31, 200] {
        let mut v: Vec<u64> = (0..len).map(|_| rng(&mut seed) % 1000).collect();
        let want = seq_stats(&v);
        // SAFETY: v outlives the run and nothing writes it meanwhile.
        let s = unsafe { Slice::from_raw_parts(v.as_mut_ptr(), v.len()) };
        check::<R3, _>(stats, (s, 0, len), want);
    }
    for n in [0u64, 3, 10] {
        let mut s = Stats::default();
        s.sum.total = n * n;
        s.range.1 = (n + 1) * (n + 1);
        s.argmax[0] = s.range.1 as usize % 7;
        check::<R3, _>(into_fields, (n,), s);
    }
}

#[test]
fn expression_trees_in_arrays() {
    let mut seed = 12345u64;
    for depth in [0u32, 1, 3, 6, 8] {
        for _ in 0..4 {
            let mut nodes = Vec::new();
            let root = gen_tree(&mut seed, &mut nodes, depth);
            let want = seq_eval(&nodes, root);
            // SAFETY: nodes outlives the run and nothing writes it meanwhile.
            let s = unsafe { Slice::from_raw_parts(nodes.as_mut_ptr(), nodes.len()) };
            check::<R3, _>(eval, (s, root), want);
        }
    }
}

#[test]
fn tuple_array_results() {
    for n in 0..12u64 {
        check::<R3, _>(combine, (n,), seq_combine(n));
    }
}

#[test]
fn many_scalar_arguments() {
    for depth in 0..4 {
        let args = (
            250u8,
            -7i64,
            1.5f32,
            2.25f64,
            true,
            'q',
            -100i8,
            513u16,
            -3isize,
            u128::MAX - 5,
            depth,
        );
        let want = seq_wide(
            args.0, args.1, args.2, args.3, args.4, args.5, args.6, args.7, args.8, args.9, args.10,
        );
        check::<R3, _>(wide, args, want);
    }
}

// ---------------------------------------------------------------------------------------------
// assignment (not `let`) of constructs with joins, `return match`, closures across joins

#[gtap::function]
fn assign_construct(n: u64, c: bool) -> u64 {
    let mut x = 1u64;
    let add = |a: u64, b: u64| a.wrapping_add(b);
    let k = n % 5;
    let scale = move |v: u64| v * (k + 1);
    x = if c {
        let r = task!(sq(n));
        taskwait!();
        add(r, x)
    } else {
        x + 2
    };
    let y = {
        let r = task!(sq(x % 100));
        taskwait!();
        scale(r)
    };
    let label = 'blk: {
        if y % 3 == 0 {
            break 'blk 10;
        }
        let r = task!(sq(y % 7));
        taskwait!();
        if r > 10 {
            break 'blk r;
        }
        r + 1
    };
    add(scale(x), y) ^ label
}

fn seq_assign_construct(n: u64, c: bool) -> u64 {
    let mut x = 1u64;
    let add = |a: u64, b: u64| a.wrapping_add(b);
    let k = n % 5;
    let scale = move |v: u64| v * (k + 1);
    x = if c { add(n * n, x) } else { x + 2 };
    let y = scale((x % 100) * (x % 100));
    let label = 'blk: {
        if y % 3 == 0 {
            break 'blk 10;
        }
        let r = (y % 7) * (y % 7);
        if r > 10 {
            break 'blk r;
        }
        r + 1
    };
    add(scale(x), y) ^ label
}

// let-else around joins, nested if let / else if let with joins in every branch
#[gtap::function]
fn lets(a: Option<u64>, b: Result<u64, u8>) -> u64 {
    let Some(v) = a else {
        let r = task!(sq(7));
        taskwait!();
        return r;
    };
    let w = task!(sq(v));
    taskwait!();
    let Ok(e) = b else {
        return w + 1;
    };
    let out = if let Some(q) = a.filter(|q| *q > 10) {
        let r = task!(sq(q + e));
        taskwait!();
        r
    } else if let Ok(3) = b {
        let r = task!(sq(e * 3));
        let s = task!(sq(w % 11));
        taskwait!();
        r + s
    } else if let (Some(x), Ok(y)) = (a, b) {
        let r = task!(sq(x ^ y));
        taskwait!();
        r * 2
    } else {
        0
    };
    out + w
}

fn seq_lets(a: Option<u64>, b: Result<u64, u8>) -> u64 {
    let Some(v) = a else {
        return 49;
    };
    let w = v * v;
    let Ok(e) = b else {
        return w + 1;
    };
    let out = if let Some(q) = a.filter(|q| *q > 10) {
        (q + e) * (q + e)
    } else if let Ok(3) = b {
        (e * 3) * (e * 3) + (w % 11) * (w % 11)
    } else if let (Some(x), Ok(y)) = (a, b) {
        (x ^ y) * (x ^ y) * 2
    } else {
        0
    };
    out + w
}

// shadowing across joins in several ways
#[gtap::function]
fn shadows(a: u64, mut b: u64) -> u64 {
    let a = task!(sq(a));
    taskwait!();
    let a = a + 1;
    let b0 = b;
    b += a;
    let c = {
        let inner = task!(sq(a % 10));
        taskwait!();
        inner + b
    };
    let mut s = 0;
    for i in 0..3u64 {
        let i = i * 2;
        let t = task!(sq(i + a % 3));
        taskwait!();
        let i = i + t;
        s += i;
    }
    let s = s;
    let r = task!(sq(s % 17));
    taskwait!();
    let r = r;
    a + b + c + s + r + b0
}

fn seq_shadows(a: u64, mut b: u64) -> u64 {
    let a = a * a;
    let a = a + 1;
    let b0 = b;
    b += a;
    let c = {
        let a = (a % 10) * (a % 10);
        a + b
    };
    let mut s = 0;
    for i in 0..3u64 {
        let i = i * 2;
        let a = (i + a % 3) * (i + a % 3);
        let i = i + a;
        s += i;
    }
    let r = (s % 17) * (s % 17);
    a + b + c + s + r + b0
}

// match guards reading task results; return of a task result from inside a match in a loop
#[gtap::function]
fn guards(n: u64) -> u64 {
    let mut acc = 0u64;
    let mut i = 0;
    loop {
        let r = task!(sq(i + n));
        taskwait!();
        match r % 10 {
            d if d == 0 && i > 0 => return r + acc,
            d if d < 3 => {
                let t = task!(sq(d));
                taskwait!();
                acc += t;
            }
            5 | 6 => acc ^= r,
            _ if acc > 1000 => break,
            _ => acc += 1,
        }
        i += 1;
        if i > 40 {
            break;
        }
    }
    acc
}

fn seq_guards(n: u64) -> u64 {
    let mut acc = 0u64;
    let mut i = 0;
    loop {
        let r = (i + n) * (i + n);
        match r % 10 {
            d if d == 0 && i > 0 => return r + acc,
            d if d < 3 => acc += d * d,
            5 | 6 => acc ^= r,
            _ if acc > 1000 => break,
            _ => acc += 1,
        }
        i += 1;
        if i > 40 {
            break;
        }
    }
    acc
}

// inclusive ranges up to the end of the type, rev to 0, step_by near the end; `_` patterns
#[gtap::function]
fn edges(lo: u8) -> u64 {
    let mut s = 0u64;
    for i in lo..=255u8 {
        let r = task!(sq(i as u64));
        taskwait!();
        s = s.wrapping_add(r);
    }
    for i in (0..=lo).rev() {
        let r = task!(sq(i as u64 + 1));
        taskwait!();
        s ^= r;
    }
    for i in (lo..=255u8).step_by(7) {
        let r = task!(sq(i as u64));
        taskwait!();
        s = s.wrapping_mul(3).wrapping_add(r);
    }
    for _ in 0..3 {
        let r = task!(sq(s % 9));
        taskwait!();
        s += r;
    }
    for (j, k) in [(1u64, 2u64), (3, 4)] {
        task!(sq(j + k));
    }
    taskwait!();
    s
}

fn seq_edges(lo: u8) -> u64 {
    let mut s = 0u64;
    for i in lo..=255u8 {
        s = s.wrapping_add(i as u64 * i as u64);
    }
    for i in (0..=lo).rev() {
        s ^= (i as u64 + 1) * (i as u64 + 1);
    }
    for i in (lo..=255u8).step_by(7) {
        s = s.wrapping_mul(3).wrapping_add(i as u64 * i as u64);
    }
    for _ in 0..3 {
        s += (s % 9) * (s % 9);
    }
    s
}

// wrapping / checked / overflowing ops with `?` on Option
#[gtap::function]
fn checked(x: u32, d: u32) -> Option<u32> {
    if d == 0 {
        return x.checked_mul(x);
    }
    let a = task!(checked(x.wrapping_add(d), d - 1));
    let b = task!(checked(x / 2, d - 1));
    taskwait!();
    let (p, over) = a?.overflowing_mul(3);
    let q = b?.checked_add(if over { 1 } else { 0 })?;
    p.checked_add(q).or(Some(p.wrapping_sub(q)))
}

fn seq_checked(x: u32, d: u32) -> Option<u32> {
    if d == 0 {
        return x.checked_mul(x);
    }
    let a = seq_checked(x.wrapping_add(d), d - 1);
    let b = seq_checked(x / 2, d - 1);
    let (p, over) = a?.overflowing_mul(3);
    let q = b?.checked_add(if over { 1 } else { 0 })?;
    p.checked_add(q).or(Some(p.wrapping_sub(q)))
}

// a helper struct with methods (&self, &mut self, self) used across joins
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Walker {
    pos: i32,
    steps: u32,
}

impl Walker {
    fn step(&mut self, by: i32) {
        self.pos += by;
        self.steps += 1;
    }
    fn score(&self) -> u64 {
        (self.pos.unsigned_abs() as u64) * 10 + self.steps as u64
    }
    fn done(self, lim: u32) -> bool {
        self.steps >= lim
    }
}

#[gtap::function]
fn walk(w: Walker, lim: u32) -> u64 {
    let mut w = w;
    let mut total = 0;
    while !w.done(lim) {
        let s = task!(sq(w.score() % 50));
        taskwait!();
        w.step(if s % 2 == 0 { 1 } else { -2 });
        total += s;
    }
    total + w.score()
}

fn seq_walk(w: Walker, lim: u32) -> u64 {
    let mut w = w;
    let mut total = 0;
    while !w.done(lim) {
        let s = (w.score() % 50) * (w.score() % 50);
        w.step(if s.is_multiple_of(2) { 1 } else { -2 });
        total += s;
    }
    total + w.score()
}

/// Task functions in modules, spawned through `self::`, `super::` and `crate::` paths.
pub mod deep {
    pub mod inner {
        /// Doc comment on a task function.
        #[gtap::function]
        #[allow(clippy::needless_return)]
        pub fn leaf(x: u64) -> u64 {
            return x + 1;
        }
    }

    #[gtap::function]
    pub fn mid(x: u64) -> u64 {
        let a = task!(self::inner::leaf(x));
        let b = task!(inner::leaf(x * 2));
        let c = task!(super::sq(x));
        let d = task!(crate::deep::inner::leaf(3));
        taskwait!();
        a + b + c + d
    }
}

#[gtap::function]
fn top(x: u64) -> u64 {
    let m = task!(deep::mid(x));
    let l = task!(crate::deep::inner::leaf(x));
    taskwait!();
    m * l
}

program!(
    R3b = [
        sq,
        assign_construct,
        lets,
        shadows,
        guards,
        edges,
        checked,
        walk,
        deep::inner::leaf,
        deep::mid,
        top,
    ]
);

#[test]
fn assignment_of_constructs_and_closures() {
    for n in 0..20u64 {
        for c in [false, true] {
            check::<R3b, _>(assign_construct, (n, c), seq_assign_construct(n, c));
        }
    }
}

#[test]
fn let_else_and_if_let_chains() {
    for a in [None, Some(0u64), Some(3), Some(11), Some(40)] {
        for b in [Err(1u8), Ok(3u64), Ok(0), Ok(9)] {
            check::<R3b, _>(lets, (a, b), seq_lets(a, b));
        }
    }
}

#[test]
fn shadowing_across_joins() {
    for a in 0..6u64 {
        for b in [0u64, 5, 99] {
            check::<R3b, _>(shadows, (a, b), seq_shadows(a, b));
        }
    }
}

#[test]
fn match_guards_and_returns_in_loops() {
    for n in 0..30u64 {
        check::<R3b, _>(guards, (n,), seq_guards(n));
    }
}

#[test]
fn range_edges() {
    for lo in [0u8, 1, 200, 254, 255] {
        check::<R3b, _>(edges, (lo,), seq_edges(lo));
    }
}

#[test]
fn checked_arithmetic() {
    let mut seed = 99u64;
    for _ in 0..20 {
        let x = rng(&mut seed) as u32;
        let d = (rng(&mut seed) % 4) as u32;
        check::<R3b, _>(checked, (x, d), seq_checked(x, d));
    }
    check::<R3b, _>(checked, (70000, 0), None);
}

#[test]
fn helper_methods() {
    for lim in [0u32, 1, 7, 30] {
        let w = Walker { pos: -3, steps: 0 };
        check::<R3b, _>(walk, (w, lim), seq_walk(w, lim));
    }
}

#[test]
fn module_paths() {
    for x in [0u64, 5] {
        let m = (x + 1) + (2 * x + 1) + x * x + 4;
        check::<R3b, _>(top, (x,), m * (x + 1));
    }
}

// ---------------------------------------------------------------------------------------------
// the forms above in more positions: compound and field assignment of constructs with joins,
// tasks as the values of an assigned `if`, `return match`, `let .. else` in loops

#[derive(Clone, Copy, Default, PartialEq, Debug)]
pub struct Pt {
    x: u64,
    y: [u64; 2],
}

#[gtap::function]
fn assigns(n: u64) -> u64 {
    let mut p = Pt::default();
    let mut t = 3u64;
    t += match n % 3 {
        0 => {
            let r = task!(sq(n));
            taskwait!();
            r
        }
        1 => 5,
        _ => loop {
            let r = task!(sq(t));
            taskwait!();
            if r > 50 {
                break r;
            }
            t += 1;
        },
    };
    p.y[1] = if n > 4 {
        let r = task!(sq(n + t));
        taskwait!();
        r % 1000
    } else {
        t
    };
    p.x ^= {
        let a = task!(sq(p.y[1]));
        let b = task!(sq(t));
        taskwait!();
        a.wrapping_add(b)
    };
    let mut v = n;
    let v0 = v;
    v = if n % 2 == 0 {
        task!(sq(p.x % 77))
    } else {
        task!(sq(t % 5))
    };
    taskwait!();
    v += v0;
    let mut w = 1;
    w = match n % 4 {
        0 => task!(sq(v % 10)),
        1 => w + 1,
        _ => {
            let r = task!(sq(w + n));
            taskwait!();
            r
        }
    };
    taskwait!();
    v + w + p.x + p.y[0] + p.y[1] + t
}

fn seq_assigns(n: u64) -> u64 {
    let mut p = Pt::default();
    let mut t = 3u64;
    t += match n % 3 {
        0 => n * n,
        1 => 5,
        _ => loop {
            let r = t * t;
            if r > 50 {
                break r;
            }
            t += 1;
        },
    };
    p.y[1] = if n > 4 { ((n + t) * (n + t)) % 1000 } else { t };
    p.x ^= (p.y[1] * p.y[1]).wrapping_add(t * t);
    let v = n + if n.is_multiple_of(2) {
        (p.x % 77) * (p.x % 77)
    } else {
        (t % 5) * (t % 5)
    };
    let mut w = 1;
    w = match n % 4 {
        0 => (v % 10) * (v % 10),
        1 => w + 1,
        _ => (w + n) * (w + n),
    };
    v + w + p.x + p.y[0] + p.y[1] + t
}

#[gtap::function]
fn ret_match(n: u64, o: Option<(u64, u64)>) -> u64 {
    if n > 100 {
        return n;
    }
    let base = task!(sq(n));
    taskwait!();
    return match o {
        Some((a, b)) if a > b => {
            let r = task!(sq(a - b));
            taskwait!();
            r + base
        }
        Some((a, _)) => a + base,
        None => {
            let mut acc = base;
            for i in 0..3 {
                let r = task!(sq(i));
                taskwait!();
                acc += r;
            }
            acc
        }
    };
}

fn seq_ret_match(n: u64, o: Option<(u64, u64)>) -> u64 {
    if n > 100 {
        return n;
    }
    let base = n * n;
    match o {
        Some((a, b)) if a > b => (a - b) * (a - b) + base,
        Some((a, _)) => a + base,
        None => base + 1 + 4,
    }
}

#[gtap::function]
fn else_loop(xs: [Option<(u8, u64)>; 5]) -> u64 {
    let mut acc = 0u64;
    let mut i = 0;
    while i < 5 {
        let j = i;
        i += 1;
        let Some((mut k, v)) = xs[j] else {
            let r = task!(sq(j as u64 + 1));
            taskwait!();
            acc += r;
            continue;
        };
        k = k.wrapping_add(1);
        let [lo, hi, 0] = [v % 10, v / 10, v / 1000] else {
            unreachable!()
        };
        let Some(q) = (if k > 3 {
            let r = task!(sq(lo + k as u64));
            taskwait!();
            Some(r)
        } else {
            None
        }) else {
            let r = task!(sq(hi));
            taskwait!();
            acc ^= r;
            if hi > 50 {
                break;
            }
            continue;
        };
        acc += q;
    }
    let Ok(done) = u8::try_from(acc % 300) else {
        let r = task!(sq(acc % 7));
        taskwait!();
        return r;
    };
    acc + done as u64
}

fn seq_else_loop(xs: [Option<(u8, u64)>; 5]) -> u64 {
    let mut acc = 0u64;
    let mut i = 0;
    while i < 5 {
        let j = i;
        i += 1;
        let Some((mut k, v)) = xs[j] else {
            acc += (j as u64 + 1) * (j as u64 + 1);
            continue;
        };
        k = k.wrapping_add(1);
        let (lo, hi) = (v % 10, v / 10);
        let Some(q) = (if k > 3 {
            Some((lo + k as u64) * (lo + k as u64))
        } else {
            None
        }) else {
            acc ^= hi * hi;
            if hi > 50 {
                break;
            }
            continue;
        };
        acc += q;
    }
    let Ok(done) = u8::try_from(acc % 300) else {
        return (acc % 7) * (acc % 7);
    };
    acc + done as u64
}

program!(R3c = [sq, assigns, ret_match, else_loop]);

#[test]
fn constructs_as_assigned_values() {
    for n in 0..16u64 {
        check::<R3c, _>(assigns, (n,), seq_assigns(n));
    }
}

#[test]
fn return_of_a_match_with_joins() {
    for n in [0u64, 4, 101] {
        for o in [None, Some((5u64, 2u64)), Some((2, 5))] {
            check::<R3c, _>(ret_match, (n, o), seq_ret_match(n, o));
        }
    }
}

#[test]
fn let_else_with_joins_in_loops() {
    let mut seed = 4242u64;
    for _ in 0..40 {
        let mut xs = [None; 5];
        for x in &mut xs {
            if !rng(&mut seed).is_multiple_of(3) {
                *x = Some(((rng(&mut seed) % 8) as u8, rng(&mut seed) % 900));
            }
        }
        check::<R3c, _>(else_loop, (xs,), seq_else_loop(xs));
    }
}

// a join before a `panic!()`/`unreachable!()` statement: rustc knows the code after it does not
// run, so the `let` after the `match` reads a value given on every path that completes (before:
// rustc's E0381 on the generated code, which went on after the macro)
#[gtap::function]
fn diverge(n: u64, o: Option<u64>) -> u64 {
    let v = match n {
        0..=100 => n,
        _ => {
            let r = task!(sq(n));
            taskwait!();
            if r > 0 {
                unreachable!("{n} squared is {r}");
            }
            panic!("no value");
        }
    };
    let Some(k) = o else {
        let r = task!(sq(v));
        taskwait!();
        if r % 2 == 0 {
            return r;
        }
        unimplemented!()
    };
    let w = task!(sq(v + k));
    taskwait!();
    w
}

program!(R3d = [sq, diverge]);

#[test]
fn joins_before_diverging_macros() {
    for n in [0u64, 4, 100] {
        check::<R3d, _>(diverge, (n, Some(3)), (n + 3) * (n + 3));
    }
    check::<R3d, _>(diverge, (4, None), 16);
}

// ---------------------------------------------------------------------------------------------
// destructuring assignment across joins, a state machine enum in user code, generic helpers
// with associated consts and where clauses, const-generic array results

#[gtap::function]
fn fib_pair(n: u32) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    let (c, d);
    (c, d) = (n as u64, 2u64);
    let mut i = 0;
    while i < n {
        let s = task!(sq(a % 5));
        taskwait!();
        (a, b) = (b, a.wrapping_add(b).wrapping_add(s % 2));
        [i] = [i + 1];
        Pt { x: _, y: [_, _] } = Pt { x: a, y: [b, 0] };
    }
    let t = task!(sq(c + d));
    taskwait!();
    a ^ t
}

fn seq_fib_pair(n: u32) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        let s = (a % 5) * (a % 5);
        (a, b) = (b, a.wrapping_add(b).wrapping_add(s % 2));
    }
    a ^ ((n as u64 + 2) * (n as u64 + 2))
}

#[derive(Clone, Copy, PartialEq, Debug)]
enum Phase {
    Start(u64),
    Grow { v: u64, round: u8 },
    Shrink(u64),
    Done,
}

#[gtap::function]
fn machine(seed: u64) -> (u64, u8) {
    let mut phase = Phase::Start(seed);
    let mut out = 0u64;
    let mut rounds = 0u8;
    loop {
        phase = match phase {
            Phase::Start(s) => {
                let r = task!(sq(s % 13));
                taskwait!();
                Phase::Grow { v: r, round: 0 }
            }
            Phase::Grow { v, round } if round < 3 => {
                let a = task!(sq(v % 7));
                let b = task!(sq(v % 11));
                taskwait!();
                Phase::Grow {
                    v: v + a + b,
                    round: round + 1,
                }
            }
            Phase::Grow { v, .. } => Phase::Shrink(v),
            Phase::Shrink(v) if v > 10 => {
                let r = task!(sq(v % 3));
                taskwait!();
                out += r;
                Phase::Shrink(v / 4)
            }
            Phase::Shrink(v) => {
                out += v;
                Phase::Done
            }
            Phase::Done => break,
        };
        rounds = rounds.wrapping_add(1);
    }
    (out, rounds)
}

fn seq_machine(seed: u64) -> (u64, u8) {
    let mut phase = Phase::Start(seed);
    let mut out = 0u64;
    let mut rounds = 0u8;
    loop {
        phase = match phase {
            Phase::Start(s) => Phase::Grow {
                v: (s % 13) * (s % 13),
                round: 0,
            },
            Phase::Grow { v, round } if round < 3 => Phase::Grow {
                v: v + (v % 7) * (v % 7) + (v % 11) * (v % 11),
                round: round + 1,
            },
            Phase::Grow { v, .. } => Phase::Shrink(v),
            Phase::Shrink(v) if v > 10 => {
                out += (v % 3) * (v % 3);
                Phase::Shrink(v / 4)
            }
            Phase::Shrink(v) => {
                out += v;
                Phase::Done
            }
            Phase::Done => break,
        };
        rounds = rounds.wrapping_add(1);
    }
    (out, rounds)
}

pub trait Bits: Copy + 'static {
    const WIDTH: u32;
    fn ones(self) -> u32;
    fn zero() -> Self;
}
impl Bits for u16 {
    const WIDTH: u32 = 16;
    fn ones(self) -> u32 {
        self.count_ones()
    }
    fn zero() -> Self {
        0
    }
}
impl Bits for u64 {
    const WIDTH: u32 = 64;
    fn ones(self) -> u32 {
        self.count_ones()
    }
    fn zero() -> Self {
        0
    }
}

#[gtap::function]
fn popcount<T>(xs: Slice<T>, lo: usize, hi: usize) -> (u32, u32)
where
    T: Bits + PartialEq,
{
    if hi - lo <= 2 {
        let mut ones = 0;
        let mut zeros = 0;
        for i in lo..hi {
            let x = xs.get(i);
            ones += x.ones();
            if x == T::zero() {
                zeros += 1;
            }
        }
        return (ones, zeros);
    }
    let mid = lo + (hi - lo) / 2;
    let (l, r);
    l = task!(popcount::<T>(xs, lo, mid));
    r = task!(popcount::<T>(xs, mid, hi));
    taskwait!();
    let width = T::WIDTH;
    let _ = width;
    (l.0 + r.0, l.1 + r.1)
}

#[gtap::function]
fn spread<const N: usize>(x: u64, depth: u32) -> [u64; N] {
    let mut out = [0u64; N];
    if depth == 0 {
        for (i, o) in out.iter_mut().enumerate() {
            *o = x + i as u64;
        }
        return out;
    }
    let mut halves = [[0u64; N]; 2];
    halves[0] = task!(spread::<N>(x * 2, depth - 1));
    halves[1] = task!(spread::<N>(x * 2 + 1, depth - 1));
    taskwait!();
    for i in 0..N {
        out[i] = halves[0][i].wrapping_mul(3) ^ halves[1][i];
    }
    out
}

fn seq_spread<const N: usize>(x: u64, depth: u32) -> [u64; N] {
    let mut out = [0u64; N];
    if depth == 0 {
        for (i, o) in out.iter_mut().enumerate() {
            *o = x + i as u64;
        }
        return out;
    }
    let a = seq_spread::<N>(x * 2, depth - 1);
    let b = seq_spread::<N>(x * 2 + 1, depth - 1);
    for i in 0..N {
        out[i] = a[i].wrapping_mul(3) ^ b[i];
    }
    out
}

// a unit task that returns early after joins, writing through a Slice
#[gtap::function]
fn fill(out: Slice<u64>, lo: usize, hi: usize) {
    if lo >= hi {
        return;
    }
    if hi - lo == 1 {
        let r = task!(sq(lo as u64));
        taskwait!();
        out.set(lo, r);
        return;
    }
    let mid = (lo + hi) / 2;
    task!(fill(out, lo, mid));
    task!(fill(out, mid, hi));
    taskwait!();
    if out.get(lo) == 0 && lo > 0 {
        return;
    }
    out.set(lo, out.get(lo) + 1);
}

program!(
    R3e = [
        sq,
        fib_pair,
        machine,
        popcount::<u16>,
        popcount::<u64>,
        spread::<3>,
        spread::<1>,
        fill,
    ]
);

#[test]
fn destructuring_assignment_across_joins() {
    for n in 0..20 {
        check::<R3e, _>(fib_pair, (n,), seq_fib_pair(n));
    }
}

#[test]
fn user_state_machine() {
    for s in 0..30 {
        check::<R3e, _>(machine, (s,), seq_machine(s));
    }
}

#[test]
fn generic_where_clauses_and_const_generic_results() {
    let mut seed = 31u64;
    for len in [1usize, 2, 9, 50] {
        let mut a: Vec<u16> = (0..len).map(|_| (rng(&mut seed) % 4) as u16).collect();
        let mut b: Vec<u64> = (0..len).map(|_| rng(&mut seed) % 3).collect();
        let wa = (
            a.iter().map(|x| x.count_ones()).sum(),
            a.iter().filter(|&&x| x == 0).count() as u32,
        );
        let wb = (
            b.iter().map(|x| x.count_ones()).sum(),
            b.iter().filter(|&&x| x == 0).count() as u32,
        );
        // SAFETY: a and b outlive the runs and nothing writes them meanwhile.
        let (sa, sb) = unsafe {
            (
                Slice::from_raw_parts(a.as_mut_ptr(), len),
                Slice::from_raw_parts(b.as_mut_ptr(), len),
            )
        };
        check::<R3e, _>(popcount::<u16>, (sa, 0, len), wa);
        check::<R3e, _>(popcount::<u64>, (sb, 0, len), wb);
    }
    for d in 0..5 {
        check::<R3e, _>(spread::<3>, (1, d), seq_spread::<3>(1, d));
        check::<R3e, _>(spread::<1>, (5, d), seq_spread::<1>(5, d));
    }
}

#[test]
fn unit_task_early_returns() {
    for n in [0usize, 1, 2, 7, 33] {
        let mut v = vec![0u64; n];
        // SAFETY: v outlives the run and nothing else touches it meanwhile.
        let s = unsafe { Slice::from_raw_parts(v.as_mut_ptr(), n) };
        gtap::run::<R3e, _>(fill, (s, 0, n)).unwrap();
        let mut want: Vec<u64> = (0..n as u64).map(|i| i * i).collect();
        fn bump(w: &mut [u64], lo: usize, hi: usize) {
            if hi - lo <= 1 {
                return;
            }
            let mid = (lo + hi) / 2;
            bump(w, lo, mid);
            bump(w, mid, hi);
            if w[lo] == 0 && lo > 0 {
                return;
            }
            w[lo] += 1;
        }
        bump(&mut want, 0, n);
        assert_eq!(v, want, "n = {n}");
    }
}

// locals declared without a value before a join and assigned after it, whole or by a
// destructuring assignment (before: rustc's E0282 "type annotations needed" on the `let x;`
// left in the state before the join, and for `(c, d) = ..` also E0381/E0384: the assignment
// was read as a use, so the wait saved `c` before it had a value)
#[gtap::function]
fn late_decls(n: u64) -> u64 {
    let x;
    let (c, d);
    let [e, f]: [u64; 2];
    let r = task!(sq(n));
    taskwait!();
    x = r + 1;
    (c, d) = (r, x * 2);
    let g;
    let mut p = Pt::default();
    [e, f] = [c + 1, d + 1];
    let s = task!(sq(e % 10));
    taskwait!();
    (g, p.x, _) = (s, f, 0u8);
    (p.y[0], [.., p.y[1]]) = (g + 1, [0, 1, x]);
    x + c + d + e + f + g + p.x + p.y[0] + p.y[1]
}

fn seq_late_decls(n: u64) -> u64 {
    let r = n * n;
    let x = r + 1;
    let (c, d) = (r, x * 2);
    let (e, f) = (c + 1, d + 1);
    let g = (e % 10) * (e % 10);
    x + c + d + e + f + g + f + (g + 1) + x
}

program!(R3f = [sq, late_decls]);

#[test]
fn declared_before_a_join_assigned_after() {
    for n in 0..10 {
        check::<R3f, _>(late_decls, (n,), seq_late_decls(n));
    }
}
