//! Task functions as a Rust programmer new to gtap writes
//! them (match arms with guards and bindings that spawn and join, `while let` and `loop` with
//! `break value` around joins, `?` and early `return` after a join, names shadowed across a
//! join, closures defined before a join and called after it, `if let .. else` values, tuple
//! struct and enum arguments, generic functions over a user trait, `const` and `static` items,
//! labelled breaks, `u128`/`i64`/`f64` results mixed, raw pointer + length arguments, mutual
//! recursion, results in conditions, spawns on both branches of an `if` with one join after
//! it, a run-time number of children into array elements), each on the CPU executor against a
//! plain Rust twin with several inputs.

#![allow(
    clippy::needless_late_init,
    clippy::needless_return,
    clippy::let_and_return,
    clippy::manual_is_multiple_of,
    clippy::undocumented_unsafe_blocks,
    reason = "the task functions are written as a new user writes them, and the twins follow"
)]

mod common;

use common::check;
use gtap::program;

#[gtap::function]
fn sq(x: u64) -> u64 {
    x.wrapping_mul(x)
}

fn seq_sq(x: u64) -> u64 {
    x.wrapping_mul(x)
}

#[gtap::function]
fn inc(x: u64) -> u64 {
    x + 1
}

// ---------------------------------------------------------------------------------------------
// 1. `match` with guards and bindings whose arms spawn and join

#[gtap::function]
fn classify(n: u64) -> u64 {
    match n {
        0 => 1,
        k if k % 3 == 0 => {
            let a = task!(classify(k / 3));
            let b = task!(sq(k));
            taskwait!();
            a + b % 1000
        }
        k @ 1..=10 => {
            let a = task!(classify(k - 1));
            taskwait!();
            a * 2
        }
        other => {
            let r = task!(classify(other / 2));
            taskwait!();
            if r > 100 {
                r - 100
            } else {
                r + other
            }
        }
    }
}

fn seq_classify(n: u64) -> u64 {
    match n {
        0 => 1,
        k if k % 3 == 0 => seq_classify(k / 3) + seq_sq(k) % 1000,
        k @ 1..=10 => seq_classify(k - 1) * 2,
        other => {
            let r = seq_classify(other / 2);
            if r > 100 {
                r - 100
            } else {
                r + other
            }
        }
    }
}

/// A `match` on a pair with guards reading both, arms that spawn into `let r;` or give it a
/// plain value, and one join after it (once an error: "`r` is declared without a value and
/// receives this task's result on only some paths").
#[gtap::function]
fn pair_match(a: u64, b: u64) -> u64 {
    let r;
    match (a % 4, b % 3) {
        (0, y) if y > 0 => r = task!(sq(a + y)),
        (x, 0) => r = task!(inc(x * 100)),
        (x, y) if x == y => r = x + y,
        _ => r = task!(sq(b)),
    }
    taskwait!();
    r + 1
}

fn seq_pair_match(a: u64, b: u64) -> u64 {
    let r = match (a % 4, b % 3) {
        (0, y) if y > 0 => seq_sq(a + y),
        (x, 0) => x * 100 + 1,
        (x, y) if x == y => x + y,
        _ => seq_sq(b),
    };
    r + 1
}

// ---------------------------------------------------------------------------------------------
// 2. `while let` and `loop` with `break value` around spawns

/// The first square above `n`, found by a `loop` that spawns and joins per iteration.
#[gtap::function]
fn first_square_above(n: u64) -> u64 {
    let mut i = 0;
    let found = loop {
        let s = task!(sq(i));
        taskwait!();
        if s > n {
            break s;
        }
        i += 1;
    };
    found + i
}

fn seq_first_square_above(n: u64) -> u64 {
    let mut i = 0;
    let found = loop {
        let s = seq_sq(i);
        if s > n {
            break s;
        }
        i += 1;
    };
    found + i
}

/// A little stack popped by `while let`, a child per item.
#[gtap::function]
fn pop_all(n: u64) -> u64 {
    fn pop(items: &mut [u64; 6], len: &mut usize) -> Option<u64> {
        if *len == 0 {
            None
        } else {
            *len -= 1;
            Some(items[*len])
        }
    }
    let mut items = [0u64; 6];
    let mut len = (n % 6) as usize;
    for (i, item) in items.iter_mut().enumerate().take(len) {
        *item = i as u64 + n;
    }
    let mut total = 0;
    while let Some(v) = pop(&mut items, &mut len) {
        let r = task!(sq(v));
        taskwait!();
        total += r;
        if total > 10_000 {
            break;
        }
    }
    total
}

fn seq_pop_all(n: u64) -> u64 {
    let len = (n % 6) as usize;
    let mut total = 0;
    for i in (0..len).rev() {
        total += seq_sq(i as u64 + n);
        if total > 10_000 {
            break;
        }
    }
    total
}

/// A `loop` that breaks a value from a nested `match` on a task's result.
#[gtap::function]
fn collatz_len(n: u64) -> u64 {
    let mut x = n.max(1);
    let mut steps = 0;
    let len = loop {
        let next = task!(collatz_step(x));
        taskwait!();
        steps += 1;
        match next {
            1 => break steps,
            _ if steps > 200 => break 0,
            v => x = v,
        }
    };
    len
}

#[gtap::function]
fn collatz_step(x: u64) -> u64 {
    if x % 2 == 0 {
        x / 2
    } else {
        3 * x + 1
    }
}

fn seq_collatz_len(n: u64) -> u64 {
    let mut x = n.max(1);
    let mut steps = 0;
    loop {
        let next = if x % 2 == 0 { x / 2 } else { 3 * x + 1 };
        steps += 1;
        match next {
            1 => break steps,
            _ if steps > 200 => break 0,
            v => x = v,
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 3. early `return` and `?` after a join

#[gtap::function]
fn half(n: u64) -> Option<u64> {
    if n % 2 == 0 {
        Some(n / 2)
    } else {
        None
    }
}

fn seq_half(n: u64) -> Option<u64> {
    if n % 2 == 0 {
        Some(n / 2)
    } else {
        None
    }
}

#[gtap::function]
fn halves(n: u64) -> Option<u64> {
    let a = task!(half(n));
    taskwait!();
    let a = a?;
    if a == 0 {
        return Some(0);
    }
    let b = task!(half(a));
    let c = task!(half(a + 2));
    taskwait!();
    Some(a.checked_add(b?)? + c.unwrap_or(7))
}

fn seq_halves(n: u64) -> Option<u64> {
    let a = seq_half(n)?;
    if a == 0 {
        return Some(0);
    }
    let b = seq_half(a);
    let c = seq_half(a + 2);
    Some(a.checked_add(b?)? + c.unwrap_or(7))
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum CalcError {
    Odd(u64),
    TooBig,
}

#[gtap::function]
fn even_or_err(n: u64) -> Result<u64, CalcError> {
    if n > 1000 {
        return Err(CalcError::TooBig);
    }
    if n % 2 == 1 {
        Err(CalcError::Odd(n))
    } else {
        Ok(n / 2)
    }
}

fn seq_even_or_err(n: u64) -> Result<u64, CalcError> {
    if n > 1000 {
        return Err(CalcError::TooBig);
    }
    if n % 2 == 1 {
        Err(CalcError::Odd(n))
    } else {
        Ok(n / 2)
    }
}

/// `?` straight on a joined result, in a `let` and in the tail, with an early return between.
#[gtap::function]
fn sum_evens(a: u64, b: u64) -> Result<u64, CalcError> {
    let x = task!(even_or_err(a));
    let y = task!(even_or_err(b));
    taskwait!();
    let x = x?;
    if x == 0 {
        return Ok(y.unwrap_or(1));
    }
    let z = task!(even_or_err(x * 4));
    taskwait!();
    Ok(x + y? + z?)
}

fn seq_sum_evens(a: u64, b: u64) -> Result<u64, CalcError> {
    let x = seq_even_or_err(a)?;
    let y = seq_even_or_err(b);
    if x == 0 {
        return Ok(y.unwrap_or(1));
    }
    let z = seq_even_or_err(x * 4);
    Ok(x + y? + z?)
}

// ---------------------------------------------------------------------------------------------
// 4. names shadowed across a join

#[gtap::function]
fn shadow_chain(n: u64) -> u64 {
    let x = n + 1;
    let x = task!(sq(x));
    taskwait!();
    let x = x % 1000;
    let n = task!(inc(n * x));
    taskwait!();
    let x = task!(sq(x + n));
    taskwait!();
    x + n
}

fn seq_shadow_chain(n: u64) -> u64 {
    let x = seq_sq(n + 1) % 1000;
    let n2 = n * x + 1;
    seq_sq(x + n2) + n2
}

/// A parameter shadowed by a task result of the same name in a nested block, the outer one
/// read after it.
#[gtap::function]
fn shadow_in_block(n: u64) -> u64 {
    let r = {
        let m = task!(sq(n));
        taskwait!();
        let n = m + 3;
        n * 2
    };
    r + n
}

fn seq_shadow_in_block(n: u64) -> u64 {
    (seq_sq(n) + 3) * 2 + n
}

// ---------------------------------------------------------------------------------------------
// 5. closures defined before a join and called after it

#[gtap::function]
fn closures_around(n: u64) -> u64 {
    let add = |a: u64, b: u64| a + b;
    let k = n % 7 + 1;
    let scale = move |v: u64| v * k;
    let a = task!(sq(n));
    let b = task!(inc(n));
    taskwait!();
    let twice = |v: u64| 2 * v;
    scale(add(a, b)) + twice(k)
}

fn seq_closures_around(n: u64) -> u64 {
    let k = n % 7 + 1;
    (seq_sq(n) + n + 1) * k + 2 * k
}

// ---------------------------------------------------------------------------------------------
// 6. nested blocks and `if let .. else` expressions yielding task results

#[gtap::function]
fn if_let_value(n: u64, pick: Option<u64>) -> u64 {
    let v = if let Some(k) = pick {
        let a = task!(sq(k));
        taskwait!();
        a
    } else {
        let b = task!(inc(n));
        taskwait!();
        b + 10
    };
    let w = if let Some(k) = pick {
        task!(inc(k))
    } else {
        task!(sq(n))
    };
    taskwait!();
    let total = {
        let inner = {
            let c = task!(sq(v % 100));
            taskwait!();
            c + 1
        };
        inner * 2
    };
    v + w + total
}

fn seq_if_let_value(n: u64, pick: Option<u64>) -> u64 {
    let v = if let Some(k) = pick {
        seq_sq(k)
    } else {
        n + 1 + 10
    };
    let w = if let Some(k) = pick { k + 1 } else { seq_sq(n) };
    let total = (seq_sq(v % 100) + 1) * 2;
    v + w + total
}

// ---------------------------------------------------------------------------------------------
// 7. tuple struct and enum arguments

#[derive(Clone, Copy, Debug, PartialEq)]
struct Span(u64, u64);

#[derive(Clone, Copy, Debug, PartialEq)]
enum Shape {
    Square(u64),
    Rect { w: u64, h: u64 },
    Split(Span),
    Empty,
}

#[gtap::function]
fn area(s: Shape) -> u64 {
    match s {
        Shape::Square(a) => {
            let r = task!(sq(a));
            taskwait!();
            r
        }
        Shape::Rect { w, h } if w == h => {
            let r = task!(area(Shape::Square(w)));
            taskwait!();
            r
        }
        Shape::Rect { w, h } => w * h,
        Shape::Split(Span(lo, hi)) => {
            if hi - lo <= 1 {
                return lo;
            }
            let mid = lo + (hi - lo) / 2;
            let a = task!(area(Shape::Split(Span(lo, mid))));
            let b = task!(area(Shape::Split(Span(mid, hi))));
            taskwait!();
            a + b
        }
        Shape::Empty => 0,
    }
}

fn seq_area(s: Shape) -> u64 {
    match s {
        Shape::Square(a) => seq_sq(a),
        Shape::Rect { w, h } if w == h => seq_sq(w),
        Shape::Rect { w, h } => w * h,
        Shape::Split(Span(lo, hi)) => {
            if hi - lo <= 1 {
                return lo;
            }
            let mid = lo + (hi - lo) / 2;
            seq_area(Shape::Split(Span(lo, mid))) + seq_area(Shape::Split(Span(mid, hi)))
        }
        Shape::Empty => 0,
    }
}

/// A tuple struct argument, its fields read after joins, and a tuple struct result.
#[gtap::function]
fn span_stats(s: Span) -> Span {
    if s.1 <= s.0 + 2 {
        return Span(s.1 - s.0, s.0);
    }
    let mid = (s.0 + s.1) / 2;
    let left = task!(span_stats(Span(s.0, mid)));
    let right = task!(span_stats(Span(mid, s.1)));
    taskwait!();
    Span(left.0 + right.0, left.1.min(right.1))
}

fn seq_span_stats(s: Span) -> Span {
    if s.1 <= s.0 + 2 {
        return Span(s.1 - s.0, s.0);
    }
    let mid = (s.0 + s.1) / 2;
    let left = seq_span_stats(Span(s.0, mid));
    let right = seq_span_stats(Span(mid, s.1));
    Span(left.0 + right.0, left.1.min(right.1))
}

// ---------------------------------------------------------------------------------------------
// 8. generic functions with trait bounds

trait Weight: Copy + 'static {
    fn weight(self) -> u64;
}

impl Weight for u32 {
    fn weight(self) -> u64 {
        u64::from(self) * 3
    }
}

impl Weight for Span {
    fn weight(self) -> u64 {
        self.0 + self.1
    }
}

#[gtap::function]
fn weigh<T: Weight>(item: T, copies: u64) -> u64 {
    if copies <= 1 {
        return item.weight() * copies;
    }
    let a = task!(weigh::<T>(item, copies / 2));
    let b = task!(weigh::<T>(item, copies - copies / 2));
    taskwait!();
    a + b
}

fn seq_weigh<T: Weight>(item: T, copies: u64) -> u64 {
    item.weight() * copies
}

// ---------------------------------------------------------------------------------------------
// 9. `const` items and `static` arrays read in bodies

const LIMIT: u64 = 12;
static PRIMES: [u64; 8] = [2, 3, 5, 7, 11, 13, 17, 19];

#[gtap::function]
fn prime_mix(n: u64) -> u64 {
    const STEP: usize = 3;
    static WEIGHTS: [u64; 4] = [1, 10, 100, 1000];
    if n > LIMIT {
        return PRIMES[7] * n;
    }
    let mut total = 0;
    let mut i = 0;
    while i < PRIMES.len() {
        let p = task!(sq(PRIMES[i] + n));
        taskwait!();
        total += p * WEIGHTS[i % WEIGHTS.len()];
        i += STEP;
    }
    total
}

fn seq_prime_mix(n: u64) -> u64 {
    const WEIGHTS: [u64; 4] = [1, 10, 100, 1000];
    if n > LIMIT {
        return PRIMES[7] * n;
    }
    let mut total = 0;
    let mut i = 0;
    while i < PRIMES.len() {
        total += seq_sq(PRIMES[i] + n) * WEIGHTS[i % 4];
        i += 3;
    }
    total
}

// ---------------------------------------------------------------------------------------------
// 10. labelled breaks

#[gtap::function]
fn grid_search(n: u64, target: u64) -> u64 {
    let mut hits = 0;
    let mut last = 0;
    'rows: for i in 0..n {
        for j in 0..n {
            let v = task!(sq(i * n + j));
            taskwait!();
            if v == target {
                last = i * 100 + j;
                break 'rows;
            }
            if v % 5 == 0 {
                hits += 1;
                continue 'rows;
            }
        }
    }
    let bonus = 'b: {
        if hits == 0 {
            break 'b 1;
        }
        let x = task!(inc(hits));
        taskwait!();
        if x > 3 {
            break 'b x * 10;
        }
        x
    };
    hits * 1000 + last + bonus
}

fn seq_grid_search(n: u64, target: u64) -> u64 {
    let mut hits = 0;
    let mut last = 0;
    'rows: for i in 0..n {
        for j in 0..n {
            let v = seq_sq(i * n + j);
            if v == target {
                last = i * 100 + j;
                break 'rows;
            }
            if v % 5 == 0 {
                hits += 1;
                continue 'rows;
            }
        }
    }
    let bonus = 'b: {
        if hits == 0 {
            break 'b 1;
        }
        let x = hits + 1;
        if x > 3 {
            break 'b x * 10;
        }
        x
    };
    hits * 1000 + last + bonus
}

// ---------------------------------------------------------------------------------------------
// 11. `u128`, `i64` and `f64` results mixed

#[gtap::function]
fn wide(n: u64) -> u128 {
    u128::from(n) * u128::from(u64::MAX)
}

#[gtap::function]
fn signed(n: u64) -> i64 {
    3 - (n as i64) * 7
}

#[gtap::function]
fn ratio(a: u64, b: u64) -> f64 {
    a as f64 / (b as f64 + 0.5)
}

#[gtap::function]
fn mixed(n: u64) -> i64 {
    let w = task!(wide(n));
    let s = task!(signed(n));
    let f = task!(ratio(n, 3));
    taskwait!();
    let low = (w % 1_000_003) as i64;
    let scaled = (f * 2.0).floor() as i64;
    if s < 0 {
        low + s + scaled
    } else {
        low - s * scaled
    }
}

fn seq_mixed(n: u64) -> i64 {
    let w = u128::from(n) * u128::from(u64::MAX);
    let s = 3 - (n as i64) * 7;
    let f = n as f64 / (3.0 + 0.5);
    let low = (w % 1_000_003) as i64;
    let scaled = (f * 2.0).floor() as i64;
    if s < 0 {
        low + s + scaled
    } else {
        low - s * scaled
    }
}

// ---------------------------------------------------------------------------------------------
// 12. slices passed as raw pointers + length

#[gtap::function]
fn ptr_sum(p: *const u64, len: usize) -> u64 {
    if len <= 4 {
        let s = unsafe { std::slice::from_raw_parts(p, len) };
        return s.iter().sum();
    }
    let mid = len / 2;
    let a = task!(ptr_sum(p, mid));
    let b = task!(ptr_sum(unsafe { p.add(mid) }, len - mid));
    taskwait!();
    a + b
}

/// The largest element and its index, a slice made from the pointer before the join and read
/// after it.
#[gtap::function]
fn ptr_max(p: *const u64, len: usize) -> (u64, usize) {
    let s = unsafe { std::slice::from_raw_parts(p, len) };
    if len <= 3 {
        let mut best = (0, 0);
        for (i, &v) in s.iter().enumerate() {
            if v > best.0 {
                best = (v, i);
            }
        }
        return best;
    }
    let mid = len / 2;
    let (a, ai) = task!(ptr_max(p, mid));
    let (b, bi) = task!(ptr_max(unsafe { p.add(mid) }, len - mid));
    taskwait!();
    let first = s[0];
    if b > a && b > first {
        (b, bi + mid)
    } else if a >= b && a > first {
        (a, ai)
    } else {
        (first, 0)
    }
}

fn seq_ptr_max(s: &[u64]) -> (u64, usize) {
    let mut best = (0, 0);
    for (i, &v) in s.iter().enumerate() {
        if v > best.0 {
            best = (v, i);
        }
    }
    best
}

// ---------------------------------------------------------------------------------------------
// 13. two mutually recursive task functions

#[gtap::function]
fn ping(n: u64) -> u64 {
    if n == 0 {
        return 1;
    }
    let r = task!(pong(n - 1));
    taskwait!();
    r * 2 + 1
}

#[gtap::function]
fn pong(n: u64) -> u64 {
    if n == 0 {
        return 2;
    }
    let a = task!(ping(n - 1));
    let b = task!(ping(n / 2));
    taskwait!();
    a + b
}

fn seq_ping(n: u64) -> u64 {
    if n == 0 {
        return 1;
    }
    seq_pong(n - 1) * 2 + 1
}

fn seq_pong(n: u64) -> u64 {
    if n == 0 {
        return 2;
    }
    seq_ping(n - 1) + seq_ping(n / 2)
}

// ---------------------------------------------------------------------------------------------
// 14. task results in conditions

#[gtap::function]
fn result_conditions(n: u64) -> u64 {
    let r = task!(sq(n));
    taskwait!();
    let mut out = 0;
    if r > 3 {
        out += 1;
    }
    if r % 2 == 0 && n > 1 {
        let more = task!(inc(r));
        taskwait!();
        out += more;
    } else if r > 100 {
        out += 100;
    }
    let mut cur = task!(inc(n));
    taskwait!();
    while cur < 50 {
        cur = task!(sq(cur + 1));
        taskwait!();
        out += 1;
    }
    match task_result_kind(cur) {
        0 => out,
        k => out + k,
    }
}

fn task_result_kind(v: u64) -> u64 {
    v % 3
}

fn seq_result_conditions(n: u64) -> u64 {
    let r = seq_sq(n);
    let mut out = 0;
    if r > 3 {
        out += 1;
    }
    if r % 2 == 0 && n > 1 {
        out += r + 1;
    } else if r > 100 {
        out += 100;
    }
    let mut cur = n + 1;
    while cur < 50 {
        cur = seq_sq(cur + 1);
        out += 1;
    }
    match task_result_kind(cur) {
        0 => out,
        k => out + k,
    }
}

// ---------------------------------------------------------------------------------------------
// 15. spawns in both branches of an `if`, the join after it (`b` takes a task's result on one
// branch and a value on the other; once an error)

#[gtap::function]
fn both_branches(n: u64) -> u64 {
    let a;
    let b;
    if n % 2 == 0 {
        a = task!(sq(n / 2));
        b = task!(inc(n));
    } else {
        a = task!(inc(n * 3));
        b = 5;
    }
    let mut c = 0;
    if n > 4 {
        c = task!(sq(n - 4));
    } else {
        c = task!(inc(c));
    }
    taskwait!();
    a + b + c
}

fn seq_both_branches(n: u64) -> u64 {
    let (a, b) = if n % 2 == 0 {
        (seq_sq(n / 2), n + 1)
    } else {
        (n * 3 + 1, 5)
    };
    let c = if n > 4 { seq_sq(n - 4) } else { 1 };
    a + b + c
}

/// `let v = if c { task!(..) } else { value };` joined after, then shadowed; and `let w;`
/// given a value in a nested `if` and a task's result in a `match` arm, a `while let` and a
/// `for` binding other locals of its name in between (once an error: "`v` takes a task's
/// result on some branches and this plain value on another").
#[gtap::function]
fn task_or_value_let(n: u64, o: Option<u64>) -> u64 {
    let v = if n > 3 { task!(sq(n)) } else { n + 100 };
    let w;
    match o {
        Some(k) if k > 2 => w = task!(inc(k)),
        Some(w) => {
            let mut x = w;
            x *= 2;
            taskwait!();
            return x + 1;
        }
        None => {
            if n % 2 == 0 {
                w = 7;
            } else {
                w = n * 3;
            }
        }
    }
    let mut s = 0;
    for w in 0..n % 3 {
        s += w;
    }
    taskwait!();
    let v = v + s;
    let u = match n % 4 {
        0 => task!(sq(v % 100)),
        1 => v,
        _ => {
            let t = task!(inc(v));
            taskwait!();
            t * 2
        }
    };
    taskwait!();
    v + w + u
}

fn seq_task_or_value_let(n: u64, o: Option<u64>) -> u64 {
    let v = if n > 3 { seq_sq(n) } else { n + 100 };
    let w = match o {
        Some(k) if k > 2 => k + 1,
        Some(w) => return w * 2 + 1,
        None => {
            if n % 2 == 0 {
                7
            } else {
                n * 3
            }
        }
    };
    let s: u64 = (0..n % 3).sum();
    let v = v + s;
    let u = match n % 4 {
        0 => seq_sq(v % 100),
        1 => v,
        _ => (v + 1) * 2,
    };
    v + w + u
}

// ---------------------------------------------------------------------------------------------
// 16. a run-time number of children, each into its own array element, one join

#[gtap::function]
fn fan_out(n: u64) -> u64 {
    let mut res = [0u64; 8];
    let k = (n % 8) as usize + 1;
    for i in 0..k {
        res[i] = task!(sq(n + i as u64));
    }
    taskwait!();
    let mut pairs = [(0u64, 0u64); 4];
    let mut j = 0;
    while j < 4 {
        pairs[j].1 = task!(inc(j as u64 * n));
        j += 1;
    }
    taskwait!();
    let mut grid = [[0u64; 3]; 3];
    for r in 0..3 {
        for c in 0..3 {
            grid[r][c] = task!(sq((r * 3 + c) as u64));
        }
    }
    taskwait!();
    let total: u64 = res.iter().sum();
    let p: u64 = pairs.iter().map(|&(a, b)| a + b).sum();
    let g: u64 = grid.iter().flatten().sum();
    total + p + g
}

fn seq_fan_out(n: u64) -> u64 {
    let k = (n % 8) as usize + 1;
    let total: u64 = (0..k).map(|i| seq_sq(n + i as u64)).sum();
    let p: u64 = (0..4).map(|j| j * n + 1).sum();
    let g: u64 = (0..9).map(seq_sq).sum();
    total + p + g
}

// ---------------------------------------------------------------------------------------------
// 17. more of what a new user writes

/// A binary search whose probe is a task, with a result in the `while` condition's variables.
#[gtap::function]
fn isqrt(n: u64) -> u64 {
    let mut lo = 0;
    let mut hi = n + 1;
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        let m2 = task!(sq(mid));
        taskwait!();
        if m2 <= n {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

fn seq_isqrt(n: u64) -> u64 {
    let mut lo = 0;
    let mut hi = n + 1;
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if seq_sq(mid) <= n {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// `let .. else` before the spawns, a `match` of the result pair, and `return` of a tuple.
#[gtap::function]
fn quadrants(p: Option<(u64, u64)>) -> (u64, u64) {
    let Some((x, y)) = p else {
        return (0, 0);
    };
    let a = task!(sq(x));
    let b = task!(sq(y));
    taskwait!();
    match (a > 50, b > 50) {
        (true, true) => return (a, b),
        (true, false) | (false, true) => (a.max(b), 1),
        (false, false) => {
            let c = task!(inc(a + b));
            taskwait!();
            (c, 2)
        }
    }
}

fn seq_quadrants(p: Option<(u64, u64)>) -> (u64, u64) {
    let Some((x, y)) = p else {
        return (0, 0);
    };
    let a = seq_sq(x);
    let b = seq_sq(y);
    match (a > 50, b > 50) {
        (true, true) => (a, b),
        (true, false) | (false, true) => (a.max(b), 1),
        (false, false) => (a + b + 1, 2),
    }
}

/// A helper struct with methods updated across joins, and a `for` over a range with `.rev()`.
#[derive(Clone, Copy, Default)]
struct Stats {
    count: u64,
    sum: u64,
    max: u64,
}

impl Stats {
    fn add(&mut self, v: u64) {
        self.count += 1;
        self.sum += v;
        self.max = self.max.max(v);
    }

    fn score(&self) -> u64 {
        self.sum + self.max * 10 + self.count
    }
}

#[gtap::function]
fn stats_over(n: u64) -> u64 {
    let mut st = Stats::default();
    for i in (0..n % 6).rev() {
        let v = task!(sq(i + n));
        taskwait!();
        st.add(v);
    }
    st.score()
}

fn seq_stats_over(n: u64) -> u64 {
    let mut st = Stats::default();
    for i in (0..n % 6).rev() {
        st.add(seq_sq(i + n));
    }
    st.score()
}

/// `let x = match .. { .. => task!(..), .. }` joined after, and the result matched again.
#[gtap::function]
fn match_value_task(n: u64) -> u64 {
    let x = match n % 3 {
        0 => task!(sq(n)),
        1 => task!(inc(n)),
        _ => task!(fibt(n % 15)),
    };
    taskwait!();
    match x {
        0..=9 => x,
        10..=99 => x / 10,
        _ => x % 97,
    }
}

#[gtap::function]
fn fibt(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let a = task!(fibt(n - 1));
    let b = task!(fibt(n - 2));
    taskwait!();
    a + b
}

fn seq_fib(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        seq_fib(n - 1) + seq_fib(n - 2)
    }
}

fn seq_match_value_task(n: u64) -> u64 {
    let x = match n % 3 {
        0 => seq_sq(n),
        1 => n + 1,
        _ => seq_fib(n % 15),
    };
    match x {
        0..=9 => x,
        10..=99 => x / 10,
        _ => x % 97,
    }
}

/// A nested `fn` used before and after the join, and a detached spawn count from the input.
#[gtap::function]
fn nested_fn_user(n: u64) -> u64 {
    fn mix(a: u64, b: u64) -> u64 {
        a.wrapping_mul(31) ^ b
    }
    let seed = mix(n, 7);
    let a = task!(sq(seed % 1000));
    taskwait!();
    mix(a, seed)
}

fn seq_nested_fn_user(n: u64) -> u64 {
    fn mix(a: u64, b: u64) -> u64 {
        a.wrapping_mul(31) ^ b
    }
    let seed = mix(n, 7);
    mix(seq_sq(seed % 1000), seed)
}

/// An early `return` from inside a `for` loop after a join, then the loop's fall-through.
#[gtap::function]
fn first_big(n: u64, bound: u64) -> u64 {
    for i in 1..=n {
        let s = task!(sq(i));
        taskwait!();
        if s >= bound {
            return i;
        }
    }
    0
}

fn seq_first_big(n: u64, bound: u64) -> u64 {
    for i in 1..=n {
        if seq_sq(i) >= bound {
            return i;
        }
    }
    0
}

/// `if let` on an `Option` result with a spawn inside, and `Option` combinators after joins.
#[gtap::function]
fn option_chain(n: u64) -> u64 {
    let h = task!(half(n));
    taskwait!();
    if let Some(v) = h {
        let w = task!(half(v));
        taskwait!();
        return w.map(|x| x * 3).unwrap_or(v);
    }
    let k = task!(half(n + 1));
    taskwait!();
    k.and_then(|x| x.checked_sub(1)).unwrap_or(99)
}

fn seq_option_chain(n: u64) -> u64 {
    if let Some(v) = seq_half(n) {
        return seq_half(v).map(|x| x * 3).unwrap_or(v);
    }
    seq_half(n + 1).and_then(|x| x.checked_sub(1)).unwrap_or(99)
}

/// A tuple of counters updated with results, `x = task!(f(x))` reading the old value.
#[gtap::function]
fn rolling(n: u64) -> u64 {
    let mut x = n % 10;
    let mut acc = (0u64, 0u64);
    for _ in 0..3 {
        x = task!(sq(x + 1));
        taskwait!();
        x %= 1000;
        acc.0 += x;
        acc.1 = acc.1.max(x);
    }
    acc.0 * 2 + acc.1
}

fn seq_rolling(n: u64) -> u64 {
    let mut x = n % 10;
    let mut acc = (0u64, 0u64);
    for _ in 0..3 {
        x = seq_sq(x + 1) % 1000;
        acc.0 += x;
        acc.1 = acc.1.max(x);
    }
    acc.0 * 2 + acc.1
}

/// A unit task writing through a raw pointer into its own element, spawned in a loop and
/// joined once.
#[gtap::function]
fn write_at(p: *mut u64, i: usize, v: u64) {
    unsafe { *p.add(i) = v * v };
}

#[gtap::function]
fn fill_squares(p: *mut u64, len: usize) -> u64 {
    for i in 0..len {
        task!(write_at(p, i, i as u64 + 1));
    }
    taskwait!();
    let s = unsafe { std::slice::from_raw_parts(p, len) };
    s.iter().sum()
}

program!(
    R7 = [
        sq,
        inc,
        classify,
        pair_match,
        first_square_above,
        pop_all,
        collatz_len,
        collatz_step,
        half,
        halves,
        even_or_err,
        sum_evens,
        shadow_chain,
        shadow_in_block,
        closures_around,
        if_let_value,
        area,
        span_stats,
        weigh::<u32>,
        weigh::<Span>,
        prime_mix,
        grid_search,
        wide,
        signed,
        ratio,
        mixed,
        ptr_sum,
        ptr_max,
        ping,
        pong,
        result_conditions,
        both_branches,
        task_or_value_let,
        fan_out,
        isqrt,
        quadrants,
        stats_over,
        match_value_task,
        fibt,
        nested_fn_user,
        first_big,
        option_chain,
        rolling,
        write_at,
        fill_squares
    ]
);

const NS: [u64; 10] = [0, 1, 2, 3, 5, 6, 9, 10, 17, 30];

#[test]
fn match_arms_and_loops() {
    for n in NS {
        check::<R7, _>(classify, (n,), seq_classify(n));
        check::<R7, _>(first_square_above, (n,), seq_first_square_above(n));
        check::<R7, _>(pop_all, (n,), seq_pop_all(n));
        check::<R7, _>(collatz_len, (n,), seq_collatz_len(n));
        for b in [0u64, 1, 2, 4, 7] {
            check::<R7, _>(pair_match, (n, b), seq_pair_match(n, b));
        }
    }
}

#[test]
fn early_exits_and_question_mark() {
    for n in NS.into_iter().chain([4, 8, 12, 40, 2000]) {
        check::<R7, _>(halves, (n,), seq_halves(n));
        for b in [0u64, 3, 4, 1002] {
            check::<R7, _>(sum_evens, (n, b), seq_sum_evens(n, b));
        }
        check::<R7, _>(option_chain, (n,), seq_option_chain(n));
        check::<R7, _>(first_big, (n, 50), seq_first_big(n, 50));
        check::<R7, _>(
            quadrants,
            (Some((n, n / 2)),),
            seq_quadrants(Some((n, n / 2))),
        );
    }
    check::<R7, _>(quadrants, (None,), seq_quadrants(None));
}

#[test]
fn names_closures_and_values() {
    for n in NS {
        check::<R7, _>(shadow_chain, (n,), seq_shadow_chain(n));
        check::<R7, _>(shadow_in_block, (n,), seq_shadow_in_block(n));
        check::<R7, _>(closures_around, (n,), seq_closures_around(n));
        for pick in [None, Some(0), Some(n + 4)] {
            check::<R7, _>(if_let_value, (n, pick), seq_if_let_value(n, pick));
        }
        check::<R7, _>(result_conditions, (n,), seq_result_conditions(n));
        check::<R7, _>(both_branches, (n,), seq_both_branches(n));
        for o in [None, Some(1), Some(2), Some(n + 3)] {
            check::<R7, _>(task_or_value_let, (n, o), seq_task_or_value_let(n, o));
        }
        check::<R7, _>(match_value_task, (n,), seq_match_value_task(n));
        check::<R7, _>(nested_fn_user, (n,), seq_nested_fn_user(n));
        check::<R7, _>(rolling, (n,), seq_rolling(n));
        check::<R7, _>(stats_over, (n,), seq_stats_over(n));
        check::<R7, _>(isqrt, (n * 37,), seq_isqrt(n * 37));
    }
}

#[test]
fn structs_enums_and_generics() {
    let shapes = [
        Shape::Square(7),
        Shape::Rect { w: 4, h: 4 },
        Shape::Rect { w: 3, h: 9 },
        Shape::Split(Span(0, 1)),
        Shape::Split(Span(3, 40)),
        Shape::Empty,
    ];
    for s in shapes {
        check::<R7, _>(area, (s,), seq_area(s));
    }
    for (lo, hi) in [(0u64, 1u64), (2, 3), (0, 10), (5, 77)] {
        check::<R7, _>(span_stats, (Span(lo, hi),), seq_span_stats(Span(lo, hi)));
    }
    for copies in [0u64, 1, 5, 16] {
        check::<R7, _>(weigh::<u32>, (9u32, copies), seq_weigh(9u32, copies));
        let s = Span(2, 5);
        check::<R7, _>(weigh::<Span>, (s, copies), seq_weigh(s, copies));
    }
    for n in NS {
        check::<R7, _>(ping, (n,), seq_ping(n));
        check::<R7, _>(pong, (n,), seq_pong(n));
    }
}

#[test]
fn items_labels_and_numbers() {
    for n in NS.into_iter().chain([11, 12, 13, 100]) {
        check::<R7, _>(prime_mix, (n,), seq_prime_mix(n));
        check::<R7, _>(mixed, (n,), seq_mixed(n));
        for target in [0u64, 4, 25, 49, 1000] {
            check::<R7, _>(grid_search, (n % 6, target), seq_grid_search(n % 6, target));
        }
    }
}

#[test]
fn raw_pointers_and_fan_out() {
    for len in [0usize, 1, 3, 4, 5, 9, 33] {
        let data: Vec<u64> = (0..len as u64).map(|i| (i * 7919) % 101).collect();
        let p = data.as_ptr();
        check::<R7, _>(ptr_sum, (p, len), data.iter().sum());
        if len > 0 {
            check::<R7, _>(ptr_max, (p, len), seq_ptr_max(&data));
        }
        let mut out = vec![0u64; len];
        let want: u64 = (1..=len as u64).map(|v| v * v).sum();
        check::<R7, _>(fill_squares, (out.as_mut_ptr(), len), want);
    }
    for n in NS {
        check::<R7, _>(fan_out, (n,), seq_fan_out(n));
    }
}
