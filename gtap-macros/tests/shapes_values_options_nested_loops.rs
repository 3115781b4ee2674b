//! Task functions as a Rust programmer new to gtap writes
//! them (user `Copy` structs, tuples and `[u32; 4]` arrays as arguments and results; `Option`
//! and `Result` results taken apart after a join with `match`, `if let`, `let .. else` and `?`;
//! a `taskwait!()` per loop iteration accumulating, spawns in nested loops with `continue` and
//! `break`, early `return` from a loop after a join, results in `while` conditions; task
//! arguments that are blocks, method calls, casts and calls of plain functions; `bool`, `char`,
//! `u8`, `i8`, `usize` and `isize` results with wrapping, checked and saturating arithmetic;
//! results shadowed in inner blocks; `where` clauses and const generics; doc comments and lint
//! attributes on functions and parameters, `pub(crate)`; `macro_rules!` that write whole task
//! functions; results that are dropped), each on the CPU executor against a plain Rust twin
//! with several inputs.

#![allow(
    clippy::needless_late_init,
    clippy::needless_return,
    clippy::let_and_return,
    clippy::manual_is_multiple_of,
    clippy::collapsible_else_if,
    reason = "the task functions are written as a new user writes them, and the twins follow"
)]

mod common;

use common::check;
use gtap::program;
use std::ops::Add;

#[gtap::function]
fn sq(x: u64) -> u64 {
    x.wrapping_mul(x)
}

fn seq_sq(x: u64) -> u64 {
    x.wrapping_mul(x)
}

// ---------------------------------------------------------------------------------------------
// 1. user structs, tuples and arrays as arguments and results

#[derive(Clone, Copy, Debug, PartialEq, Default)]
struct V2 {
    x: i64,
    y: i64,
}

impl Add for V2 {
    type Output = V2;
    fn add(self, o: V2) -> V2 {
        V2 {
            x: self.x + o.x,
            y: self.y + o.y,
        }
    }
}

impl V2 {
    fn scaled(self, k: i64) -> V2 {
        V2 {
            x: self.x * k,
            y: self.y * k,
        }
    }
    fn norm1(&self) -> i64 {
        self.x.abs() + self.y.abs()
    }
}

/// Sums `v` rotated by a quarter turn `depth` times over a binary tree of children; the
/// results are added with the user's `Add` impl after the join.
#[gtap::function]
fn spin_sum(v: V2, depth: u32) -> V2 {
    if depth == 0 {
        return v;
    }
    let turned = V2 { x: -v.y, y: v.x };
    let a = task!(spin_sum(turned, depth - 1));
    let b = task!(spin_sum(v.scaled(2), depth - 1));
    taskwait!();
    a + b
        + V2 {
            x: 1,
            ..Default::default()
        }
}

fn seq_spin_sum(v: V2, depth: u32) -> V2 {
    if depth == 0 {
        return v;
    }
    let turned = V2 { x: -v.y, y: v.x };
    seq_spin_sum(turned, depth - 1) + seq_spin_sum(v.scaled(2), depth - 1) + V2 { x: 1, y: 0 }
}

/// Struct results read field by field and through a `&self` method, struct literal arguments.
#[gtap::function]
fn struct_fields(n: i64) -> i64 {
    let p = task!(spin_sum(V2 { x: n, y: 1 - n }, 2));
    let q = task!(spin_sum(
        V2 {
            y: n,
            ..V2::default()
        },
        1
    ));
    taskwait!();
    let V2 { x, y: py } = p;
    x * 3 - py + q.norm1() + p.norm1()
}

fn seq_struct_fields(n: i64) -> i64 {
    let p = seq_spin_sum(V2 { x: n, y: 1 - n }, 2);
    let q = seq_spin_sum(V2 { x: 0, y: n }, 1);
    p.x * 3 - p.y + q.norm1() + p.norm1()
}

/// A tuple argument and a tuple result: min and max over `lo..hi` of `f`, split in halves.
#[gtap::function]
fn min_max(range: (u64, u64)) -> (u64, u64) {
    let (lo, hi) = range;
    if hi - lo <= 2 {
        let mut m = (u64::MAX, 0);
        for i in lo..hi {
            let v = (i * 7919) % 97;
            m = (m.0.min(v), m.1.max(v));
        }
        return m;
    }
    let mid = lo + (hi - lo) / 2;
    let left = task!(min_max((lo, mid)));
    let right = task!(min_max((mid, hi)));
    taskwait!();
    (left.0.min(right.0), left.1.max(right.1))
}

fn seq_min_max(lo: u64, hi: u64) -> (u64, u64) {
    (lo..hi)
        .map(|i| (i * 7919) % 97)
        .fold((u64::MAX, 0), |m, v| (m.0.min(v), m.1.max(v)))
}

/// A nested tuple result destructured by a `match` with guards after the join.
#[gtap::function]
fn tuple_match(n: u64) -> u64 {
    let r = task!(min_max((n, n + 9)));
    let t = task!(min_max((0, n + 3)));
    taskwait!();
    match ((r.0, r.1), t) {
        ((0, hi), _) => hi,
        ((lo, hi), (tl, _)) if lo + tl > 50 => hi - lo,
        ((lo, _), (_, th)) => lo * 1000 + th,
    }
}

fn seq_tuple_match(n: u64) -> u64 {
    let r = seq_min_max(n, n + 9);
    let t = seq_min_max(0, n + 3);
    match ((r.0, r.1), t) {
        ((0, hi), _) => hi,
        ((lo, hi), (tl, _)) if lo + tl > 50 => hi - lo,
        ((lo, _), (_, th)) => lo * 1000 + th,
    }
}

/// `[u32; 4]` as argument and result: rotate left by `k`, then add one to each lane, in a
/// chain of children.
#[gtap::function]
fn rotate_add(a: [u32; 4], k: u32) -> [u32; 4] {
    if k == 0 {
        return a;
    }
    let mut b = a;
    b.rotate_left(1);
    for lane in b.iter_mut() {
        *lane = lane.wrapping_add(1);
    }
    let r = task!(rotate_add(b, k - 1));
    taskwait!();
    r
}

fn seq_rotate_add(a: [u32; 4], k: u32) -> [u32; 4] {
    let mut b = a;
    for _ in 0..k {
        b.rotate_left(1);
        for lane in b.iter_mut() {
            *lane = lane.wrapping_add(1);
        }
    }
    b
}

/// Arrays of results indexed and iterated after the join, array literal and repeat arguments.
#[gtap::function]
fn lanes(n: u32) -> u64 {
    let a = task!(rotate_add([n, 1, 2, 3], n % 5));
    let b = task!(rotate_add([n; 4], 2));
    taskwait!();
    let mut total = 0u64;
    for (i, v) in a.iter().enumerate() {
        total += u64::from(*v) * (i as u64 + 1);
    }
    total + u64::from(b[3]) + b.iter().map(|&v| u64::from(v)).max().unwrap_or(0)
}

fn seq_lanes(n: u32) -> u64 {
    let a = seq_rotate_add([n, 1, 2, 3], n % 5);
    let b = seq_rotate_add([n; 4], 2);
    let mut total = 0u64;
    for (i, v) in a.iter().enumerate() {
        total += u64::from(*v) * (i as u64 + 1);
    }
    total + u64::from(b[3]) + b.iter().map(|&v| u64::from(v)).max().unwrap_or(0)
}

/// A type alias for the result, and a tuple struct of arrays.
type Counts = ([u8; 3], bool);

#[gtap::function]
fn digit_counts(n: u64) -> Counts {
    if n < 10 {
        let mut c = [0u8; 3];
        c[(n % 3) as usize] = 1;
        return (c, n % 2 == 0);
    }
    let hi = task!(digit_counts(n / 10));
    let lo = task!(digit_counts(n % 10));
    taskwait!();
    let mut c = hi.0;
    for i in 0..3 {
        c[i] += lo.0[i];
    }
    (c, hi.1 && lo.1)
}

fn seq_digit_counts(n: u64) -> Counts {
    let mut c = [0u8; 3];
    let mut all_even = true;
    for d in n.to_string().bytes().map(|b| u64::from(b - b'0')) {
        c[(d % 3) as usize] += 1;
        all_even &= d % 2 == 0;
    }
    (c, all_even)
}

// ---------------------------------------------------------------------------------------------
// 2. small scalar results: bool, char, u8, i8, usize, isize

#[gtap::function]
fn is_prime(n: u64) -> bool {
    if n < 2 {
        return false;
    }
    let mut d = 2;
    while d * d <= n {
        if n % d == 0 {
            return false;
        }
        d += 1;
    }
    true
}

fn seq_is_prime(n: u64) -> bool {
    n >= 2 && (2..).take_while(|d| d * d <= n).all(|d| n % d != 0)
}

/// `bool` results combined with `&&`, `||`, `!`, `^` and used as `if` conditions.
#[gtap::function]
fn twin_primes(n: u64) -> u8 {
    let a = task!(is_prime(n));
    let b = task!(is_prime(n + 2));
    let c = task!(is_prime(n + 4));
    taskwait!();
    let mut score = 0u8;
    if a && b {
        score += 4;
    }
    if !c || a ^ b {
        score += 2;
    }
    score + u8::from(a | c)
}

fn seq_twin_primes(n: u64) -> u8 {
    let (a, b, c) = (seq_is_prime(n), seq_is_prime(n + 2), seq_is_prime(n + 4));
    let mut score = 0u8;
    if a && b {
        score += 4;
    }
    if !c || a ^ b {
        score += 2;
    }
    score + u8::from(a | c)
}

#[gtap::function]
fn hex_digit(v: u8) -> char {
    char::from_digit(u32::from(v % 16), 16).unwrap_or('?')
}

/// `char` results pushed into a `[char; 4]` and compared.
#[gtap::function]
fn hex4(n: u16) -> u64 {
    let mut out = ['0'; 4];
    for i in 0..4 {
        out[i] = task!(hex_digit((n >> (12 - 4 * i)) as u8));
    }
    taskwait!();
    let mut h = 0u64;
    for c in out {
        h = h * 31 + u64::from(c as u32);
        if c.is_ascii_alphabetic() {
            h += 1000;
        }
    }
    h
}

fn seq_hex4(n: u16) -> u64 {
    let mut h = 0u64;
    for c in format!("{n:04x}").chars() {
        h = h * 31 + u64::from(c as u32);
        if c.is_ascii_alphabetic() {
            h += 1000;
        }
    }
    h
}

#[gtap::function]
fn byte_mix(a: u8, b: i8) -> i8 {
    (a as i8).wrapping_sub(b).wrapping_mul(3)
}

fn seq_byte_mix(a: u8, b: i8) -> i8 {
    (a as i8).wrapping_sub(b).wrapping_mul(3)
}

/// `u8`/`i8` results with wrapping, checked and saturating arithmetic after the join.
#[gtap::function]
fn small_arith(a: u8, b: i8) -> i32 {
    let x = task!(byte_mix(a, b));
    let y = task!(byte_mix(a.wrapping_add(100), b.saturating_neg()));
    taskwait!();
    let s = x.saturating_add(y);
    let w = x.wrapping_add(y);
    let c = match x.checked_mul(y) {
        Some(v) => i32::from(v),
        None => -1,
    };
    i32::from(s) * 1000 + i32::from(w) + c + i32::from(x.abs_diff(y))
}

fn seq_small_arith(a: u8, b: i8) -> i32 {
    let x = seq_byte_mix(a, b);
    let y = seq_byte_mix(a.wrapping_add(100), b.saturating_neg());
    let s = x.saturating_add(y);
    let w = x.wrapping_add(y);
    let c = match x.checked_mul(y) {
        Some(v) => i32::from(v),
        None => -1,
    };
    i32::from(s) * 1000 + i32::from(w) + c + i32::from(x.abs_diff(y))
}

/// `usize` results used as indexes, `isize` results with `signum` and `unsigned_abs`.
#[gtap::function]
fn count_below(xs: [u16; 6], t: u16) -> usize {
    xs.iter().filter(|&&x| x < t).count()
}

#[gtap::function]
fn offset(a: usize, b: usize) -> isize {
    a as isize - b as isize
}

#[gtap::function]
fn index_math(t: u16) -> u64 {
    let xs = [9u16, 3, 14, 1, 5, 11];
    let k = task!(count_below(xs, t));
    let d = task!(offset(t as usize, 7));
    taskwait!();
    let picked = xs[k % xs.len()];
    let j = task!(offset(k, xs.len()));
    taskwait!();
    u64::from(picked) * 100 + d.unsigned_abs() as u64 * 10 + (d.signum() + 1) as u64 - j as u64 % 3
}

fn seq_index_math(t: u16) -> u64 {
    let xs = [9u16, 3, 14, 1, 5, 11];
    let k = xs.iter().filter(|&&x| x < t).count();
    let d = t as isize - 7;
    let picked = xs[k % xs.len()];
    let j = k as isize - xs.len() as isize;
    u64::from(picked) * 100 + d.unsigned_abs() as u64 * 10 + (d.signum() + 1) as u64 - j as u64 % 3
}

/// `checked_*` and `saturating_*` straight on `u64` results, `?` on a `checked_*` of one.
#[gtap::function]
fn careful(a: u64, b: u64) -> Option<u64> {
    let x = task!(sq(a));
    let y = task!(sq(b));
    taskwait!();
    let d = x.checked_sub(y)?;
    let s = x.saturating_mul(y);
    Some(d.wrapping_add(s % 1_000_003).rotate_left(3))
}

fn seq_careful(a: u64, b: u64) -> Option<u64> {
    let x = seq_sq(a);
    let y = seq_sq(b);
    let d = x.checked_sub(y)?;
    let s = x.saturating_mul(y);
    Some(d.wrapping_add(s % 1_000_003).rotate_left(3))
}

// ---------------------------------------------------------------------------------------------
// 3. `Option` and `Result` results taken apart after a join

#[derive(Clone, Copy, Debug, PartialEq)]
enum ParseErr {
    Empty,
    Bad(u8),
}

/// Parses a decimal number packed as bytes in a `u64` (least significant byte first, zero
/// terminated).
#[gtap::function]
fn parse_packed(p: u64) -> Result<u32, ParseErr> {
    if p & 0xff == 0 {
        return Err(ParseErr::Empty);
    }
    let mut v = 0u32;
    let mut q = p;
    while q & 0xff != 0 {
        let b = (q & 0xff) as u8;
        if !b.is_ascii_digit() {
            return Err(ParseErr::Bad(b));
        }
        v = v * 10 + u32::from(b - b'0');
        q >>= 8;
    }
    Ok(v)
}

fn pack(s: &str) -> u64 {
    s.bytes()
        .take(8)
        .enumerate()
        .fold(0, |acc, (i, b)| acc | (u64::from(b) << (8 * i)))
}

fn seq_parse(s: &str) -> Result<u32, ParseErr> {
    if s.is_empty() {
        return Err(ParseErr::Empty);
    }
    let mut v = 0u32;
    for b in s.bytes() {
        if !b.is_ascii_digit() {
            return Err(ParseErr::Bad(b));
        }
        v = v * 10 + u32::from(b - b'0');
    }
    Ok(v)
}

/// `match` on a `Result` result with arms that spawn again, `if let` on another.
#[gtap::function]
fn parse_both(a: u64, b: u64) -> u64 {
    let x = task!(parse_packed(a));
    let y = task!(parse_packed(b));
    taskwait!();
    let base = match x {
        Ok(v) if v > 100 => u64::from(v),
        Ok(v) => {
            let s = task!(sq(u64::from(v)));
            taskwait!();
            s
        }
        Err(ParseErr::Empty) => 1,
        Err(ParseErr::Bad(c)) => 1000 + u64::from(c),
    };
    if let Ok(w) = y {
        base + u64::from(w) * 7
    } else if let Err(ParseErr::Bad(c)) = y {
        base * 2 + u64::from(c)
    } else {
        base
    }
}

fn seq_parse_both(a: &str, b: &str) -> u64 {
    let base = match seq_parse(a) {
        Ok(v) if v > 100 => u64::from(v),
        Ok(v) => seq_sq(u64::from(v)),
        Err(ParseErr::Empty) => 1,
        Err(ParseErr::Bad(c)) => 1000 + u64::from(c),
    };
    match seq_parse(b) {
        Ok(w) => base + u64::from(w) * 7,
        Err(ParseErr::Bad(c)) => base * 2 + u64::from(c),
        Err(ParseErr::Empty) => base,
    }
}

/// `?` on a `Result` result, then `let .. else` on another with a spawn and join in its own
/// body after it.
#[gtap::function]
fn parse_sum(a: u64, b: u64) -> Result<u64, ParseErr> {
    let x = task!(parse_packed(a));
    let y = task!(parse_packed(b));
    taskwait!();
    let x = u64::from(x?);
    let Ok(y) = y else {
        return Ok(x);
    };
    let s = task!(sq(u64::from(y) + x));
    taskwait!();
    Ok(s % 10_007)
}

fn seq_parse_sum(a: &str, b: &str) -> Result<u64, ParseErr> {
    let x = u64::from(seq_parse(a)?);
    let Ok(y) = seq_parse(b) else {
        return Ok(x);
    };
    Ok(seq_sq(u64::from(y) + x) % 10_007)
}

#[gtap::function]
fn first_factor(n: u64) -> Option<u64> {
    (2..n).take_while(|d| d * d <= n).find(|d| n % d == 0)
}

fn seq_first_factor(n: u64) -> Option<u64> {
    (2..n).take_while(|d| d * d <= n).find(|d| n % d == 0)
}

/// A `let .. else` with a join inside its `else` block, and an `Option` result combined with
/// `map`, `filter` and `unwrap_or_else` after the join.
#[gtap::function]
fn factor_chain(n: u64) -> u64 {
    let f = task!(first_factor(n));
    taskwait!();
    let Some(p) = f else {
        let s = task!(sq(n));
        taskwait!();
        return s + 1;
    };
    let rest = task!(factor_chain(n / p));
    let g = task!(first_factor(n + 1));
    taskwait!();
    let small = g
        .filter(|&d| d < 5)
        .map(|d| d * 100)
        .unwrap_or_else(|| n % 7);
    p * 10_000 + rest % 10_000 + small
}

fn seq_factor_chain(n: u64) -> u64 {
    let Some(p) = seq_first_factor(n) else {
        return seq_sq(n) + 1;
    };
    let rest = seq_factor_chain(n / p);
    let small = seq_first_factor(n + 1)
        .filter(|&d| d < 5)
        .map(|d| d * 100)
        .unwrap_or_else(|| n % 7);
    p * 10_000 + rest % 10_000 + small
}

/// `matches!`, `is_some_and` and `?` on `Option` results, an `Option<V2>` result.
#[gtap::function]
fn maybe_point(n: i64) -> Option<V2> {
    let a = task!(first_factor(n.unsigned_abs()));
    let b = task!(spin_sum(V2 { x: n, y: 2 }, 1));
    taskwait!();
    if matches!(a, Some(2 | 3)) {
        return None;
    }
    let k = a? as i64;
    if b.norm1() > 100 && a.is_some_and(|d| d > 5) {
        Some(b.scaled(-1))
    } else {
        Some(b + V2 { x: k, y: -k })
    }
}

fn seq_maybe_point(n: i64) -> Option<V2> {
    let a = seq_first_factor(n.unsigned_abs());
    let b = seq_spin_sum(V2 { x: n, y: 2 }, 1);
    if matches!(a, Some(2 | 3)) {
        return None;
    }
    let k = a? as i64;
    if b.norm1() > 100 && a.is_some_and(|d| d > 5) {
        Some(b.scaled(-1))
    } else {
        Some(b + V2 { x: k, y: -k })
    }
}

// ---------------------------------------------------------------------------------------------
// 4. loops: a join per iteration, nested loops, early exits, results in `while` conditions

/// A `taskwait!()` per iteration of a `while`, the result folded into two accumulators.
#[gtap::function]
fn hash_steps(n: u64) -> u64 {
    let mut h = 17u64;
    let mut evens = 0;
    let mut i = 0;
    while i < n % 9 {
        let r = task!(sq(i + h % 100));
        taskwait!();
        h = h.wrapping_mul(31).wrapping_add(r);
        if r % 2 == 0 {
            evens += 1;
        }
        i += 1;
    }
    h ^ evens
}

fn seq_hash_steps(n: u64) -> u64 {
    let mut h = 17u64;
    let mut evens = 0;
    for i in 0..n % 9 {
        let r = seq_sq(i + h % 100);
        h = h.wrapping_mul(31).wrapping_add(r);
        if r % 2 == 0 {
            evens += 1;
        }
    }
    h ^ evens
}

/// A result in a `while` condition: `r` is given by a task before the loop and again at the
/// end of each iteration.
#[gtap::function]
fn shrink(n: u64) -> u64 {
    let mut r = task!(sq(n));
    taskwait!();
    let mut rounds = 0;
    while r > 1000 && rounds < 10 {
        r = task!(sq(r % 97 + rounds));
        taskwait!();
        rounds += 1;
    }
    r * 100 + rounds
}

fn seq_shrink(n: u64) -> u64 {
    let mut r = seq_sq(n);
    let mut rounds = 0;
    while r > 1000 && rounds < 10 {
        r = seq_sq(r % 97 + rounds);
        rounds += 1;
    }
    r * 100 + rounds
}

/// Spawns in an inner `for` into an array, one join per outer iteration, `continue` and
/// `break` of the outer loop on the joined values.
#[gtap::function]
fn rows(n: u64) -> u64 {
    let mut total = 0;
    for r in 0..6u64 {
        if r == n % 4 {
            continue;
        }
        let mut cells = [0u64; 3];
        for c in 0..3 {
            if (r + c as u64) % 5 == 4 {
                continue;
            }
            cells[c] = task!(sq(r * 3 + c as u64 + n));
        }
        taskwait!();
        let row: u64 = cells.iter().sum();
        if row % 7 == 0 {
            continue;
        }
        total += row % 1000;
        if total > 2000 {
            break;
        }
    }
    total
}

fn seq_rows(n: u64) -> u64 {
    let mut total = 0;
    for r in 0..6u64 {
        if r == n % 4 {
            continue;
        }
        let mut cells = [0u64; 3];
        for (c, cell) in cells.iter_mut().enumerate() {
            if (r + c as u64) % 5 == 4 {
                continue;
            }
            *cell = seq_sq(r * 3 + c as u64 + n);
        }
        let row: u64 = cells.iter().sum();
        if row % 7 == 0 {
            continue;
        }
        total += row % 1000;
        if total > 2000 {
            break;
        }
    }
    total
}

/// Nested `while` loops with a join in the inner one, `break` out of the inner loop and an
/// early `return` from it.
#[gtap::function]
fn nested_search(n: u64, want: u64) -> u64 {
    let mut i = 0;
    while i < 5 {
        let mut j = 0;
        while j < 5 {
            let v = task!(sq(i * 5 + j + n));
            taskwait!();
            if v % 100 == want {
                return i * 10 + j;
            }
            if v % 11 == 0 {
                break;
            }
            j += 1;
        }
        i += 1;
    }
    999
}

fn seq_nested_search(n: u64, want: u64) -> u64 {
    for i in 0..5 {
        for j in 0..5 {
            let v = seq_sq(i * 5 + j + n);
            if v % 100 == want {
                return i * 10 + j;
            }
            if v % 11 == 0 {
                break;
            }
        }
    }
    999
}

/// `loop` with a `match` on a joined `Result`: `continue` on one error, `break` with a value
/// on another, early `return` on success.
#[gtap::function]
fn retry(seed: u64) -> u64 {
    let mut attempt = 0u64;
    let fallback = loop {
        let p = pack(&(seed + attempt * 13).to_string()) ^ if attempt % 3 == 1 { 0x20 } else { 0 };
        let r = task!(parse_packed(p));
        taskwait!();
        attempt += 1;
        match r {
            Ok(v) if v % 4 == 0 => return u64::from(v) + attempt * 1_000_000,
            Ok(_) => continue,
            Err(ParseErr::Bad(_)) if attempt < 6 => continue,
            Err(e) => break if e == ParseErr::Empty { 1 } else { attempt },
        }
    };
    fallback
}

fn seq_retry(seed: u64) -> u64 {
    let mut attempt = 0u64;
    loop {
        let p = pack(&(seed + attempt * 13).to_string()) ^ if attempt % 3 == 1 { 0x20 } else { 0 };
        let r = seq_parse_bytes(p);
        attempt += 1;
        match r {
            Ok(v) if v % 4 == 0 => return u64::from(v) + attempt * 1_000_000,
            Ok(_) => continue,
            Err(ParseErr::Bad(_)) if attempt < 6 => continue,
            Err(e) => return if e == ParseErr::Empty { 1 } else { attempt },
        }
    }
}

fn seq_parse_bytes(p: u64) -> Result<u32, ParseErr> {
    let s: Vec<u8> = (0..8)
        .map(|i| (p >> (8 * i)) as u8)
        .take_while(|&b| b != 0)
        .collect();
    if s.is_empty() {
        return Err(ParseErr::Empty);
    }
    let mut v = 0u32;
    for b in s {
        if !b.is_ascii_digit() {
            return Err(ParseErr::Bad(b));
        }
        v = v * 10 + u32::from(b - b'0');
    }
    Ok(v)
}

/// `for` over a range with two joins per iteration, the second spawn's argument the first's
/// result, and an early `return` of a tuple from inside.
#[gtap::function]
fn two_stage(n: u64) -> (u64, u64) {
    let mut acc = 0u64;
    for k in 1..=n % 6 + 1 {
        let a = task!(sq(k + n));
        taskwait!();
        let b = task!(sq(a % 50));
        taskwait!();
        if b % 9 == 0 {
            return (k, b);
        }
        acc = acc.wrapping_add(b);
    }
    (0, acc)
}

fn seq_two_stage(n: u64) -> (u64, u64) {
    let mut acc = 0u64;
    for k in 1..=n % 6 + 1 {
        let b = seq_sq(seq_sq(k + n) % 50);
        if b % 9 == 0 {
            return (k, b);
        }
        acc = acc.wrapping_add(b);
    }
    (0, acc)
}

// ---------------------------------------------------------------------------------------------
// 5. task arguments that are blocks, method calls, casts and calls of plain functions

fn helper(x: u64) -> u64 {
    x * 3 + 1
}

#[gtap::function]
fn add3(a: u64, b: u64, c: u64) -> u64 {
    a.wrapping_add(b).wrapping_add(c)
}

/// Every argument form in one place.
#[gtap::function]
fn argument_forms(n: u64, v: V2, arr: [u32; 4]) -> u64 {
    let double = |x: u64| x * 2;
    let a = task!(add3(
        {
            let t = n * 2;
            t + 1
        },
        n.min(5).max(1).pow(2),
        helper(n) as u8 as u64,
    ));
    let b = task!(add3(
        if n > 3 { n - 3 } else { 7 },
        match n % 3 {
            0 => 10,
            1 => v.x as u64,
            _ => v.norm1() as u64,
        },
        double(u64::from(arr[(n % 4) as usize])),
    ));
    let c = task!(add3(
        arr.iter().map(|&x| u64::from(x)).sum(),
        u64::from(arr[1]) << 2,
        [1u64, 2, 3][(n % 3) as usize]
    ));
    let d = task!(sq(helper(helper(n)) % 1000));
    taskwait!();
    a ^ b.rotate_left(7) ^ c.rotate_left(13) ^ d
}

fn seq_argument_forms(n: u64, v: V2, arr: [u32; 4]) -> u64 {
    let double = |x: u64| x * 2;
    let a = (n * 2 + 1) + n.clamp(1, 5).pow(2) + helper(n) as u8 as u64;
    let b = (if n > 3 { n - 3 } else { 7 })
        .wrapping_add(match n % 3 {
            0 => 10,
            1 => v.x as u64,
            _ => v.norm1() as u64,
        })
        .wrapping_add(double(u64::from(arr[(n % 4) as usize])));
    let c = arr.iter().map(|&x| u64::from(x)).sum::<u64>()
        + (u64::from(arr[1]) << 2)
        + [1u64, 2, 3][(n % 3) as usize];
    let d = seq_sq(helper(helper(n)) % 1000);
    a ^ b.rotate_left(7) ^ c.rotate_left(13) ^ d
}

/// Arguments read from results of an earlier join, through casts and method calls.
#[gtap::function]
fn chained_args(n: u8) -> u64 {
    let c = task!(hex_digit(n));
    let p = task!(is_prime(u64::from(n)));
    taskwait!();
    let r = task!(add3(
        c as u64,
        u64::from(p),
        c.to_digit(16).unwrap_or(99).into()
    ));
    let s = task!(byte_mix(c as u8, if p { -1 } else { 1 }));
    taskwait!();
    r * 1000 + (s as u8) as u64
}

fn seq_chained_args(n: u8) -> u64 {
    let c = char::from_digit(u32::from(n % 16), 16).unwrap();
    let p = seq_is_prime(u64::from(n));
    let r = c as u64 + u64::from(p) + u64::from(c.to_digit(16).unwrap_or(99));
    let s = seq_byte_mix(c as u8, if p { -1 } else { 1 });
    r * 1000 + (s as u8) as u64
}

// ---------------------------------------------------------------------------------------------
// 6. results shadowed in inner blocks

#[gtap::function]
fn inner_shadow(n: u64) -> u64 {
    let r = task!(sq(n));
    taskwait!();
    let out = {
        let r = task!(sq(r % 100 + 1));
        taskwait!();
        let extra = {
            let r = r + 1;
            r * 2
        };
        r + extra
    };
    // The outer `r` is not read after the blocks that hide it with a join inside (reading it
    // there is the documented "hides an outer `r`" error naming the rename).
    let r = {
        let q = task!(sq(out % 50));
        taskwait!();
        q + out
    };
    r
}

fn seq_inner_shadow(n: u64) -> u64 {
    let r = seq_sq(n);
    let out = {
        let r = seq_sq(r % 100 + 1);
        let extra = (r + 1) * 2;
        r + extra
    };
    seq_sq(out % 50) + out
}

/// A result shadowed in an `if` branch and in a loop body after its join, the outer one read
/// after each.
#[gtap::function]
fn branch_shadow(n: u64) -> u64 {
    let r = task!(sq(n + 1));
    taskwait!();
    let mut acc = 0;
    if r % 2 == 0 {
        let r = r / 2;
        acc += r;
    } else {
        let s = task!(sq(r % 10));
        taskwait!();
        acc += s;
    }
    for i in 0..3 {
        let s = task!(sq(r % 13 + i));
        taskwait!();
        let r = s + i;
        acc += r;
    }
    acc + r
}

fn seq_branch_shadow(n: u64) -> u64 {
    let r = seq_sq(n + 1);
    let mut acc = 0;
    if r % 2 == 0 {
        acc += r / 2;
    } else {
        acc += seq_sq(r % 10);
    }
    for i in 0..3 {
        acc += seq_sq(r % 13 + i) + i;
    }
    acc + r
}

// ---------------------------------------------------------------------------------------------
// 7. generics with `where` clauses, const generics, attributes, visibility

/// Sums an array of any `Copy` addable type by halves (a const generic `N` and a `where`
/// clause).
#[gtap::function]
fn arr_sum<T, const N: usize>(a: [T; N], lo: usize, hi: usize) -> T
where
    T: Copy + Default + Add<Output = T> + 'static,
{
    if hi - lo <= 1 {
        return if hi > lo { a[lo] } else { T::default() };
    }
    let mid = lo + (hi - lo) / 2;
    let x = task!(arr_sum::<T, N>(a, lo, mid));
    let y = task!(arr_sum::<T, N>(a, mid, hi));
    taskwait!();
    x + y
}

/// Calls the generic one at two instantiations, one of them a user struct.
#[gtap::function]
fn sums_of(n: i64) -> i64 {
    let xs = [n, n + 1, -3, 4, n * n];
    let vs = [V2 { x: 1, y: n }, V2 { x: n, y: 2 }, V2 { x: -5, y: 5 }];
    let a = task!(arr_sum::<i64, 5>(xs, 0, 5));
    let b = task!(arr_sum::<V2, 3>(vs, 0, 3));
    taskwait!();
    a * 7 + b.x - b.y
}

fn seq_sums_of(n: i64) -> i64 {
    let a = n + (n + 1) - 3 + 4 + n * n;
    let b = V2 { x: 1, y: n } + V2 { x: n, y: 2 } + V2 { x: -5, y: 5 };
    a * 7 + b.x - b.y
}

/// A const generic that bounds a loop with a join per iteration.
#[gtap::function]
fn powers<const K: u32>(x: u64) -> u64 {
    let mut acc = 1u64;
    let mut i = 0;
    while i < K {
        let s = task!(sq(acc % 1000 + x));
        taskwait!();
        acc = acc.wrapping_add(s);
        i += 1;
    }
    acc
}

fn seq_powers(k: u32, x: u64) -> u64 {
    let mut acc = 1u64;
    for _ in 0..k {
        acc = acc.wrapping_add(seq_sq(acc % 1000 + x));
    }
    acc
}

/// Doc comments, lint attributes on the function and on a parameter, `pub(crate)`.
#[gtap::function]
#[allow(unused_variables, clippy::unusual_byte_groupings)]
#[deny(unreachable_code)]
pub(crate) fn documented(
    /* the value */ n: u64,
    #[allow(unused_variables)] unused: u64,
) -> u64 {
    //! An inner doc comment is rare, but allowed.
    let a = task!(sq(n));
    taskwait!();
    a + 0b1_0
}

pub mod api {
    /// A task function that other modules spawn, `pub`.
    #[gtap::function]
    pub fn triple(x: u64) -> u64 {
        x * 3
    }

    #[gtap::function]
    pub(super) fn triple_sum(a: u64, b: u64) -> u64 {
        let x = task!(triple(a));
        let y = task!(self::triple(b));
        taskwait!();
        x + y
    }
}

#[gtap::function]
fn via_module(n: u64) -> u64 {
    let a = task!(api::triple_sum(n, n + 1));
    let b = task!(crate::api::triple(n));
    taskwait!();
    a * b
}

// ---------------------------------------------------------------------------------------------
// 8. `macro_rules!` that write task functions, macros in the body

macro_rules! leaf_op {
    ($name:ident, $t:ty, $op:tt, $k:expr) => {
        #[gtap::function]
        fn $name(x: $t) -> $t {
            x $op $k
        }
    };
}

leaf_op!(add_seven, u64, +, 7);
leaf_op!(times_three, u32, *, 3);

macro_rules! tree_fn {
    ($name:ident, $leaf:ident) => {
        /// A tree whose leaves apply `$leaf`.
        #[gtap::function]
        fn $name(lo: u64, hi: u64) -> u64 {
            if hi - lo <= 1 {
                let r = task!($leaf(lo));
                taskwait!();
                return r;
            }
            let mid = (lo + hi) / 2;
            let a = task!($name(lo, mid));
            let b = task!($name(mid, hi));
            taskwait!();
            a + b
        }
    };
}

tree_fn!(tree_add7, add_seven);
tree_fn!(tree_sq, sq);

macro_rules! clamp100 {
    ($e:expr) => {
        if $e > 100 {
            100
        } else {
            $e
        }
    };
}

/// A user macro in the body, before and after joins, around a task's result and inside a
/// task's arguments.
#[gtap::function]
fn with_macros(n: u32) -> u64 {
    let a = task!(times_three(clamp100!(n)));
    taskwait!();
    let b = task!(tree_add7(0, u64::from(clamp100!(a)) % 8));
    let c = task!(tree_sq(1, 4));
    taskwait!();
    let total = clamp100!(b) + c;
    assert!(total > 0, "b = {b}, c = {c}");
    debug_assert_eq!(c, 1 + 4 + 9);
    total
}

fn seq_tree(lo: u64, hi: u64, leaf: fn(u64) -> u64) -> u64 {
    if hi - lo <= 1 {
        return leaf(lo);
    }
    let mid = (lo + hi) / 2;
    seq_tree(lo, mid, leaf) + seq_tree(mid, hi, leaf)
}

fn seq_with_macros(n: u32) -> u64 {
    let a = clamp100!(n) * 3;
    let k = u64::from(clamp100!(a)) % 8;
    let b = seq_tree(0, k, |x| x + 7);
    let c = seq_tree(1, 4, seq_sq);
    clamp100!(b) + c
}

// ---------------------------------------------------------------------------------------------
// 9. results that are dropped

#[gtap::function]
fn noisy(p: *mut u64, i: usize) -> u64 {
    // SAFETY: the test passes a pointer to `len` elements, and each child its own `i < len`.
    unsafe { *p.add(i) += 1 };
    i as u64
}

/// A bare `task!(..)` of a task with a result (detached), beside joined ones, in a loop.
#[gtap::function]
fn ignore_results(p: *mut u64, len: usize) -> u64 {
    for i in 0..len {
        task!(noisy(p, i));
    }
    let kept = task!(sq(len as u64));
    taskwait!();
    // SAFETY: `p` points to `len` elements, and the children that wrote them are joined.
    let s: u64 = unsafe { std::slice::from_raw_parts(p, len) }.iter().sum();
    kept + s
}

// ---------------------------------------------------------------------------------------------
// 10. more of what a new user tries

/// A `bool` result in a `while` condition, given again at the end of each iteration.
#[gtap::function]
fn next_prime_gap(n: u64) -> u64 {
    #![allow(unused_mut)]
    let mut k = n + 1;
    let mut composite = true;
    while composite {
        let p = task!(is_prime(k));
        taskwait!();
        composite = !p;
        if composite {
            k += 1;
        }
    }
    k - n
}

fn seq_next_prime_gap(n: u64) -> u64 {
    let mut k = n + 1;
    while !seq_is_prime(k) {
        k += 1;
    }
    k - n
}

/// A `char` result matched on ranges, a `u8` result used as an index, literal arguments of
/// every kind.
#[gtap::function]
fn literal_args(n: u8) -> u64 {
    let c = task!(hex_digit(n));
    let m = task!(byte_mix(b'a', -1i8));
    let z = task!(byte_mix(Default::default(), i8::MAX));
    let big = task!(add3(u64::MAX, 1, 0x10));
    taskwait!();
    let table = [3u64, 1, 4, 1, 5, 9, 2, 6];
    let kind = match c {
        '0'..='9' => 1,
        'a'..='f' => 2,
        _ => 3,
    };
    kind * 1000 + table[(m as u8 % 8) as usize] * 100 + table[z as u8 as usize % 8] + big
}

fn seq_literal_args(n: u8) -> u64 {
    let c = char::from_digit(u32::from(n % 16), 16).unwrap();
    let m = seq_byte_mix(b'a', -1);
    let z = seq_byte_mix(0, i8::MAX);
    let big = u64::MAX.wrapping_add(1).wrapping_add(0x10);
    let table = [3u64, 1, 4, 1, 5, 9, 2, 6];
    let kind = match c {
        '0'..='9' => 1,
        'a'..='f' => 2,
        _ => 3,
    };
    kind * 1000 + table[(m as u8 % 8) as usize] * 100 + table[z as u8 as usize % 8] + big
}

/// A generic function spawning itself, with its bounds in a `where` clause. (Without the
/// turbofish, `task!(max_of::<T, N>(a, lo, mid))`, it is rustc's "type annotations needed" with the
/// help `max_of::<T, N>`: a callee's kind is a constant, see docs/frontend.md.)
#[gtap::function]
fn max_of<T, const N: usize>(a: [T; N], lo: usize, hi: usize) -> T
where
    T: Copy + PartialOrd + 'static,
{
    if hi - lo == 1 {
        return a[lo];
    }
    let mid = (lo + hi) / 2;
    let x = task!(max_of::<T, N>(a, lo, mid));
    let y = task!(max_of::<T, N>(a, mid, hi));
    taskwait!();
    if x >= y {
        x
    } else {
        y
    }
}

/// A typed tuple result, `std::mem::swap` of two results, a unit-`Result` checked with `?` as a
/// statement.
#[gtap::function]
fn must_be_small(x: u64) -> Result<(), u64> {
    if x > 50 {
        Err(x)
    } else {
        Ok(())
    }
}

#[gtap::function]
fn swap_and_check(n: u64) -> Result<u64, u64> {
    let t: (u64, u64) = task!(min_max((n, n + 5)));
    let ok = task!(must_be_small(n));
    taskwait!();
    ok?;
    let (mut a, mut b) = t;
    if a < b {
        std::mem::swap(&mut a, &mut b);
    }
    let check = task!(must_be_small(a - b));
    taskwait!();
    check.map_err(|e| e + 1000)?;
    Ok(a * 100 + b)
}

fn seq_swap_and_check(n: u64) -> Result<u64, u64> {
    let t = seq_min_max(n, n + 5);
    if n > 50 {
        return Err(n);
    }
    let (a, b) = (t.0.max(t.1), t.0.min(t.1));
    if a - b > 50 {
        return Err(a - b + 1000);
    }
    Ok(a * 100 + b)
}

/// `return Err(..)` from a `match` in a `for` loop with joins, a labelled `loop` broken with a
/// value from an inner `while` after a join.
#[gtap::function]
fn scan_words(a: u64, b: u64, limit: u32) -> Result<u32, ParseErr> {
    let words = [a, b, a ^ 0x30];
    let mut total = 0u32;
    for i in 0..3 {
        let r = task!(parse_packed(words[i]));
        taskwait!();
        match r {
            Ok(v) => total += v,
            Err(ParseErr::Empty) => continue,
            Err(e) => return Err(e),
        }
    }
    let mut step = 0u32;
    let found = 'outer: loop {
        while step < 4 {
            let s = task!(times_three(total % 100 + step));
            taskwait!();
            if s > limit {
                break 'outer s;
            }
            step += 1;
        }
        break total;
    };
    Ok(found + step)
}

fn seq_scan_words(a: &str, b: &str, limit: u32) -> Result<u32, ParseErr> {
    let words = [pack(a), pack(b), pack(a) ^ 0x30];
    let mut total = 0u32;
    for w in words {
        match seq_parse_bytes(w) {
            Ok(v) => total += v,
            Err(ParseErr::Empty) => continue,
            Err(e) => return Err(e),
        }
    }
    let mut step = 0u32;
    let mut found = total;
    while step < 4 {
        let s = (total % 100 + step) * 3;
        if s > limit {
            found = s;
            break;
        }
        step += 1;
    }
    Ok(found + step)
}

/// Results of a run-time number of children folded with a user method, detached children of
/// a task with a result on one branch.
#[gtap::function]
fn fold_parts(n: u64, p: *mut u64) -> V2 {
    let mut parts = [V2::default(); 5];
    for i in 0..(n % 5 + 1) as usize {
        parts[i] = task!(spin_sum(
            V2 {
                x: i as i64,
                y: n as i64
            },
            1
        ));
    }
    if n % 2 == 0 {
        task!(noisy(p, 0));
    } else {
        task!(sq(n));
    }
    taskwait!();
    parts
        .iter()
        .fold(V2::default(), |acc, &v| acc + v.scaled(2))
}

fn seq_fold_parts(n: u64) -> V2 {
    let mut acc = V2::default();
    for i in 0..(n % 5 + 1) as i64 {
        acc = acc + seq_spin_sum(V2 { x: i, y: n as i64 }, 1).scaled(2);
    }
    acc
}

/// Results into array elements in a `while` whose condition reads the array, a typed array
/// result, `[bool; 4]` results checked with `iter().all()`.
#[gtap::function]
fn refine(n: u32) -> u64 {
    let mut parts = [n, n + 1, n + 2, n + 3];
    let mut rounds = 0;
    while parts.iter().any(|&p| p % 5 != 0) && rounds < 6 {
        let v: [u32; 4] = task!(rotate_add(parts, 1));
        taskwait!();
        for i in 0..4 {
            if v[i] % 5 != 0 {
                parts[i] = task!(times_three(v[i] % 1000));
            }
        }
        taskwait!();
        rounds += 1;
    }
    let mut flags = [false; 4];
    for i in 0..4 {
        flags[i] = task!(is_prime(u64::from(parts[i])));
    }
    taskwait!();
    let all = flags.iter().all(|&f| f);
    let mut h = u64::from(all) + rounds * 10;
    for p in parts {
        h = h * 7 + u64::from(p);
    }
    h
}

fn seq_refine(n: u32) -> u64 {
    let mut parts = [n, n + 1, n + 2, n + 3];
    let mut rounds = 0;
    while parts.iter().any(|&p| p % 5 != 0) && rounds < 6 {
        let v = seq_rotate_add(parts, 1);
        for i in 0..4 {
            if v[i] % 5 != 0 {
                parts[i] = (v[i] % 1000) * 3;
            }
        }
        rounds += 1;
    }
    let all = parts.iter().all(|&p| seq_is_prime(u64::from(p)));
    let mut h = u64::from(all) + rounds * 10;
    for p in parts {
        h = h * 7 + u64::from(p);
    }
    h
}

/// The best result so far kept in an `Option` updated by a `match` with a guard, tuple fields
/// assigned by tasks, a `match` on a pair of results of different types.
#[gtap::function]
fn best_of(n: u64) -> Option<(u64, char)> {
    let mut best: Option<u64> = None;
    let mut pair = (0u64, 0u64);
    for i in 0..n % 7 {
        let r = task!(sq(i * 13 % 17 + n));
        taskwait!();
        best = match best {
            None => Some(r % 1000),
            Some(b) if r % 1000 > b => Some(r % 1000),
            keep => keep,
        };
        pair.0 = task!(sq(i));
        pair.1 = task!(sq(i + 1));
        taskwait!();
    }
    let b = best?;
    let c = task!(hex_digit((b % 256) as u8));
    let p = task!(is_prime(b));
    taskwait!();
    let tag = match (p, c) {
        (true, _) => 'p',
        (false, '0'..='9') => c,
        (false, other) => other.to_ascii_uppercase(),
    };
    Some((b + pair.0 + pair.1, tag))
}

fn seq_best_of(n: u64) -> Option<(u64, char)> {
    let mut best: Option<u64> = None;
    let mut pair = (0u64, 0u64);
    for i in 0..n % 7 {
        let r = seq_sq(i * 13 % 17 + n) % 1000;
        best = Some(best.map_or(r, |b| b.max(r)));
        pair = (seq_sq(i), seq_sq(i + 1));
    }
    let b = best?;
    let c = char::from_digit(((b % 256) % 16) as u32, 16).unwrap();
    let tag = if seq_is_prime(b) {
        'p'
    } else if c.is_ascii_digit() {
        c
    } else {
        c.to_ascii_uppercase()
    };
    Some((b + pair.0 + pair.1, tag))
}

/// Spawns under an `if` in a `for` in a `loop`, one join after the `for`, the `loop` left by
/// `break` on the joined sum, an early `return` from a nested block.
#[gtap::function]
fn batches(n: u64) -> u64 {
    let mut base = n;
    let mut total = 0u64;
    let mut batch = 0;
    loop {
        let mut got = [0u64; 4];
        for j in 0..4 {
            if (base + j) % 3 != 0 {
                got[j as usize] = task!(sq(base + j));
            }
        }
        taskwait!();
        let s: u64 = got.iter().map(|g| g % 100).sum();
        total += s;
        batch += 1;
        {
            if s == 0 {
                return 7777;
            }
        }
        if total > 300 || batch == 5 {
            break;
        }
        base += s % 4 + 1;
    }
    total * 10 + batch
}

fn seq_batches(n: u64) -> u64 {
    let mut base = n;
    let mut total = 0u64;
    let mut batch = 0;
    loop {
        let mut s = 0;
        for j in 0..4 {
            if (base + j) % 3 != 0 {
                s += seq_sq(base + j) % 100;
            }
        }
        total += s;
        batch += 1;
        if s == 0 {
            return 7777;
        }
        if total > 300 || batch == 5 {
            break;
        }
        base += s % 4 + 1;
    }
    total * 10 + batch
}

/// A `for` over a range whose end is a task's result, with a join in its body.
#[gtap::function]
fn result_bound(n: u16) -> u64 {
    let k = task!(count_below([1, 2, 3, 4, 5, 6], n));
    taskwait!();
    let mut acc = 0u64;
    for i in 0..k {
        let r = task!(offset(i * 3, k));
        taskwait!();
        acc = acc.wrapping_add(r as u64);
    }
    acc
}

fn seq_result_bound(n: u16) -> u64 {
    let k = [1u16, 2, 3, 4, 5, 6].iter().filter(|&&x| x < n).count();
    let mut acc = 0u64;
    for i in 0..k {
        acc = acc.wrapping_add((i as isize * 3 - k as isize) as u64);
    }
    acc
}

// ---------------------------------------------------------------------------------------------
// 11. a result or local hidden in an inner block with a join, the outer one read after it
// (once an error: "this `r` hides an outer `r` that must be kept across a taskwait!()")

/// The inner `r` is declared by its spawn; the outer one is read after the block.
#[gtap::function]
fn hide_by_spawn(n: u64) -> u64 {
    let r = task!(sq(n));
    taskwait!();
    let out = {
        let r = task!(sq(r % 100 + 1));
        taskwait!();
        r + 1
    };
    let q = task!(sq(out % 50));
    taskwait!();
    q + r
}

fn seq_hide_by_spawn(n: u64) -> u64 {
    let r = seq_sq(n);
    let out = seq_sq(r % 100 + 1) + 1;
    seq_sq(out % 50) + r
}

/// The inner `r` hides a task result in a loop body with a join per iteration; the outer one is
/// read in the next iteration's spawn and after the loop.
#[gtap::function]
fn hide_in_loop(n: u64) -> u64 {
    let r = task!(sq(n + 1));
    taskwait!();
    let mut acc = 0;
    for i in 0..3 {
        let r = task!(sq(r % 13 + i));
        taskwait!();
        acc += r;
    }
    acc + r
}

fn seq_hide_in_loop(n: u64) -> u64 {
    let r = seq_sq(n + 1);
    let mut acc = 0;
    for i in 0..3 {
        acc += seq_sq(r % 13 + i);
    }
    acc + r
}

/// A `mut` outer local changed in the block before the `let` that hides it, two levels of
/// hiding, and a plain `let` (not a spawn) as the hider.
#[gtap::function]
fn hide_nested(n: u64) -> u64 {
    let mut x = n + 1;
    let y = {
        x *= 3;
        let x = x + 7;
        let a = task!(sq(x));
        taskwait!();
        let z = {
            let x = a % 11;
            let b = task!(sq(x));
            taskwait!();
            b + x
        };
        z + x
    };
    x * 1000 + y
}

fn seq_hide_nested(n: u64) -> u64 {
    let x = (n + 1) * 3;
    let inner = x + 7;
    let a = seq_sq(inner);
    let z = seq_sq(a % 11) + a % 11;
    x * 1000 + z + inner
}

/// A `mut` parameter hidden in an `if` branch with a join, then changed after it.
#[gtap::function]
fn hide_param(mut n: u64) -> u64 {
    n += 2;
    if n % 2 == 0 {
        let n = task!(sq(n));
        taskwait!();
        if n > 50 {
            return n;
        }
    }
    n += 1;
    n
}

fn seq_hide_param(n: u64) -> u64 {
    let n = n + 2;
    if n % 2 == 0 && seq_sq(n) > 50 {
        return seq_sq(n);
    }
    n + 1
}

program!(
    R8 = [
        sq,
        spin_sum,
        struct_fields,
        min_max,
        tuple_match,
        rotate_add,
        lanes,
        digit_counts,
        is_prime,
        twin_primes,
        hex_digit,
        hex4,
        byte_mix,
        small_arith,
        count_below,
        offset,
        index_math,
        careful,
        parse_packed,
        parse_both,
        parse_sum,
        first_factor,
        factor_chain,
        maybe_point,
        hash_steps,
        shrink,
        rows,
        nested_search,
        retry,
        two_stage,
        add3,
        argument_forms,
        chained_args,
        inner_shadow,
        branch_shadow,
        arr_sum::<i64, 5>,
        arr_sum::<V2, 3>,
        sums_of,
        powers::<0>,
        powers::<3>,
        documented,
        api::triple,
        api::triple_sum,
        via_module,
        add_seven,
        times_three,
        tree_add7,
        tree_sq,
        with_macros,
        noisy,
        ignore_results,
        next_prime_gap,
        literal_args,
        max_of::<u8, 4>,
        max_of::<i64, 6>,
        must_be_small,
        swap_and_check,
        scan_words,
        fold_parts,
        refine,
        best_of,
        batches,
        result_bound,
        hide_by_spawn,
        hide_in_loop,
        hide_nested,
        hide_param
    ]
);

const NS: [u64; 12] = [0, 1, 2, 3, 4, 5, 7, 9, 10, 17, 30, 97];

#[test]
fn structs_tuples_arrays() {
    for n in [-7i64, -1, 0, 1, 2, 5, 40] {
        let v = V2 { x: n, y: 3 - n };
        for depth in [0u32, 1, 3] {
            check::<R8, _>(spin_sum, (v, depth), seq_spin_sum(v, depth));
        }
        check::<R8, _>(struct_fields, (n,), seq_struct_fields(n));
        check::<R8, _>(maybe_point, (n,), seq_maybe_point(n));
        check::<R8, _>(sums_of, (n,), seq_sums_of(n));
    }
    for n in NS {
        check::<R8, _>(
            min_max,
            ((n, n + 1 + n % 13),),
            seq_min_max(n, n + 1 + n % 13),
        );
        check::<R8, _>(tuple_match, (n,), seq_tuple_match(n));
        check::<R8, _>(digit_counts, (n * 123 + 7,), seq_digit_counts(n * 123 + 7));
        let n32 = n as u32;
        check::<R8, _>(lanes, (n32,), seq_lanes(n32));
        let a = [n32, u32::MAX - n32, 7, 0];
        check::<R8, _>(rotate_add, (a, n32 % 7), seq_rotate_add(a, n32 % 7));
    }
}

#[test]
fn small_scalars() {
    for n in NS.into_iter().chain([11, 13, 29, 41]) {
        check::<R8, _>(twin_primes, (n,), seq_twin_primes(n));
        for b in [0u64, 1, 3, 5000] {
            check::<R8, _>(careful, (n, b), seq_careful(n, b));
        }
    }
    for n in [0u16, 9, 0xabcd, 0x1f2e, u16::MAX] {
        check::<R8, _>(hex4, (n,), seq_hex4(n));
    }
    for a in [0u8, 1, 100, 127, 200, 255] {
        for b in [i8::MIN, -5, 0, 1, 90, i8::MAX] {
            check::<R8, _>(small_arith, (a, b), seq_small_arith(a, b));
        }
    }
    for t in [0u16, 1, 4, 9, 12, 20] {
        check::<R8, _>(index_math, (t,), seq_index_math(t));
    }
    for n in [0u8, 2, 7, 10, 15, 200] {
        check::<R8, _>(chained_args, (n,), seq_chained_args(n));
    }
}

#[test]
fn option_and_result() {
    let words = ["", "7", "42", "123", "9x", "a", "65535", "0"];
    for a in words {
        for b in words {
            check::<R8, _>(parse_both, (pack(a), pack(b)), seq_parse_both(a, b));
            check::<R8, _>(parse_sum, (pack(a), pack(b)), seq_parse_sum(a, b));
        }
    }
    for n in NS.into_iter().chain([12, 49, 91, 1001]) {
        check::<R8, _>(factor_chain, (n,), seq_factor_chain(n));
    }
}

#[test]
fn loops_with_joins() {
    for n in NS {
        check::<R8, _>(hash_steps, (n,), seq_hash_steps(n));
        check::<R8, _>(shrink, (n,), seq_shrink(n));
        check::<R8, _>(rows, (n,), seq_rows(n));
        for want in [0u64, 1, 21, 44, 77] {
            check::<R8, _>(nested_search, (n, want), seq_nested_search(n, want));
        }
        check::<R8, _>(retry, (n * 11,), seq_retry(n * 11));
        check::<R8, _>(two_stage, (n,), seq_two_stage(n));
    }
}

#[test]
fn arguments_and_shadowing() {
    for n in NS {
        let v = V2 {
            x: n as i64,
            y: -(n as i64),
        };
        for arr in [[0u32, 1, 2, 3], [9, 8, 7, 6]] {
            check::<R8, _>(argument_forms, (n, v, arr), seq_argument_forms(n, v, arr));
        }
        check::<R8, _>(inner_shadow, (n,), seq_inner_shadow(n));
        check::<R8, _>(branch_shadow, (n,), seq_branch_shadow(n));
    }
}

#[test]
fn generics_attributes_macros() {
    for x in [0u64, 1, 5, 77] {
        check::<R8, _>(powers::<0>, (x,), seq_powers(0, x));
        check::<R8, _>(powers::<3>, (x,), seq_powers(3, x));
        check::<R8, _>(documented, (x, 9), seq_sq(x) + 2);
        check::<R8, _>(via_module, (x,), (x * 3 + (x + 1) * 3) * (x * 3));
    }
    for n in [0u32, 1, 7, 30, 40, 1000] {
        check::<R8, _>(with_macros, (n,), seq_with_macros(n));
    }
}

#[test]
fn dropped_results() {
    for len in [0usize, 1, 4, 9] {
        let mut data: Vec<u64> = (0..len as u64).collect();
        let want = (len as u64) * (len as u64) + (1..=len as u64).sum::<u64>();
        check::<R8, _>(ignore_results, (data.as_mut_ptr(), len), want);
    }
}

#[test]
fn more_user_shapes() {
    for n in NS.into_iter().chain([23, 89, 113]) {
        check::<R8, _>(next_prime_gap, (n,), seq_next_prime_gap(n));
        check::<R8, _>(swap_and_check, (n,), seq_swap_and_check(n));
        let mut cell = 0u64;
        check::<R8, _>(fold_parts, (n, &raw mut cell), seq_fold_parts(n));
        assert_eq!(cell, u64::from(n % 2 == 0));
    }
    for n in [0u8, 5, 10, 15, 200, 255] {
        check::<R8, _>(literal_args, (n,), seq_literal_args(n));
        let a = [n, n / 3, 200, 7];
        check::<R8, _>(max_of::<u8, 4>, (a, 0, 4), *a.iter().max().unwrap());
        let b = [-(n as i64), 3, n as i64 * 2, -100, 0, 9];
        check::<R8, _>(max_of::<i64, 6>, (b, 1, 6), *b[1..].iter().max().unwrap());
    }
    let words = ["", "12", "3x", "7", "999"];
    for a in words {
        for b in words {
            for limit in [0u32, 20, 200, 10_000] {
                check::<R8, _>(
                    scan_words,
                    (pack(a), pack(b), limit),
                    seq_scan_words(a, b, limit),
                );
            }
        }
    }
}

#[test]
fn arrays_options_batches() {
    for n in NS.into_iter().chain([14, 23, 50]) {
        check::<R8, _>(refine, (n as u32,), seq_refine(n as u32));
        check::<R8, _>(best_of, (n,), seq_best_of(n));
        check::<R8, _>(batches, (n,), seq_batches(n));
        check::<R8, _>(result_bound, (n as u16,), seq_result_bound(n as u16));
    }
}

#[test]
fn hidden_outer_locals() {
    for n in NS {
        check::<R8, _>(hide_by_spawn, (n,), seq_hide_by_spawn(n));
        check::<R8, _>(hide_in_loop, (n,), seq_hide_in_loop(n));
        check::<R8, _>(hide_nested, (n,), seq_hide_nested(n));
        check::<R8, _>(hide_param, (n,), seq_hide_param(n));
    }
}
