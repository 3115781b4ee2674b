//! More programs in the shapes users write (see `shapes_arguments_and_loops.rs`), each on the CPU executor
//! against a plain Rust twin.

mod common;

use common::check;
use gtap::{program, Slice};

#[gtap::function]
fn sq(x: u64) -> u64 {
    x.wrapping_mul(x)
}

// while let over a local "stack" state with a join inside; break with a value out of a loop
#[gtap::function]
fn wl(n: u64) -> u64 {
    let mut cur = Some(n);
    let mut acc = 0u64;
    while let Some(k) = cur {
        let s = task!(sq(k));
        taskwait!();
        acc = acc.wrapping_add(s);
        cur = if k == 0 { None } else { Some(k / 2) };
    }
    let found = loop {
        let s = task!(sq(acc % 97));
        taskwait!();
        if s % 2 == 0 || acc == 0 {
            break s + 1;
        }
        acc -= 1;
    };
    found ^ acc
}

fn seq_wl(n: u64) -> u64 {
    let mut cur = Some(n);
    let mut acc = 0u64;
    while let Some(k) = cur {
        acc = acc.wrapping_add(k.wrapping_mul(k));
        cur = if k == 0 { None } else { Some(k / 2) };
    }
    let found = loop {
        let s = (acc % 97) * (acc % 97);
        if s.is_multiple_of(2) || acc == 0 {
            break s + 1;
        }
        acc -= 1;
    };
    found ^ acc
}

// match on a slice pattern of an array argument, on references, tuple of task results
#[gtap::function]
fn slicepat(a: [u64; 4], o: Option<u64>) -> u64 {
    let head = match a {
        [0, ..] => 0,
        [x, y, ..] if x > y => {
            let r = task!(sq(x - y));
            taskwait!();
            r
        }
        [x, .., z] => {
            let r = task!(sq(x + z));
            taskwait!();
            r + 1
        }
    };
    let by_ref = match &o {
        Some(k) => {
            let r = task!(sq(*k));
            taskwait!();
            r
        }
        None => 7,
    };
    let p = task!(sq(head));
    let q = task!(sq(by_ref));
    taskwait!();
    match (p % 3, q % 3) {
        (0, 0) => 1,
        (0, _) | (_, 0) => p ^ q,
        _ => p.wrapping_add(q),
    }
}

fn seq_slicepat(a: [u64; 4], o: Option<u64>) -> u64 {
    let head = match a {
        [0, ..] => 0,
        [x, y, ..] if x > y => (x - y) * (x - y),
        [x, .., z] => (x + z) * (x + z) + 1,
    };
    let by_ref = match &o {
        Some(k) => k * k,
        None => 7,
    };
    let p = head.wrapping_mul(head);
    let q = by_ref.wrapping_mul(by_ref);
    match (p % 3, q % 3) {
        (0, 0) => 1,
        (0, _) | (_, 0) => p ^ q,
        _ => p.wrapping_add(q),
    }
}

// early return from nested loops after a join; shadowing of a task result with another task
#[gtap::function]
fn nested_ret(n: u64, limit: u64) -> u64 {
    let mut total = 0u64;
    let mut i = 0u64;
    while i < n {
        for j in 0..i {
            let a = task!(sq(i + j));
            taskwait!();
            let a = task!(sq(a % 13));
            taskwait!();
            total += a;
            if total > limit {
                return total * 1000 + i * 10 + j;
            }
        }
        i += 1;
    }
    total
}

fn seq_nested_ret(n: u64, limit: u64) -> u64 {
    let mut total = 0u64;
    for i in 0..n {
        for j in 0..i {
            let a = (i + j) * (i + j);
            let a = (a % 13) * (a % 13);
            total += a;
            if total > limit {
                return total * 1000 + i * 10 + j;
            }
        }
    }
    total
}

// task results used in closures and iterator chains after the join; Option/Result combinators
#[gtap::function]
fn maybe(x: u64) -> Option<u64> {
    if x % 3 == 0 {
        None
    } else {
        Some(x * 2)
    }
}

#[gtap::function]
fn chains(n: u64) -> u64 {
    let a = task!(sq(n));
    let m = task!(maybe(n));
    taskwait!();
    let s: u64 = (0..n).map(|i| i * a % 7).sum();
    let t = m.map(|v| v + 1).filter(|v| *v > 3).unwrap_or(0);
    let u = m
        .and_then(|v| v.checked_sub(5))
        .ok_or(3u64)
        .unwrap_or_else(|e| e * 2);
    let w = (1..=3).fold(a, |acc, k| acc.wrapping_mul(k + s));
    s + t + u + w
}

fn seq_chains(n: u64) -> u64 {
    let a = n * n;
    let m = if n.is_multiple_of(3) {
        None
    } else {
        Some(n * 2)
    };
    let s: u64 = (0..n).map(|i| i * a % 7).sum();
    let t = m.map(|v| v + 1).filter(|v| *v > 3).unwrap_or(0);
    let u = m
        .and_then(|v| v.checked_sub(5))
        .ok_or(3u64)
        .unwrap_or_else(|e| e * 2);
    let w = (1..=3).fold(a, |acc, k| acc.wrapping_mul(k + s));
    s + t + u + w
}

// `?` with a custom error enum and a From conversion
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MyErr {
    Odd(u64),
    TooBig,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Small(u64);

impl From<Small> for MyErr {
    fn from(s: Small) -> Self {
        MyErr::Odd(s.0 + 1000)
    }
}

#[gtap::function]
fn halve(x: u64) -> Result<u64, Small> {
    if x % 2 == 0 {
        Ok(x / 2)
    } else {
        Err(Small(x))
    }
}

#[gtap::function]
fn check_all(x: u64, depth: u32) -> Result<u64, MyErr> {
    if x > 1 << 40 {
        return Err(MyErr::TooBig);
    }
    if depth == 0 {
        return Ok(x);
    }
    let h = task!(halve(x));
    let deeper = task!(check_all(x * 3, depth - 1));
    taskwait!();
    let h = h?;
    let d = deeper?;
    if h == 7 {
        Err(MyErr::Odd(h))?;
    }
    Ok(h + d)
}

fn seq_check_all(x: u64, depth: u32) -> Result<u64, MyErr> {
    if x > 1 << 40 {
        return Err(MyErr::TooBig);
    }
    if depth == 0 {
        return Ok(x);
    }
    let h: Result<u64, Small> = if x.is_multiple_of(2) {
        Ok(x / 2)
    } else {
        Err(Small(x))
    };
    let deeper = seq_check_all(x * 3, depth - 1);
    let h = h?;
    let d = deeper?;
    if h == 7 {
        Err(MyErr::Odd(h))?;
    }
    Ok(h + d)
}

// struct update syntax, methods on a user struct (impl outside), wrapping ops
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub struct Acc {
    sum: u32,
    xor: u32,
    n: u16,
}

impl Acc {
    fn new(v: u32) -> Self {
        Acc {
            sum: v,
            xor: v,
            n: 1,
        }
    }
    fn merge(self, o: Acc) -> Acc {
        Acc {
            sum: self.sum.wrapping_add(o.sum),
            xor: self.xor ^ o.xor.rotate_left(3),
            ..self.bump(o.n)
        }
    }
    fn bump(self, k: u16) -> Acc {
        Acc {
            n: self.n.wrapping_add(k),
            ..self
        }
    }
}

#[gtap::function]
fn accum(lo: u32, hi: u32) -> Acc {
    if hi - lo == 1 {
        return Acc::new(lo.wrapping_mul(2_654_435_761));
    }
    let mid = lo + (hi - lo) / 2;
    let l = task!(accum(lo, mid));
    let r = task!(accum(mid, hi));
    taskwait!();
    let m = l.merge(r);
    Acc {
        sum: m.sum.wrapping_mul(31),
        ..m
    }
}

fn seq_accum(lo: u32, hi: u32) -> Acc {
    if hi - lo == 1 {
        return Acc::new(lo.wrapping_mul(2_654_435_761));
    }
    let mid = lo + (hi - lo) / 2;
    let m = seq_accum(lo, mid).merge(seq_accum(mid, hi));
    Acc {
        sum: m.sum.wrapping_mul(31),
        ..m
    }
}

// Slice reads and writes at computed indices: an in-place prefix sum (up-sweep/down-sweep tree)
#[gtap::function]
fn scan_up(xs: Slice<u64>, lo: usize, hi: usize) -> u64 {
    if hi - lo == 1 {
        return xs.get(lo);
    }
    let mid = lo + (hi - lo) / 2;
    let l = task!(scan_up(xs, lo, mid));
    let r = task!(scan_up(xs, mid, hi));
    taskwait!();
    l + r
}

#[gtap::function]
fn scan_down(xs: Slice<u64>, lo: usize, hi: usize, offset: u64) {
    if hi - lo <= 3 {
        let mut run = offset;
        for i in lo..hi {
            run += xs.get(i);
            xs.set(i, run);
        }
        return;
    }
    let mid = lo + (hi - lo) / 2;
    let left = task!(scan_up(xs, lo, mid));
    taskwait!();
    task!(scan_down(xs, lo, mid, offset));
    task!(scan_down(xs, mid, hi, offset + left));
    taskwait!();
}

// generic with trait bounds calling trait methods; const generics with arrays
pub trait Weight: Copy + 'static {
    fn weight(self) -> u64;
}
impl Weight for u8 {
    fn weight(self) -> u64 {
        self as u64 * 3
    }
}
impl Weight for (u16, u16) {
    fn weight(self) -> u64 {
        self.0 as u64 + self.1 as u64
    }
}

#[gtap::function]
fn weigh<T: Weight>(x: T, n: u32) -> u64 {
    if n == 0 {
        return x.weight();
    }
    let a = task!(weigh::<T>(x, n - 1));
    let b = task!(weigh::<T>(x, n / 2));
    taskwait!();
    a + b + x.weight()
}

fn seq_weigh<T: Weight>(x: T, n: u32) -> u64 {
    if n == 0 {
        return x.weight();
    }
    seq_weigh(x, n - 1) + seq_weigh(x, n / 2) + x.weight()
}

#[gtap::function]
fn arr_sum<const N: usize>(a: [u32; N], lo: usize, hi: usize) -> u64 {
    if hi - lo <= 1 {
        return if lo < hi { a[lo] as u64 } else { 0 };
    }
    let mid = (lo + hi) / 2;
    let l = task!(arr_sum::<N>(a, lo, mid));
    let r = task!(arr_sum::<N>(a, mid, hi));
    taskwait!();
    l + r
}

// `let` with type ascription on task results; a zero-argument task; raw identifiers
#[gtap::function]
fn seven() -> u64 {
    7
}

#[gtap::function]
fn ascribed(r#type: u64) -> u64 {
    let a: u64 = task!(sq(r#type));
    let b: u64 = task!(seven());
    taskwait!();
    let r#match = a + b;
    r#match * 2
}

// nested labelled blocks with joins; unsafe block with a join; attributes and docs; pub(crate)
/// Docs on a task function.
#[allow(clippy::needless_return)]
#[gtap::function]
pub(crate) fn labelled(x: u64) -> u64 {
    let v = 'outer: {
        let a = task!(sq(x));
        taskwait!();
        if a > 100 {
            break 'outer a;
        }
        'inner: {
            let b = task!(sq(a + 1));
            taskwait!();
            if b % 2 == 0 {
                break 'inner;
            }
            break 'outer b + 3;
        }
        a + 5
    };
    let w = unsafe {
        let c = task!(sq(v % 11));
        taskwait!();
        c
    };
    return v + w;
}

fn seq_labelled(x: u64) -> u64 {
    let a = x * x;
    let v = if a > 100 {
        a
    } else {
        let b = (a + 1) * (a + 1);
        if b.is_multiple_of(2) {
            a + 5
        } else {
            b + 3
        }
    };
    v + (v % 11) * (v % 11)
}

// deep recursion: a full binary tree of depth 20
#[gtap::function]
fn tree(d: u32) -> u64 {
    if d == 0 {
        return 1;
    }
    let l = task!(tree(d - 1));
    let r = task!(tree(d - 1));
    taskwait!();
    l + r + 1
}

program!(
    More = [
        sq,
        wl,
        slicepat,
        nested_ret,
        maybe,
        chains,
        halve,
        check_all,
        accum,
        scan_up,
        scan_down,
        weigh::<u8>,
        arr_sum::<5>,
        seven,
        ascribed,
        labelled,
        tree
    ]
);
program!(Pairs = [weigh::<(u16, u16)>]);

#[test]
fn while_let_and_break_value() {
    for n in [0u64, 1, 9, 1000] {
        check::<More, _>(wl, (n,), seq_wl(n));
    }
}

#[test]
fn slice_patterns_and_refs() {
    for a in [[0u64, 1, 2, 3], [5, 2, 0, 1], [1, 2, 3, 4]] {
        for o in [None, Some(4u64)] {
            check::<More, _>(slicepat, (a, o), seq_slicepat(a, o));
        }
    }
}

#[test]
fn early_return_in_nested_loops() {
    for (n, l) in [(0u64, 10u64), (5, 20), (8, 1_000_000), (6, 0)] {
        check::<More, _>(nested_ret, (n, l), seq_nested_ret(n, l));
    }
}

#[test]
fn closures_and_combinators_after_join() {
    for n in [0u64, 1, 2, 3, 10, 21] {
        check::<More, _>(chains, (n,), seq_chains(n));
    }
}

#[test]
fn question_mark_custom_error() {
    for x in [0u64, 2, 4, 8, 14, 3, 1 << 41] {
        for d in [0u32, 1, 3] {
            check::<More, _>(check_all, (x, d), seq_check_all(x, d));
        }
    }
}

#[test]
fn struct_update_and_methods() {
    for n in [1u32, 2, 7, 64] {
        check::<More, _>(accum, (0, n), seq_accum(0, n));
    }
}

#[test]
fn prefix_sum_on_a_slice() {
    for n in [1usize, 2, 5, 64, 1000] {
        let mut v: Vec<u64> = (0..n as u64).map(|i| i * 7 % 13).collect();
        let mut want = v.clone();
        for i in 1..n {
            want[i] += want[i - 1];
        }
        // SAFETY: v outlives the run and nothing else touches it meanwhile.
        let s = unsafe { Slice::from_raw_parts(v.as_mut_ptr(), v.len()) };
        gtap::run::<More, _>(scan_down, (s, 0, n, 0)).unwrap();
        assert_eq!(v, want);
    }
}

#[test]
fn generic_trait_bounds_and_const_generics() {
    for n in [0u32, 1, 6] {
        check::<More, _>(weigh::<u8>, (5, n), seq_weigh(5u8, n));
        check::<Pairs, _>(weigh::<(u16, u16)>, ((3, 4), n), seq_weigh((3u16, 4u16), n));
    }
    let a = [3u32, 1, 4, 1, 5];
    for (lo, hi) in [(0usize, 5usize), (1, 4), (2, 2)] {
        check::<More, _>(
            arr_sum::<5>,
            (a, lo, hi),
            a[lo..hi].iter().map(|&x| x as u64).sum(),
        );
    }
}

#[test]
fn ascription_zero_args_raw_idents() {
    for x in [0u64, 3, 1 << 33] {
        check::<More, _>(ascribed, (x,), (x.wrapping_mul(x) + 7) * 2);
    }
}

#[test]
fn labelled_blocks_unsafe_attrs() {
    for x in [0u64, 1, 2, 3, 10, 11] {
        check::<More, _>(labelled, (x,), seq_labelled(x));
    }
}

#[test]
fn deep_tree() {
    check::<More, _>(tree, (20,), (1u64 << 21) - 1);
}

// Names read only after `..` (a range's end, a struct update's base) or inside a format string
// after a join: each must be restored (a `mut` parameter from its saved value).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Cfg {
    scale: u64,
    bias: u64,
    tag: u8,
}

#[gtap::function]
fn after_dots(mut n: u64, base: Cfg) -> u64 {
    n /= 2;
    let local = Cfg { tag: 9, ..base };
    let a = task!(sq(n));
    taskwait!();
    let range_sum: u64 = (0..n).sum();
    let inclusive: u64 = (1..=n).map(|i| i * a % 5).sum();
    let c = Cfg { scale: a, ..local };
    assert!(c.tag == 9, "tag of {local:?} for n={n}");
    range_sum + inclusive + c.scale * c.bias + c.tag as u64
}

fn seq_after_dots(n: u64, base: Cfg) -> u64 {
    let n = n / 2;
    let a = n * n;
    let range_sum: u64 = (0..n).sum();
    let inclusive: u64 = (1..=n).map(|i| i * a % 5).sum();
    range_sum + inclusive + a * base.bias + 9
}
program!(AfterDots = [after_dots, sq]);

#[test]
fn names_after_two_dots_and_in_format_strings() {
    let base = Cfg {
        scale: 1,
        bias: 3,
        tag: 0,
    };
    for n in [0u64, 1, 7, 40] {
        check::<AfterDots, _>(after_dots, (n, base), seq_after_dots(n, base));
    }
}

// `let x = if/match { task!(..) } ..;` with a task in every value position, joined later
#[gtap::function]
fn branchy(n: u64, o: Option<u64>) -> u64 {
    if o == Some(0) {
        return 1;
    }
    let a = if n > 3 {
        task!(sq(n))
    } else if n == 0 {
        task!(seven())
    } else {
        task!(sq(n + 10))
    };
    let mut b: u64 = match o {
        Some(k) => task!(sq(k)),
        None => {
            let t = task!(seven());
            taskwait!();
            task!(sq(t + n))
        }
    };
    let c = unsafe { task!(maybe(n)) };
    taskwait!();
    b += 1;
    a + b + c.unwrap_or(2)
}

fn seq_branchy(n: u64, o: Option<u64>) -> u64 {
    if o == Some(0) {
        return 1;
    }
    let a = if n > 3 {
        n * n
    } else if n == 0 {
        7
    } else {
        (n + 10) * (n + 10)
    };
    let b = match o {
        Some(k) => k * k,
        None => (7 + n) * (7 + n),
    };
    let c = if n.is_multiple_of(3) {
        None
    } else {
        Some(n * 2)
    };
    a + b + 1 + c.unwrap_or(2)
}
program!(Branchy = [branchy, sq, seven, maybe]);

#[test]
fn let_of_tasks_in_branches() {
    for n in [0u64, 1, 3, 4, 9] {
        for o in [None, Some(0u64), Some(5)] {
            check::<Branchy, _>(branchy, (n, o), seq_branchy(n, o));
        }
    }
}

// Patterns over borrows whose bindings are copies (`&Some(k)`, `let &(a, b) = &p`, a value
// read through `as_ref()` and copied before the join); a function pointer argument; a
// parameter shadowed by a task result; a `while` whose condition reads a joined result; a
// wait with nothing pending; a `fib` whose tail `if` holds the joins
fn dbl(x: &u64) -> u64 {
    *x * 2
}

#[gtap::function]
fn borrows(o: Option<u64>, p: (u64, u64), g: fn(&u64) -> u64) -> u64 {
    let mut t = 0;
    if let &Some(k) = &o {
        let r = task!(sq(k));
        taskwait!();
        t += r + k;
    }
    let &(a, b) = &p;
    let r = task!(sq(a));
    taskwait!();
    match o.as_ref() {
        Some(k) => {
            let x = *k;
            let r2 = task!(sq(x));
            taskwait!();
            t += r2 + x;
        }
        None => {}
    }
    g(&(t + r + b))
}

fn seq_borrows(o: Option<u64>, p: (u64, u64), g: fn(&u64) -> u64) -> u64 {
    let k = o.map_or(0, |k| 2 * (k * k + k));
    g(&(k + p.0 * p.0 + p.1))
}

#[gtap::function]
fn grow(n: u64) -> u64 {
    taskwait!();
    let n = task!(sq(n + 1));
    taskwait!();
    let mut a = n;
    while a < 10_000 {
        a = task!(sq(a + 2));
        taskwait!();
        taskwait!();
    }
    a
}

fn seq_grow(n: u64) -> u64 {
    let mut a = (n + 1) * (n + 1);
    while a < 10_000 {
        a = (a + 2) * (a + 2);
    }
    a
}

#[gtap::function]
fn tail_fib(n: u64) -> u64 {
    if n < 2 {
        n
    } else {
        let a = task!(tail_fib(n - 1));
        let b = task!(tail_fib(n - 2));
        taskwait!();
        a + b
    }
}
program!(Borrows = [borrows, grow, tail_fib, sq]);

#[test]
fn borrowed_patterns_fn_pointers_and_tail_joins() {
    for o in [None, Some(3u64)] {
        for p in [(0u64, 0u64), (2, 5)] {
            let g: fn(&u64) -> u64 = dbl;
            check::<Borrows, _>(borrows, (o, p, g), seq_borrows(o, p, g));
        }
    }
    for n in [0u64, 1, 9, 200] {
        check::<Borrows, _>(grow, (n,), seq_grow(n));
    }
    let mut fibs = vec![0u64, 1];
    for i in 2..=25 {
        fibs.push(fibs[i - 1] + fibs[i - 2]);
    }
    for n in [0u64, 1, 2, 25] {
        check::<Borrows, _>(tail_fib, (n,), fibs[n as usize]);
    }
}

// Statements under `#[cfg]` around joins: one compiled out, one compiled in, and a
// `#[cfg]` local used only before the join
#[gtap::function]
fn configured(n: u64) -> u64 {
    let mut m = n;
    #[cfg(any())]
    {
        m = 5;
    }
    #[cfg(not(any()))]
    let bump = 3;
    #[cfg(not(any()))]
    {
        m += bump;
    }
    let mut a = task!(sq(m));
    taskwait!();
    #[cfg(any())]
    {
        a = 0;
    }
    #[cfg(not(any()))]
    {
        a += 1;
    }
    a + m
}
program!(Configured = [configured, sq]);

#[test]
fn statements_under_cfg() {
    for n in [0u64, 4] {
        let m = n + 3;
        check::<Configured, _>(configured, (n,), m * m + 1 + m);
    }
}

// `continue 'outer` from a `while let` after a join, guards reading results, tuple and struct
// results with methods, a `mut` parameter reassigned after a join, `?` in a loop, five waits
// with a labelled block's value, `bool`/`char`/unit tasks
#[gtap::function]
fn pair(x: u64) -> (u64, bool) {
    (x + 1, x % 2 == 0)
}
#[gtap::function]
fn opt(x: u64) -> Option<u64> {
    if x % 4 == 0 {
        None
    } else {
        Some(x * 3)
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct P {
    a: u64,
    b: u64,
}
impl P {
    fn norm(self) -> u64 {
        self.a * self.a + self.b
    }
}
#[gtap::function]
fn mkp(x: u64) -> P {
    P { a: x, b: x + 1 }
}

// 1: continue 'outer from inside a while-let after a join; guard reading a result; return in while let
#[gtap::function]
fn b1(n: u64) -> u64 {
    let mut acc = 0u64;
    'outer: for i in 0..n {
        let mut cur = Some(i);
        while let Some(k) = cur {
            let r = task!(opt(k));
            taskwait!();
            match r {
                Some(v) if v > 20 => continue 'outer,
                Some(v) => acc += v,
                None if k > 7 => return acc * 7 + k,
                None => {}
            }
            cur = if k == 0 { None } else { Some(k - 1) };
        }
        acc += 1;
    }
    acc
}
fn s1(n: u64) -> u64 {
    let opt_s = |x: u64| {
        if x.is_multiple_of(4) {
            None
        } else {
            Some(x * 3)
        }
    };
    let mut acc = 0u64;
    'outer: for i in 0..n {
        let mut cur = Some(i);
        while let Some(k) = cur {
            match opt_s(k) {
                Some(v) if v > 20 => continue 'outer,
                Some(v) => acc += v,
                None if k > 7 => return acc * 7 + k,
                None => {}
            }
            cur = if k == 0 { None } else { Some(k - 1) };
        }
        acc += 1;
    }
    acc
}

// 2: tuple results, field access, method on a struct result, mut param modified after join and respawn, ? on option in loop
#[gtap::function]
fn b2(mut n: u64) -> Option<u64> {
    let t = task!(pair(n));
    let p = task!(mkp(n));
    taskwait!();
    n = t.0 + p.norm();
    let t2 = task!(pair(n));
    taskwait!();
    let mut total = if t2.1 { t2.0 } else { t.0 };
    let mut i = 0;
    while i < 3 {
        let o = task!(opt(n + i));
        taskwait!();
        total += o?;
        i += 1;
    }
    Some(total + n)
}
fn s2(n: u64) -> Option<u64> {
    let pair_s = |x: u64| (x + 1, x.is_multiple_of(2));
    let opt_s = |x: u64| {
        if x.is_multiple_of(4) {
            None
        } else {
            Some(x * 3)
        }
    };
    let t = pair_s(n);
    let p = P { a: n, b: n + 1 };
    let n = t.0 + p.norm();
    let t2 = pair_s(n);
    let mut total = if t2.1 { t2.0 } else { t.0 };
    for i in 0..3 {
        total += opt_s(n + i)?;
    }
    Some(total + n)
}

// 3: five waits in sequence, labelled block with break value after join, nested shadowing
#[gtap::function]
fn b3(x: u64) -> u64 {
    let a = task!(sq(x));
    taskwait!();
    let v = 'blk: {
        let b = task!(sq(a % 10));
        taskwait!();
        if b > 30 {
            break 'blk b;
        }
        let a1 = b + 1;
        let c = task!(sq(a1));
        taskwait!();
        c + a1
    };
    let d;
    {
        let v = v * 2;
        d = task!(sq(v % 100));
    }
    taskwait!();
    let _unused = task!(sq(1));
    taskwait!();
    a + v + d
}
fn s3(x: u64) -> u64 {
    let a = x.wrapping_mul(x);
    let b = (a % 10) * (a % 10);
    let v = if b > 30 {
        b
    } else {
        let a1 = b + 1;
        a1 * a1 + a1
    };
    let d = ((v * 2) % 100) * ((v * 2) % 100);
    a + v + d
}

// 4: bool/char/unit tasks, let () =, detached unit tasks
#[gtap::function]
fn is_even(x: u64) -> bool {
    x % 2 == 0
}
#[gtap::function]
fn letter(x: u8) -> char {
    (b'a' + x % 26) as char
}
#[gtap::function]
fn nothing(_x: u64) {}
#[gtap::function]
fn b4(x: u64) -> u32 {
    let e = task!(is_even(x));
    let c = task!(letter(x as u8));
    let u = task!(nothing(x));
    task!(nothing(x + 1));
    taskwait!();
    let () = u;
    (c as u32) * 10 + e as u32
}

program!(Mixed = [sq, pair, opt, mkp, b1, b2, b3, is_even, letter, nothing, b4]);

#[test]
fn loops_tuples_and_many_waits() {
    for n in [0u64, 1, 3, 5, 9, 12] {
        check::<Mixed, _>(b1, (n,), s1(n));
    }
    for n in [0u64, 1, 2, 3, 5, 8, 13] {
        check::<Mixed, _>(b2, (n,), s2(n));
    }
    for x in [0u64, 1, 2, 3, 7, 100] {
        check::<Mixed, _>(b3, (x,), s3(x));
    }
    for x in [0u64, 3, 30] {
        let want = u32::from(b'a' + (x as u8) % 26) * 10 + u32::from(x % 2 == 0);
        check::<Mixed, _>(b4, (x,), want);
    }
}

// A generic function over a `Slice`'s element type; results stored into a `Slice` at computed
// indices; nested loops with joins, labelled `continue`/`break` and `@` bindings; results in
// iterator adaptors; atomics on a `Slice`

// generic over the element of a Slice
#[gtap::function]
fn gsum<T: Copy + Into<u64> + 'static>(xs: Slice<T>, lo: usize, hi: usize) -> u64 {
    if hi - lo <= 2 {
        let mut s = 0u64;
        for i in lo..hi {
            s += xs.get(i).into();
        }
        return s;
    }
    let mid = lo + (hi - lo) / 2;
    let l = task!(gsum::<T>(xs, lo, mid));
    let r = task!(gsum::<T>(xs, mid, hi));
    taskwait!();
    l + r
}

// results written back at computed indices after the join; unit task into Slice; nested loops both with joins
#[gtap::function]
fn squares(out: Slice<u64>, lo: usize, hi: usize) {
    if hi - lo == 1 {
        let v = task!(sq(lo as u64));
        taskwait!();
        out.set(lo, v);
        return;
    }
    let mid = lo + (hi - lo) / 2;
    task!(squares(out, lo, mid));
    task!(squares(out, mid, hi));
    taskwait!();
    let m = out.get(mid - 1) ^ out.get(lo);
    out.set(lo + (hi - lo - 1) / 2, m.wrapping_add(out.get(hi - 1)));
}
fn seq_squares(out: &mut [u64], lo: usize, hi: usize) {
    if hi - lo == 1 {
        out[lo] = (lo as u64) * (lo as u64);
        return;
    }
    let mid = lo + (hi - lo) / 2;
    seq_squares(out, lo, mid);
    seq_squares(out, mid, hi);
    let m = out[mid - 1] ^ out[lo];
    out[lo + (hi - lo - 1) / 2] = m.wrapping_add(out[hi - 1]);
}

#[gtap::function]
fn grid(n: u64, m: u64) -> u64 {
    let mut acc = 0u64;
    let mut i = 0;
    'rows: while i < n {
        i += 1;
        let mut j = 0;
        loop {
            if j >= m {
                break;
            }
            let r = task!(sq(i * 10 + j));
            taskwait!();
            j += 1;
            match r % 7 {
                0 => continue 'rows,
                1 | 2 => break,
                k @ 3..=4 => acc = acc.wrapping_add(k * r),
                _ => {
                    let s = task!(sq(r % 100));
                    taskwait!();
                    if s > 5000 {
                        break 'rows;
                    }
                    acc ^= s;
                }
            }
        }
        acc = acc.wrapping_mul(3);
    }
    acc
}
fn seq_grid(n: u64, m: u64) -> u64 {
    let mut acc = 0u64;
    let mut i = 0;
    'rows: while i < n {
        i += 1;
        let mut j = 0;
        loop {
            if j >= m {
                break;
            }
            let r = (i * 10 + j) * (i * 10 + j);
            j += 1;
            match r % 7 {
                0 => continue 'rows,
                1 | 2 => break,
                k @ 3..=4 => acc = acc.wrapping_add(k * r),
                _ => {
                    let s = (r % 100) * (r % 100);
                    if s > 5000 {
                        break 'rows;
                    }
                    acc ^= s;
                }
            }
        }
        acc = acc.wrapping_mul(3);
    }
    acc
}

// results used in closures passed to iterator adaptors; an array of results
#[gtap::function]
fn filt(n: u64) -> u64 {
    let mut rs = [0u64; 4];
    rs[0] = task!(sq(n));
    rs[1] = task!(sq(n + 1));
    rs[2] = task!(sq(n + 2));
    rs[3] = task!(sq(n + 3));
    taskwait!();
    let lim = rs[1];
    let big: u64 = rs.iter().copied().filter(|&v| v >= lim).sum();
    let cnt = rs.iter().filter(|v| **v % 2 == 0).count() as u64;
    let mx = rs.iter().max().copied().unwrap_or(0);
    big + cnt * 1000 + mx
}

// atomics on a Slice
#[gtap::function]
fn count_nodes(counter: Slice<u64>, d: u32) {
    counter.atomic_add(0, 1);
    if d == 0 {
        return;
    }
    task!(count_nodes(counter, d - 1));
    task!(count_nodes(counter, d - 1));
    taskwait!();
}

program!(SliceShapes = [sq, gsum::<u32>, squares, grid, filt, count_nodes]);
program!(SliceShapes8 = [gsum::<u8>]);

#[test]
fn generic_slice_elements() {
    let mut v: Vec<u32> = (0..100).collect();
    // SAFETY: the vector outlives the run and nothing else touches it meanwhile.
    let s = unsafe { Slice::from_raw_parts(v.as_mut_ptr(), v.len()) };
    assert_eq!(
        gtap::run::<SliceShapes, _>(gsum::<u32>, (s, 0, 100)).unwrap(),
        4950
    );
    let mut w: Vec<u8> = (0..200).map(|i| i as u8).collect();
    // SAFETY: the vector outlives the run and nothing else touches it meanwhile.
    let s = unsafe { Slice::from_raw_parts(w.as_mut_ptr(), w.len()) };
    assert_eq!(
        gtap::run::<SliceShapes8, _>(gsum::<u8>, (s, 0, 200)).unwrap(),
        (0..200u64).sum::<u64>()
    );
}
#[test]
fn results_stored_at_computed_indices() {
    for n in [1usize, 2, 7, 64] {
        let mut v = vec![0u64; n];
        // SAFETY: the vector outlives the run and nothing else touches it meanwhile.
        let s = unsafe { Slice::from_raw_parts(v.as_mut_ptr(), v.len()) };
        gtap::run::<SliceShapes, _>(squares, (s, 0, n)).unwrap();
        let mut w = vec![0u64; n];
        seq_squares(&mut w, 0, n);
        assert_eq!(v, w);
    }
}
#[test]
fn nested_loops_with_joins_and_labels() {
    for (n, m) in [(0u64, 3u64), (3, 4), (10, 10), (20, 2)] {
        assert_eq!(
            gtap::run::<SliceShapes, _>(grid, (n, m)).unwrap(),
            seq_grid(n, m),
            "{n} {m}"
        );
    }
}
#[test]
fn results_in_iterator_adaptors() {
    for n in [0u64, 1, 5] {
        let rs = [
            n * n,
            (n + 1) * (n + 1),
            (n + 2) * (n + 2),
            (n + 3) * (n + 3),
        ];
        let want = rs.iter().filter(|&&v| v >= rs[1]).sum::<u64>()
            + rs.iter().filter(|v| **v % 2 == 0).count() as u64 * 1000
            + rs[3];
        assert_eq!(gtap::run::<SliceShapes, _>(filt, (n,)).unwrap(), want);
    }
}
#[test]
fn atomic_counter_on_a_slice() {
    let mut c = vec![0u64; 1];
    // SAFETY: the vector outlives the run and nothing else touches it meanwhile.
    let s = unsafe { Slice::from_raw_parts(c.as_mut_ptr(), 1) };
    gtap::run::<SliceShapes, _>(count_nodes, (s, 10)).unwrap();
    assert_eq!(c[0], (1 << 11) - 1);
}

// Nested `for` loops with joins over `(0..=m).rev()` and `.step_by(3)`, a `mut` loop pattern,
// `continue 'o`/`break 'o`; struct shorthand with results, `?` in task arguments, `let .. else`

#[gtap::function]
fn nest(n: u64, m: u64) -> u64 {
    let mut acc = 0u64;
    let a = task!(sq(n));
    taskwait!();
    'o: for i in 0..a.min(9) {
        for mut j in (0..=m).rev() {
            j *= 2;
            let r = task!(sq(i + j));
            taskwait!();
            if r % 5 == 0 {
                continue 'o;
            }
            if r % 11 == 0 {
                break 'o;
            }
            acc = acc.wrapping_mul(7).wrapping_add(r);
        }
        for k in (i..n).step_by(3) {
            let r = task!(sq(k));
            taskwait!();
            acc ^= r;
        }
    }
    acc
}
fn seq_nest(n: u64, m: u64) -> u64 {
    let mut acc = 0u64;
    let a = n * n;
    'o: for i in 0..a.min(9) {
        for mut j in (0..=m).rev() {
            j *= 2;
            let r = (i + j) * (i + j);
            if r % 5 == 0 {
                continue 'o;
            }
            if r % 11 == 0 {
                break 'o;
            }
            acc = acc.wrapping_mul(7).wrapping_add(r);
        }
        for k in (i..n).step_by(3) {
            acc ^= k * k;
        }
    }
    acc
}

// struct literal shorthand with results, `?` in task args, let-else on a result
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Q {
    a: u64,
    b: u64,
}
#[gtap::function]
fn maybe_small(x: u64) -> Option<u64> {
    if x > 50 {
        None
    } else {
        Some(x + 1)
    }
}
#[gtap::function]
fn shorth(x: Option<u64>) -> Option<Q> {
    let m = task!(maybe_small(x? * 2));
    taskwait!();
    let a = task!(sq(x?));
    taskwait!();
    let Some(b) = m else {
        return Some(Q { a, b: 0 });
    };
    Some(Q { a, b })
}

program!(ForShapes = [sq, nest, maybe_small, shorth]);
#[test]
fn nested_for_loops_rev_step_by_labels() {
    for (n, m) in [(0u64, 0u64), (1, 2), (3, 3), (5, 4)] {
        assert_eq!(
            gtap::run::<ForShapes, _>(nest, (n, m)).unwrap(),
            seq_nest(n, m),
            "{n} {m}"
        );
    }
}
#[test]
fn shorthand_fields_question_in_args_let_else() {
    for x in [None, Some(3u64), Some(40)] {
        let want = x.map(|v| Q {
            a: v * v,
            b: if v * 2 > 50 { 0 } else { v * 2 + 1 },
        });
        assert_eq!(gtap::run::<ForShapes, _>(shorth, (x,)).unwrap(), want);
    }
}

// Uppercase names bound by `let` (math-style `N`), a lint attribute on the function reaching
// its body
#[gtap::function]
#[allow(non_snake_case, reason = "named as in the formula")]
fn formula(x: u64) -> u64 {
    let N = x * 3;
    let (M, k) = (x + 1, 2);
    let a = task!(sq(x));
    taskwait!();
    a + N + M * k
}
program!(Formula = [formula, sq]);

#[test]
fn uppercase_let_bindings() {
    for x in [0u64, 5, 1 << 20] {
        check::<Formula, _>(formula, (x,), x * x + 3 * x + (x + 1) * 2);
    }
}

// A local declared early and assigned only after two joins; two waits in a row; a join inside
// the branch whose value is the task; a join in the value of a later `let` while earlier
// results are pending on some paths
#[gtap::function]
fn late_assign(mut n: u64, o: Option<u64>) -> u64 {
    let mut best = 0u64;
    let a = task!(sq(n));
    taskwait!();
    taskwait!();
    let b = task!(sq(a % 100));
    taskwait!();
    n = b + a;
    best += n;
    let x = if n % 2 == 0 {
        taskwait!();
        task!(sq(n % 13))
    } else {
        task!(seven())
    };
    let y = match o {
        Some(k) => task!(sq(k)),
        None => {
            let t = task!(seven());
            taskwait!();
            task!(sq(t + 1))
        }
    };
    let z = unsafe {
        taskwait!();
        task!(sq(x + y))
    };
    taskwait!();
    best + x + y + z
}

fn seq_late_assign(n: u64, o: Option<u64>) -> u64 {
    let a = n.wrapping_mul(n);
    let b = (a % 100) * (a % 100);
    let n = b + a;
    let x = if n.is_multiple_of(2) {
        (n % 13) * (n % 13)
    } else {
        7
    };
    let y = o.map_or(64, |k| k * k);
    n + x + y + (x + y).wrapping_mul(x + y)
}
program!(LateAssign = [late_assign, sq, seven]);

#[test]
fn locals_assigned_after_later_joins() {
    for n in [0u64, 1, 2, 7, 12] {
        for o in [None, Some(3u64)] {
            check::<LateAssign, _>(late_assign, (n, o), seq_late_assign(n, o));
        }
    }
}

// Raw identifiers kept across a join (their task-data field cannot be named `r#match`)
#[gtap::function]
fn raw_kept(r#type: u64) -> u64 {
    let r#match = r#type * 3;
    let a = task!(sq(r#type));
    taskwait!();
    let r#loop = a + r#match;
    let b = task!(seven());
    taskwait!();
    r#loop * b + r#match
}
program!(RawKept = [raw_kept, sq, seven]);

#[test]
fn raw_identifiers_across_joins() {
    for x in [0u64, 4] {
        check::<RawKept, _>(raw_kept, (x,), (x * x + 3 * x) * 7 + 3 * x);
    }
}

// Names read after a join only left of `!=`
#[gtap::function]
fn differs(mut n: u64, tag: char) -> bool {
    n += 1;
    if n == 1 {
        taskwait!();
        return tag != 'e';
    }
    let a = task!(sq(n));
    taskwait!();
    a != 4 && n != 3 && tag != 'x'
}
program!(Differs = [differs, sq]);

#[test]
fn names_left_of_not_equal() {
    for n in [0u64, 1, 2, 3] {
        for tag in ['e', 'x'] {
            let m = n + 1;
            let want = if m == 1 {
                tag != 'e'
            } else {
                m * m != 4 && m != 3 && tag != 'x'
            };
            check::<Differs, _>(differs, (n, tag), want);
        }
    }
}

// Joins in a branch of an `if` while results are pending, a join inside an `unsafe` block with
// the results it joins read after it, a mutable result changed between two joins, a `let`
// result joined on some paths only inside a loop
#[gtap::function]
fn partial_joins(n: u64, o: Option<u64>) -> u64 {
    let mut acc = 0u64;
    let mut k = 0u64;
    while k < 3 {
        let s = task!(sq(n + k));
        if (n + k) % 2 == 0 {
            taskwait!();
        }
        taskwait!();
        acc = acc.wrapping_add(s);
        k += 1;
    }
    let a = task!(sq(acc % 50));
    unsafe {
        taskwait!();
    }
    let mut b: u64 = match o {
        Some(v) => task!(sq(v)),
        None => task!(seven()),
    };
    taskwait!();
    b += 1;
    taskwait!();
    a + b + acc
}

fn seq_partial_joins(n: u64, o: Option<u64>) -> u64 {
    let mut acc = 0u64;
    for k in 0..3 {
        acc = acc.wrapping_add((n + k) * (n + k));
    }
    let a = (acc % 50) * (acc % 50);
    let b = o.map_or(7, |v| v * v) + 1;
    a + b + acc
}
program!(PartialJoins = [partial_joins, sq, seven]);

#[test]
fn joins_on_some_paths_and_in_blocks() {
    for n in [0u64, 1, 4] {
        for o in [None, Some(3u64)] {
            check::<PartialJoins, _>(partial_joins, (n, o), seq_partial_joins(n, o));
        }
    }
}

// A `move` closure defined after a join and kept across the next; one defined in a loop after
// the join it uses
#[gtap::function]
fn closure_after_join(n: u64) -> u64 {
    let a = task!(sq(n));
    taskwait!();
    let scale = move |v: u64| v.wrapping_mul(a);
    let b = task!(sq(n + 1));
    taskwait!();
    let mut acc = scale(b);
    for i in 0..n.min(5) {
        let r = task!(sq(i));
        taskwait!();
        let shift = move |v: u64| v + i;
        acc = acc.wrapping_add(shift(r));
    }
    acc
}
program!(ClosureAfterJoin = [closure_after_join, sq]);

#[test]
fn closures_defined_after_joins() {
    for n in [0u64, 2, 9] {
        let mut acc = ((n + 1) * (n + 1)).wrapping_mul(n * n);
        for i in 0..n.min(5) {
            acc = acc.wrapping_add(i * i + i);
        }
        check::<ClosureAfterJoin, _>(closure_after_join, (n,), acc);
    }
}
