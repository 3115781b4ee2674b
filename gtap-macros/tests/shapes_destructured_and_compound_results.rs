//! Task functions in the shapes users write: a task's result taken by a compound assignment
//! (`x += task!(..)`) or by a `let` that destructures it (`let (a, b) = task!(..)`), and
//! parameter patterns (`fn f((lo, hi): (u64, u64))`), each on the CPU executor
//! against a plain Rust twin with several inputs.

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
fn pair(n: u64) -> (u64, u64) {
    (n / 3, n % 7)
}

// ---------------------------------------------------------------------------------------------
// `x op= task!(..)`: the result is combined into `x` at the join

#[gtap::function]
fn fib_acc(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let mut s = 0;
    s += task!(fib_acc(n - 1));
    s += task!(fib_acc(n - 2));
    taskwait!();
    s
}

fn seq_fib(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        seq_fib(n - 1) + seq_fib(n - 2)
    }
}

/// Every compound operator, and two of them on one local before one join (applied in source
/// order: `(x - a) * b` is not `x * b - a`).
#[gtap::function]
fn all_ops(n: u64) -> u64 {
    let mut x = n + 1000;
    x -= task!(sq(n % 10));
    x *= task!(sq(3));
    let mut b = 0b1010u64;
    b |= task!(sq(n % 4));
    b ^= task!(sq(2));
    b &= task!(sq(5));
    let mut q = n * n + 7;
    q /= task!(sq(2));
    let mut r = n + 100;
    r %= task!(sq(3));
    let mut sh = n;
    sh <<= task!(sq(1));
    let mut sr = n << 4;
    sr >>= task!(sq(2));
    taskwait!();
    x.wrapping_add(b)
        .wrapping_add(q)
        .wrapping_add(r)
        .wrapping_add(sh)
        .wrapping_add(sr)
}

fn seq_all_ops(n: u64) -> u64 {
    let mut x = n + 1000;
    x -= seq_sq(n % 10);
    x *= seq_sq(3);
    let mut b = 0b1010u64;
    b |= seq_sq(n % 4);
    b ^= seq_sq(2);
    b &= seq_sq(5);
    let mut q = n * n + 7;
    q /= seq_sq(2);
    let mut r = n + 100;
    r %= seq_sq(3);
    let mut sh = n;
    sh <<= seq_sq(1);
    let mut sr = n << 4;
    sr >>= seq_sq(2);
    x.wrapping_add(b)
        .wrapping_add(q)
        .wrapping_add(r)
        .wrapping_add(sh)
        .wrapping_add(sr)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Totals {
    pub sum: u64,
    pub parts: [u64; 3],
    pub pair: (u64, u64),
}

/// Updates of fields and elements, an index computed before the spawn, the target read by
/// the spawn's own arguments, statements between the spawn and the join that do not touch it,
/// and a join inside a branch before the one that applies the updates.
#[gtap::function]
fn into_places(n: u64, early: bool) -> Totals {
    let mut t = Totals::default();
    let k = (n % 3) as usize;
    t.sum += task!(sq(n));
    t.parts[k] += task!(sq(n + 1));
    t.pair.1 *= task!(sq(2));
    let mut other = n * 2;
    if early {
        taskwait!();
        other += 1;
    }
    t.pair.0 += task!(sq(other));
    let mut v = [1u64; 4];
    v[k + 1] += task!(sq(k as u64 + 5));
    taskwait!();
    v[0] = v[3] + 1;
    t.parts[0] += v[k + 1] + v[0];
    t
}

fn seq_into_places(n: u64, early: bool) -> Totals {
    let mut t = Totals::default();
    let k = (n % 3) as usize;
    t.sum += seq_sq(n);
    t.parts[k] += seq_sq(n + 1);
    t.pair.1 *= seq_sq(2);
    let mut other = n * 2;
    if early {
        other += 1;
    }
    t.pair.0 += seq_sq(other);
    let mut v = [1u64; 4];
    v[k + 1] += seq_sq(k as u64 + 5);
    v[0] = v[3] + 1;
    t.parts[0] += v[k + 1] + v[0];
    t
}

/// A join per iteration, in a `for` over a range and in a `while`, with `continue` after it; a
/// target read by its own spawn's arguments.
#[gtap::function]
fn per_iteration(n: u64) -> u64 {
    let mut acc = 1u64;
    for i in 0..n {
        acc += task!(sq(i + acc % 5));
        taskwait!();
        if acc % 3 == 0 {
            continue;
        }
        acc ^= i;
    }
    let mut j = 0;
    while j < n {
        j += 1;
        acc = acc.wrapping_mul(3);
        acc -= task!(sq(j % 4));
        taskwait!();
    }
    acc
}

fn seq_per_iteration(n: u64) -> u64 {
    let mut acc = 1u64;
    for i in 0..n {
        acc += seq_sq(i + acc % 5);
        if acc.is_multiple_of(3) {
            continue;
        }
        acc ^= i;
    }
    let mut j = 0;
    while j < n {
        j += 1;
        acc = acc.wrapping_mul(3);
        acc -= seq_sq(j % 4);
    }
    acc
}

/// Updates in branches and arms, each joined in its own block; a queue hint on the spawn.
#[gtap::function]
fn in_branches(n: u64) -> u64 {
    let mut s = n + 10;
    if n % 2 == 0 {
        s += task!(queue = 0, sq(n));
        taskwait!();
    } else {
        s *= task!(sq(2));
        s += task!(sq(1));
        taskwait!();
    }
    match n % 3 {
        0 => {
            s -= task!(sq(1));
            taskwait!();
        }
        1 => {}
        _ => {
            let mut inner = 5;
            inner += task!(sq(n % 7));
            taskwait!();
            s += inner;
        }
    }
    s
}

fn seq_in_branches(n: u64) -> u64 {
    let mut s = n + 10;
    if n.is_multiple_of(2) {
        s += seq_sq(n);
    } else {
        s *= seq_sq(2);
        s += seq_sq(1);
    }
    match n % 3 {
        0 => s -= seq_sq(1),
        1 => {}
        _ => {
            let mut inner = 5;
            inner += seq_sq(n % 7);
            s += inner;
        }
    }
    s
}

// ---------------------------------------------------------------------------------------------
// `let PAT = task!(..)`: the pattern binds at the join

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Span2 {
    pub lo: u64,
    pub hi: u64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Wrap(pub u64);

#[gtap::function]
fn span_of(n: u64) -> Span2 {
    Span2 {
        lo: n / 2,
        hi: n + 3,
    }
}

#[gtap::function]
fn wrap(n: u64) -> Wrap {
    Wrap(n * 11)
}

#[gtap::function]
fn nested(n: u64) -> ((u64, u64), [u64; 3]) {
    ((n, n + 1), [n % 5, n % 7, n % 11])
}

/// Tuple, struct, tuple-struct, nested and array patterns; `mut` and `_` in them; a typed
/// pattern; a name of one pattern kept across a second join; a pattern over an `if` whose
/// branches are tasks.
#[gtap::function]
fn destructure(n: u64) -> u64 {
    let (a, b) = task!(pair(n));
    let Span2 { lo, hi: top } = task!(span_of(n));
    let Wrap(w) = task!(wrap(n));
    let ((mut x, _), [p, q, r]) = task!(nested(n));
    let (c, d): (u64, u64) = task!(pair(n + 5));
    taskwait!();
    x += a * b;
    let (e, f) = if n % 2 == 0 {
        task!(pair(x))
    } else {
        task!(pair(top))
    };
    let s = task!(sq(w % 100));
    taskwait!();
    x + lo + top + w + p + q + r + c + d + e + f + s
}

fn seq_destructure(n: u64) -> u64 {
    let pair_of = |n: u64| (n / 3, n % 7);
    let (a, b) = pair_of(n);
    let Span2 { lo, hi: top } = Span2 {
        lo: n / 2,
        hi: n + 3,
    };
    let Wrap(w) = Wrap(n * 11);
    let ((mut x, _), [p, q, r]) = ((n, n + 1), [n % 5, n % 7, n % 11]);
    let (c, d): (u64, u64) = pair_of(n + 5);
    x += a * b;
    let (e, f) = if n.is_multiple_of(2) {
        pair_of(x)
    } else {
        pair_of(top)
    };
    let s = seq_sq(w % 100);
    x + lo + top + w + p + q + r + c + d + e + f + s
}

/// A divide and conquer whose task returns a pair: the count and the sum of a range's values
/// divisible by 3.
#[gtap::function]
fn count_sum(lo: u64, hi: u64) -> (u64, u64) {
    if hi - lo <= 4 {
        let mut c = 0;
        let mut s = 0;
        for v in lo..hi {
            if v % 3 == 0 {
                c += 1;
                s += v;
            }
        }
        return (c, s);
    }
    let mid = lo + (hi - lo) / 2;
    let (c1, s1) = task!(count_sum(lo, mid));
    let (c2, s2) = task!(count_sum(mid, hi));
    taskwait!();
    (c1 + c2, s1 + s2)
}

/// Casts of results (`as u32`) in each deferred form, and a `let` of a tuple and an array of
/// tasks.
#[gtap::function]
fn casts_and_tuples(n: u64) -> u64 {
    let small = task!(sq(n % 300)) as u16;
    let mut acc = [0u8; 2];
    acc[1] = task!(sq(n % 20)) as u8;
    let mut wide = 7u32;
    wide += task!(sq(n % 5)) as u32;
    let (a, b) = (task!(sq(n)), task!(pair(n)));
    let [c, d]: [u64; 2] = [task!(sq(1)), task!(sq(2)) as u64];
    taskwait!();
    u64::from(small) + u64::from(acc[1]) + u64::from(wide) + a % 1000 + b.0 + b.1 + c + d
}

fn seq_casts_and_tuples(n: u64) -> u64 {
    let small = seq_sq(n % 300) as u16;
    let acc1 = seq_sq(n % 20) as u8;
    let wide = 7u32 + seq_sq(n % 5) as u32;
    let (a, b) = (seq_sq(n), (n / 3, n % 7));
    u64::from(small) + u64::from(acc1) + u64::from(wide) + a % 1000 + b.0 + b.1 + 1 + 4
}

// ---------------------------------------------------------------------------------------------
// parameter patterns

#[gtap::function]
fn range_sum((lo, hi): (u64, u64), depth: u32) -> u64 {
    if hi - lo <= 2 || depth == 0 {
        return (lo..hi).sum();
    }
    let mid = (lo + hi) / 2;
    let a = task!(range_sum((lo, mid), depth - 1));
    let b = task!(range_sum((mid, hi), depth - 1));
    taskwait!();
    // `lo` and `hi` after the join: read from the arguments again, not saved.
    a + b + (hi - lo) * 0
}

#[gtap::function]
fn span_len(Span2 { lo, hi }: Span2, _: u32, [w0, w1]: [u64; 2]) -> u64 {
    if hi <= lo + 1 {
        return w0 * lo + w1;
    }
    let mid = lo + (hi - lo) / 2;
    let a = task!(span_len(Span2 { lo, hi: mid }, 0, [w0, w1]));
    let b = task!(span_len(Span2 { lo: mid, hi }, 1, [w0, w1 + 1]));
    taskwait!();
    a + b + hi - lo
}

fn seq_span_len(s: Span2, w0: u64, w1: u64) -> u64 {
    if s.hi <= s.lo + 1 {
        return w0 * s.lo + w1;
    }
    let mid = s.lo + (s.hi - s.lo) / 2;
    seq_span_len(Span2 { lo: s.lo, hi: mid }, w0, w1)
        + seq_span_len(Span2 { lo: mid, hi: s.hi }, w0, w1 + 1)
        + s.hi
        - s.lo
}

/// A `mut` name of a pattern changed across joins, `x @ (..)`, nested patterns.
#[gtap::function]
fn mut_pattern((mut a, b): (u64, u64), whole @ ((c, _), d): ((u64, u8), u16)) -> u64 {
    a += task!(sq(b % 9));
    taskwait!();
    let t = task!(sq(u64::from(d) % 5));
    taskwait!();
    a *= 3;
    let u = task!(sq(c % 4));
    taskwait!();
    a + t + u + whole.0 .0 + u64::from(whole.0 .1) + b
}

fn seq_mut_pattern(a: u64, b: u64, c: u64, e: u8, d: u16) -> u64 {
    let mut a = a;
    a += seq_sq(b % 9);
    let t = seq_sq(u64::from(d) % 5);
    a *= 3;
    let u = seq_sq(c % 4);
    a + t + u + c + u64::from(e) + b
}

program!(
    R5 = [
        sq,
        pair,
        fib_acc,
        all_ops,
        into_places,
        per_iteration,
        in_branches,
        span_of,
        wrap,
        nested,
        destructure,
        casts_and_tuples,
        count_sum,
        range_sum,
        span_len,
        mut_pattern
    ]
);

#[test]
fn compound_assignment_of_results() {
    for n in [0u64, 1, 2, 10, 18] {
        check::<R5, _>(fib_acc, (n,), seq_fib(n));
    }
    for n in [0u64, 3, 7, 30, 95] {
        check::<R5, _>(all_ops, (n,), seq_all_ops(n));
        for early in [false, true] {
            check::<R5, _>(into_places, (n, early), seq_into_places(n, early));
        }
        check::<R5, _>(per_iteration, (n,), seq_per_iteration(n));
        check::<R5, _>(in_branches, (n,), seq_in_branches(n));
    }
}

#[test]
fn destructuring_let_of_results() {
    for n in [0u64, 1, 4, 9, 77, 1000] {
        check::<R5, _>(destructure, (n,), seq_destructure(n));
        check::<R5, _>(casts_and_tuples, (n,), seq_casts_and_tuples(n));
    }
    for (lo, hi) in [(0u64, 0u64), (0, 3), (1, 100), (10, 1000)] {
        let want = (lo..hi).filter(|v| v % 3 == 0);
        let want = (want.clone().count() as u64, want.sum());
        check::<R5, _>(count_sum, (lo, hi), want);
    }
}

#[test]
fn parameter_patterns() {
    for (lo, hi, d) in [(0u64, 10u64, 3u32), (5, 100, 10), (0, 1, 0), (7, 7, 2)] {
        check::<R5, _>(range_sum, ((lo, hi), d), (lo..hi).sum());
    }
    for (lo, hi) in [(0u64, 1u64), (0, 9), (5, 64)] {
        for w in [[1u64, 0], [3, 2]] {
            let s = Span2 { lo, hi };
            check::<R5, _>(span_len, (s, 7, w), seq_span_len(s, w[0], w[1]));
        }
    }
    for (a, b, c, e, d) in [(1u64, 2u64, 3u64, 4u8, 5u16), (100, 17, 9, 255, 999)] {
        check::<R5, _>(
            mut_pattern,
            ((a, b), ((c, e), d)),
            seq_mut_pattern(a, b, c, e, d),
        );
    }
}

// ---------------------------------------------------------------------------------------------
// second batch: task functions as a new Rust user writes them (iterators and closures around
// the markers, slices, `Option`/`Result` combinators, shadowing, nested matches, early
// returns, a struct's methods, `while let`, labelled loops)

use gtap::Slice;

fn cpu() -> gtap::Runtime {
    gtap::Runtime::cpu(gtap::Config {
        workers: 2,
        ..Default::default()
    })
    .expect("a CPU runtime")
}

/// A small xorshift generator with a fixed seed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x % n
    }
}

/// Counts of the values by their remainder mod 4, the halves summed with `array::from_fn`.
#[gtap::function]
fn histogram(xs: Slice<u8>, lo: usize, hi: usize) -> [u32; 4] {
    if hi - lo <= 16 {
        let mut h = [0u32; 4];
        (lo..hi)
            .map(|i| xs.get(i) % 4)
            .for_each(|b| h[b as usize] += 1);
        return h;
    }
    let mid = lo + (hi - lo) / 2;
    let left = task!(histogram(xs, lo, mid));
    let right = task!(histogram(xs, mid, hi));
    taskwait!();
    std::array::from_fn(|k| left[k] + right[k])
}

fn seq_histogram(xs: &[u8]) -> [u32; 4] {
    let mut h = [0u32; 4];
    for x in xs {
        h[(x % 4) as usize] += 1;
    }
    h
}

/// The longest strictly increasing run, as a monoid with methods.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Run {
    len: u32,
    best: u32,
    prefix: u32,
    suffix: u32,
    first: i32,
    last: i32,
}

impl Run {
    fn one(x: i32) -> Self {
        Run {
            len: 1,
            best: 1,
            prefix: 1,
            suffix: 1,
            first: x,
            last: x,
        }
    }

    fn all_rising(&self) -> bool {
        self.prefix == self.len
    }

    fn merge(self, r: Run) -> Run {
        let joins = self.last < r.first;
        let across = if joins { self.suffix + r.prefix } else { 0 };
        Run {
            len: self.len + r.len,
            best: self.best.max(r.best).max(across),
            prefix: if joins && self.all_rising() {
                self.len + r.prefix
            } else {
                self.prefix
            },
            suffix: if joins && r.all_rising() {
                r.len + self.suffix
            } else {
                r.suffix
            },
            first: self.first,
            last: r.last,
        }
    }
}

#[gtap::function]
fn longest_run(xs: Slice<i32>, lo: usize, hi: usize) -> Run {
    if hi - lo < 8 {
        let mut run = Run::one(xs.get(lo));
        for i in lo + 1..hi {
            run = run.merge(Run::one(xs.get(i)));
        }
        return run;
    }
    let mid = (lo + hi) / 2;
    let left = task!(longest_run(xs, lo, mid));
    let right = task!(longest_run(xs, mid, hi));
    taskwait!();
    left.merge(right)
}

fn seq_longest_run(xs: &[i32]) -> u32 {
    let (mut best, mut cur) = (1u32, 1u32);
    for w in xs.windows(2) {
        cur = if w[0] < w[1] { cur + 1 } else { 1 };
        best = best.max(cur);
    }
    best
}

/// The first index holding `target`: `Option` combinators, an early return after the join.
#[gtap::function]
fn find_first(xs: Slice<i64>, lo: usize, hi: usize, target: i64) -> Option<usize> {
    if hi - lo <= 8 {
        return (lo..hi).find(|&i| xs.get(i) == target);
    }
    let mid = lo + (hi - lo) / 2;
    let left = task!(find_first(xs, lo, mid, target));
    let right = task!(find_first(xs, mid, hi, target));
    taskwait!();
    if let Some(i) = left {
        return Some(i);
    }
    right.filter(|&i| i >= mid).or(None)
}

/// Parses decimal digits, the error the position of the first bad byte: `?` on both halves,
/// `checked_*` and `ok_or`, shadowing of the results.
#[gtap::function]
fn parse_digits(text: Slice<u8>, lo: usize, hi: usize) -> Result<u64, usize> {
    if hi - lo <= 4 {
        let mut v: u64 = 0;
        for i in lo..hi {
            let d = text.get(i);
            if !d.is_ascii_digit() {
                return Err(i);
            }
            v = v
                .checked_mul(10)
                .ok_or(i)?
                .checked_add(u64::from(d - b'0'))
                .ok_or(i)?;
        }
        return Ok(v);
    }
    let mid = lo + (hi - lo) / 2;
    let left = task!(parse_digits(text, lo, mid));
    let right = task!(parse_digits(text, mid, hi));
    taskwait!();
    let left = left?;
    let right = right?;
    let scale = 10u64.checked_pow((hi - mid) as u32).ok_or(mid)?;
    left.checked_mul(scale)
        .and_then(|v| v.checked_add(right))
        .ok_or(lo)
}

fn seq_parse(text: &[u8]) -> Result<u64, usize> {
    let mut v: u64 = 0;
    for (i, &d) in text.iter().enumerate() {
        if !d.is_ascii_digit() {
            return Err(i);
        }
        v = v
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(d - b'0')))
            .ok_or(i)?;
    }
    Ok(v)
}

/// An expression tree in a slice of enum nodes: nested `match`es, or-patterns, compound
/// assignments of results.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Node {
    Num(i64),
    Add(u32, u32),
    Mul(u32, u32),
    Neg(u32),
}

#[gtap::function]
fn eval(nodes: Slice<Node>, i: u32) -> i64 {
    match nodes.get(i as usize) {
        Node::Num(v) => v,
        Node::Add(a, b) | Node::Mul(a, b) => {
            let mut acc = task!(eval(nodes, a));
            let y = task!(eval(nodes, b));
            taskwait!();
            match nodes.get(i as usize) {
                Node::Add(..) => acc = acc.wrapping_add(y),
                _ => acc = acc.wrapping_mul(y),
            }
            acc
        }
        Node::Neg(a) => {
            let mut v = 0i64;
            v -= task!(eval(nodes, a));
            taskwait!();
            v
        }
    }
}

fn seq_eval(nodes: &[Node], i: u32) -> i64 {
    match nodes[i as usize] {
        Node::Num(v) => v,
        Node::Add(a, b) => seq_eval(nodes, a).wrapping_add(seq_eval(nodes, b)),
        Node::Mul(a, b) => seq_eval(nodes, a).wrapping_mul(seq_eval(nodes, b)),
        Node::Neg(a) => 0 - seq_eval(nodes, a),
    }
}

#[gtap::function]
fn weight(bit: u32) -> u64 {
    u64::from(bit) * 3 + 1
}

/// `while let` over the set bits, one child per bit joined in the loop.
#[gtap::function]
fn bit_weights(n: u64) -> u64 {
    let lowest = |x: u64| {
        if x == 0 {
            None
        } else {
            Some(x.trailing_zeros())
        }
    };
    let mut rest = n;
    let mut total = 0;
    while let Some(bit) = lowest(rest) {
        rest &= rest - 1;
        total += task!(weight(bit));
        taskwait!();
    }
    total
}

fn seq_bit_weights(n: u64) -> u64 {
    (0..64u32)
        .filter(|b| n >> b & 1 == 1)
        .map(|b| u64::from(b) * 3 + 1)
        .sum()
}

#[gtap::function]
fn row_sum(y: u32, w: u32) -> u64 {
    (0..w).map(|x| u64::from(x * y % 7)).sum()
}

/// Labelled loops: rows summed by children until a limit, columns scanned inline.
#[gtap::function]
fn grid_until(w: u32, h: u32, limit: u64) -> (u64, u32) {
    let mut total = 0;
    let mut rows = 0;
    'rows: for y in 0..h {
        'cols: for x in 0..w {
            if x * y % 7 == 6 {
                break 'cols;
            }
            if x > 50 {
                continue 'rows;
            }
        }
        let row = task!(row_sum(y, w));
        taskwait!();
        if total + row > limit {
            break 'rows;
        }
        total += row;
        rows += 1;
    }
    (total, rows)
}

fn seq_grid_until(w: u32, h: u32, limit: u64) -> (u64, u32) {
    let mut total = 0;
    let mut rows = 0;
    'rows: for y in 0..h {
        for x in 0..w {
            if x * y % 7 == 6 {
                break;
            }
            if x > 50 {
                continue 'rows;
            }
        }
        let row: u64 = (0..w).map(|x| u64::from(x * y % 7)).sum();
        if total + row > limit {
            break 'rows;
        }
        total += row;
        rows += 1;
    }
    (total, rows)
}

/// Occurrences of `x` in a sorted slice: early returns before any spawn.
#[gtap::function]
fn count_sorted(xs: Slice<u32>, lo: usize, hi: usize, x: u32) -> usize {
    if lo == hi {
        return 0;
    }
    if xs.get(lo) > x || xs.get(hi - 1) < x {
        return 0;
    }
    if xs.get(lo) == x && xs.get(hi - 1) == x {
        return hi - lo;
    }
    let mid = lo + (hi - lo) / 2;
    let mut n = 0;
    n += task!(count_sorted(xs, lo, mid, x));
    n += task!(count_sorted(xs, mid, hi, x));
    taskwait!();
    n
}

/// A tuple parameter matched in nested `match`es; a `loop` with `break` of a value after a
/// join.
#[gtap::function]
fn gcd_steps((a, b): (u64, u64), budget: u32) -> (u64, u32) {
    match (a, b) {
        (0, y) | (y, 0) => (y, 0),
        (x, y) if budget == 0 => (x.min(y), 0),
        (x, y) => {
            let (g, steps) = task!(gcd_steps((y, x % y), budget - 1));
            taskwait!();
            let steps = loop {
                match steps.checked_add(1) {
                    Some(s) => break s,
                    None => break u32::MAX,
                }
            };
            (g, steps)
        }
    }
}

fn seq_gcd_steps(a: u64, b: u64, budget: u32) -> (u64, u32) {
    match (a, b) {
        (0, y) | (y, 0) => (y, 0),
        (x, y) if budget == 0 => (x.min(y), 0),
        (x, y) => {
            let (g, steps) = seq_gcd_steps(y, x % y, budget - 1);
            (g, steps + 1)
        }
    }
}

/// An `Option` argument with combinators; children spawned from a `for` over an iterator of
/// an array (the join after the loop), results into an array.
#[gtap::function]
fn fan_out(n: u32, limit: Option<u32>) -> u64 {
    if limit == Some(0) || n < 2 {
        return u64::from(n);
    }
    let next = limit.map(|l| l - 1);
    let mut parts = [0u64; 3];
    for (k, d) in [1u32, 2, 3].iter().enumerate() {
        if n > *d {
            parts[k] = task!(fan_out(n - d, next));
        }
    }
    taskwait!();
    parts.iter().copied().filter(|p| *p > 0).sum::<u64>() + u64::from(limit.is_none_or(|l| l > 3))
}

fn seq_fan_out(n: u32, limit: Option<u32>) -> u64 {
    if limit == Some(0) || n < 2 {
        return u64::from(n);
    }
    let next = limit.map(|l| l - 1);
    let mut s = 0;
    for d in [1u32, 2, 3] {
        if n > d {
            let v = seq_fan_out(n - d, next);
            if v > 0 {
                s += v;
            }
        }
    }
    s + u64::from(limit.is_none_or(|l| l > 3))
}

program!(
    R5b = [
        histogram,
        longest_run,
        find_first,
        parse_digits,
        eval,
        weight,
        bit_weights,
        row_sum,
        grid_until,
        count_sorted,
        gcd_steps,
        fan_out
    ]
);

#[test]
fn new_user_shapes() {
    let mut rng = Rng(0x5eed);
    let mut rt = cpu();
    for n in [1usize, 17, 100, 1000] {
        let xs: Vec<u8> = (0..n).map(|_| rng.below(256) as u8).collect();
        let b = rt.upload(&xs).unwrap();
        let got = rt.run::<R5b, _>(histogram, (b.slice(), 0, n)).unwrap();
        assert_eq!(got, seq_histogram(&xs), "histogram n={n}");
        let ys: Vec<i32> = (0..n).map(|_| rng.below(9) as i32 - 4).collect();
        let yb = rt.upload(&ys).unwrap();
        let got = rt.run::<R5b, _>(longest_run, (yb.slice(), 0, n)).unwrap();
        assert_eq!(got.best, seq_longest_run(&ys), "longest_run n={n}");
        let zs: Vec<i64> = (0..n).map(|_| rng.below(50) as i64).collect();
        let zb = rt.upload(&zs).unwrap();
        for target in [zs[0], zs[n / 2], zs[n - 1], 77] {
            let got = rt
                .run::<R5b, _>(find_first, (zb.slice(), 0, n, target))
                .unwrap();
            assert_eq!(got, zs.iter().position(|&z| z == target), "find_first");
        }
        let mut sorted: Vec<u32> = (0..n).map(|_| rng.below(12) as u32).collect();
        sorted.sort_unstable();
        let sb = rt.upload(&sorted).unwrap();
        for x in [0u32, 3, 11, 20] {
            let got = rt
                .run::<R5b, _>(count_sorted, (sb.slice(), 0, n, x))
                .unwrap();
            assert_eq!(got, sorted.iter().filter(|&&v| v == x).count(), "count");
        }
    }
    for text in [
        &b"7"[..],
        b"1234567890",
        b"00000000000000000042",
        b"18446744073709551615",
        b"18446744073709551616",
        b"12x4",
        b"99999999999999999999999",
    ] {
        let b = rt.upload(text).unwrap();
        let got = rt
            .run::<R5b, _>(parse_digits, (b.slice(), 0, text.len()))
            .unwrap();
        let want = seq_parse(text);
        // An overflow is reported at the first position where it shows, which differs
        // between the halves and the sequential scan: compare whether both fail.
        match (got, want) {
            (Ok(g), Ok(w)) => assert_eq!(g, w),
            (Err(g), Err(w)) if text[w].is_ascii_digit() => assert!(g <= text.len()),
            (g, w) => assert_eq!(g, w, "{}", String::from_utf8_lossy(text)),
        }
    }
    // (1 + 2) * -(4 * (5 + -6))
    let nodes = [
        Node::Mul(1, 4),
        Node::Add(2, 3),
        Node::Num(1),
        Node::Num(2),
        Node::Neg(5),
        Node::Mul(6, 7),
        Node::Num(4),
        Node::Add(8, 9),
        Node::Num(5),
        Node::Neg(10),
        Node::Num(6),
    ];
    let nb = rt.upload(&nodes).unwrap();
    for root in 0..nodes.len() as u32 {
        let got = rt.run::<R5b, _>(eval, (nb.slice(), root)).unwrap();
        assert_eq!(got, seq_eval(&nodes, root), "eval {root}");
    }
    for n in [0u64, 1, 0b1011, u64::MAX, 1 << 63] {
        check::<R5b, _>(bit_weights, (n,), seq_bit_weights(n));
    }
    for (w, h, limit) in [
        (3u32, 4u32, 100u64),
        (10, 10, 50),
        (60, 5, 1000),
        (8, 30, 200),
    ] {
        check::<R5b, _>(grid_until, (w, h, limit), seq_grid_until(w, h, limit));
    }
    for (a, b, budget) in [
        (0u64, 5u64, 3u32),
        (48, 18, 10),
        (1071, 462, 1),
        (89, 55, 20),
    ] {
        check::<R5b, _>(gcd_steps, ((a, b), budget), seq_gcd_steps(a, b, budget));
    }
    for n in [0u32, 1, 2, 5, 9] {
        for limit in [None, Some(0), Some(2), Some(5)] {
            check::<R5b, _>(fan_out, (n, limit), seq_fan_out(n, limit));
        }
    }
}

// ---------------------------------------------------------------------------------------------
// third batch: a struct accumulator with `&mut self` methods kept across joins, a labelled
// block with joins, `if let .. else if let` chains with deferred updates, `let .. else` before
// a join, destructuring assignment in a loop with joins, an `impl` in the body, a guard and an
// `@` binding on a destructured result, a block-level function with deferred updates

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Acc {
    n: u32,
    sum: u64,
    max: u64,
}

impl Acc {
    fn push(&mut self, v: u64) {
        self.n += 1;
        self.sum += v;
        self.max = self.max.max(v);
    }
}

#[gtap::function]
fn acc_walk(n: u64) -> Acc {
    let mut acc = Acc::default();
    let mut i = 0;
    loop {
        if i == n {
            break;
        }
        let v = task!(sq(i));
        taskwait!();
        acc.push(v % 1000);
        i += 1;
    }
    acc.sum += task!(sq(n));
    acc.n *= task!(sq(2)) as u32;
    taskwait!();
    acc
}

fn seq_acc_walk(n: u64) -> Acc {
    let mut acc = Acc::default();
    for i in 0..n {
        acc.push(seq_sq(i) % 1000);
    }
    acc.sum += seq_sq(n);
    acc.n *= seq_sq(2) as u32;
    acc
}

#[gtap::function]
fn classify(n: u64) -> u64 {
    let found = 'search: {
        if n % 5 == 0 {
            let (q, r) = task!(pair(n));
            taskwait!();
            if q > r {
                break 'search q - r;
            }
        }
        let mut s = 1;
        s += task!(sq(n % 4));
        taskwait!();
        s
    };
    let maybe = if n % 2 == 0 { Some(n / 2) } else { None };
    let other = if n % 3 == 0 {
        Ok::<u64, u64>(n / 3)
    } else {
        Err(n)
    };
    let mut score = found;
    if let Some(h) = maybe {
        score += task!(sq(h % 8));
        taskwait!();
    } else if let Ok(t) = other {
        score *= task!(sq(t % 3 + 1));
        taskwait!();
    } else {
        score ^= 0x55;
    }
    let Some(limit) = n.checked_sub(3) else {
        return score;
    };
    let (lo, hi) = task!(pair(limit));
    taskwait!();
    match (lo, hi) {
        (0, _) => score,
        (l, h @ 0..=3) if l > h => score + l * 10 + h,
        (l, h) => score + l + h,
    }
}

fn seq_classify(n: u64) -> u64 {
    let pair_of = |n: u64| (n / 3, n % 7);
    let found = 'search: {
        if n.is_multiple_of(5) {
            let (q, r) = pair_of(n);
            if q > r {
                break 'search q - r;
            }
        }
        1 + seq_sq(n % 4)
    };
    let maybe = if n.is_multiple_of(2) {
        Some(n / 2)
    } else {
        None
    };
    let other = if n.is_multiple_of(3) {
        Ok::<u64, u64>(n / 3)
    } else {
        Err(n)
    };
    let mut score = found;
    if let Some(h) = maybe {
        score += seq_sq(h % 8);
    } else if let Ok(t) = other {
        score *= seq_sq(t % 3 + 1);
    } else {
        score ^= 0x55;
    }
    let Some(limit) = n.checked_sub(3) else {
        return score;
    };
    match pair_of(limit) {
        (0, _) => score,
        (l, h @ 0..=3) if l > h => score + l * 10 + h,
        (l, h) => score + l + h,
    }
}

/// Fibonacci pairs by destructuring assignment, a child per step; an `impl` in the body.
#[gtap::function]
fn fib_pairs(n: u32) -> u64 {
    struct Step(u64);
    impl Step {
        fn mix(&self, x: u64) -> u64 {
            (self.0 ^ x) % 1_000_003
        }
    }
    let (mut a, mut b) = (0u64, 1u64);
    let mut k = 0;
    while k < n {
        let extra = task!(sq(u64::from(k) % 11));
        taskwait!();
        (a, b) = (b, (a + b + Step(extra).mix(k.into())) % 1_000_003);
        k += 1;
    }
    a
}

fn seq_fib_pairs(n: u32) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for k in 0..n {
        let extra = seq_sq(u64::from(k) % 11);
        (a, b) = (b, (a + b + (extra ^ u64::from(k)) % 1_000_003) % 1_000_003);
    }
    a
}

#[gtap::function(block)]
fn bdeferred(n: u32) -> u64 {
    let t = gtap::block::thread_index();
    let mut part = u64::from(t);
    part += task!(sq(u64::from(n + t)));
    part *= task!(sq(2));
    taskwait!();
    gtap::block::sum_u64(part)
}

program!(R5c = [sq, pair, acc_walk, classify, fib_pairs, bdeferred]);

#[test]
fn more_new_user_shapes() {
    for n in [0u64, 1, 3, 10, 25] {
        check::<R5c, _>(acc_walk, (n,), seq_acc_walk(n));
    }
    for n in 0u64..60 {
        check::<R5c, _>(classify, (n,), seq_classify(n));
    }
    for n in [0u32, 1, 2, 7, 40] {
        check::<R5c, _>(fib_pairs, (n,), seq_fib_pairs(n));
    }
    for n in [0u32, 5] {
        // one thread per block on the CPU executor
        check::<R5c, _>(bdeferred, (n,), seq_sq(u64::from(n)) * 4);
    }
}
