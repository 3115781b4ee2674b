//! End to end: task functions expanded by `#[gtap::function]` run on a tiny sequential
//! scheduler (a direct implementation of the `Context` protocol, like
//! `docs/contract-sketch-fib.rs`) and are checked against plain Rust.

#![allow(clippy::undocumented_unsafe_blocks, reason = "test driver")]

use gtap::__private as g;

/// A task record of the sequential driver.
struct Task {
    kind: g::KindId,
    state: u32,
    frame: Box<[u128; 64]>,
    dst: *mut u8,
    parent: usize,
    pending: u32,
    done: bool,
}

/// Runs tasks one at a time, children in LIFO order.
struct Seq {
    tasks: Vec<Task>,
    cur: usize,
    spawned: Vec<usize>,
    max_frame: usize,
}

// SAFETY: frames are 1 KiB, 16-aligned boxes that live as long as the driver; a suspended task
// is resumed once, after its children finished.
unsafe impl g::Context for Seq {
    fn state(&self) -> u32 {
        self.tasks[self.cur].state
    }
    fn frame(&self) -> *mut u8 {
        self.tasks[self.cur].frame.as_ptr() as *mut u8
    }
    fn result_dst(&self) -> *mut u8 {
        self.tasks[self.cur].dst
    }
    unsafe fn spawn_raw(&mut self, kind: g::KindId, _queue: u32, dst: *mut u8) -> *mut u8 {
        self.tasks.push(Task {
            kind,
            state: 0,
            frame: Box::new([0; 64]),
            dst,
            parent: self.cur,
            pending: 0,
            done: false,
        });
        self.spawned.push(self.tasks.len() - 1);
        self.tasks[self.tasks.len() - 1].frame.as_ptr() as *mut u8
    }
    fn wait(&mut self, resume: u32, _queue: u32) -> bool {
        let n = self.spawned.len() as u32 + self.tasks[self.cur].pending;
        if n == 0 {
            return false;
        }
        let t = &mut self.tasks[self.cur];
        t.state = resume;
        t.pending = n;
        true
    }
    fn report_layout(&mut self, size: usize, _align: usize) {
        self.max_frame = self.max_frame.max(size);
    }
    fn unknown_kind(&mut self, _: g::KindId) -> g::Step {
        g::Step::Aborted
    }
}

/// Runs `root(args)` of program `P` to completion and returns its result.
fn run<P: gtap::Program, T: gtap::TaskFn>(root: &T, args: T::Args) -> T::Output
where
    T::Output: Default,
{
    let mut out = T::Output::default();
    let mut s = Seq {
        tasks: Vec::new(),
        cur: 0,
        spawned: Vec::new(),
        max_frame: 0,
    };
    s.tasks.push(Task {
        kind: g::kind_of(root),
        state: 0,
        frame: Box::new([0; 64]),
        dst: (&raw mut out).cast(),
        parent: usize::MAX,
        pending: 0,
        done: false,
    });
    unsafe { s.tasks[0].frame.as_mut_ptr().cast::<T::Args>().write(args) };
    let mut ready = vec![0usize];
    while let Some(t) = ready.pop() {
        s.cur = t;
        s.spawned.clear();
        let kind = s.tasks[t].kind;
        let step = unsafe { P::dispatch(&mut s, kind) };
        // Children not joined before this step ended (detached) stay counted as pending.
        let fresh: Vec<usize> = s.spawned.clone();
        match step {
            g::Step::Suspended => ready.extend(fresh),
            g::Step::Done => {
                s.tasks[t].pending += fresh.len() as u32;
                ready.extend(fresh);
                s.tasks[t].done = true;
                finish(&mut s, t, &mut ready);
            }
            g::Step::Aborted => panic!("aborted"),
        }
    }
    out
}

/// Tells the parent of `t` once `t` and its detached children have finished.
fn finish(s: &mut Seq, mut t: usize, ready: &mut Vec<usize>) {
    while s.tasks[t].done && s.tasks[t].pending == 0 {
        let p = s.tasks[t].parent;
        if p == usize::MAX {
            return;
        }
        s.tasks[p].pending -= 1;
        if s.tasks[p].pending > 0 {
            return;
        }
        if !s.tasks[p].done {
            ready.push(p);
            return;
        }
        t = p;
    }
}

fn layout<T: gtap::TaskFn>(f: &T) -> usize {
    g::probe_layout(f).0
}

// ---------------------------------------------------------------------------------------------

#[gtap::function]
fn fib(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    let a = task!(fib(n - 1));
    let b = task!(fib(n - 2));
    taskwait!();
    a + b
}
gtap::program!(Fib = [fib]);

fn fib_ref(n: u32) -> u64 {
    if n < 2 {
        n as u64
    } else {
        fib_ref(n - 1) + fib_ref(n - 2)
    }
}

#[test]
fn fib_matches() {
    for n in 0..16 {
        assert_eq!(run::<Fib, _>(&fib, (n,)), fib_ref(n), "fib({n})");
    }
    // args (4 bytes, padded) + two u64 slots
    assert_eq!(layout(&fib), 24);
}

// ---- a loop with a taskwait inside: the accumulator and counter are saved each iteration ----

#[gtap::function]
fn square(x: u64) -> u64 {
    x * x
}

#[gtap::function]
fn sum_squares(n: u64) -> u64 {
    let mut total = 0;
    let mut i = 0;
    while i < n {
        let s = task!(square(i));
        taskwait!();
        total += s;
        i += 1;
    }
    total
}

#[gtap::function]
fn sum_squares_for(n: u64) -> u64 {
    let mut total = 0u64;
    'outer: for i in 0..n {
        if i % 5 == 4 {
            continue 'outer;
        }
        let s = task!(square(i));
        taskwait!();
        if total > 1_000_000 {
            break 'outer;
        }
        total += s;
    }
    total
}
gtap::program!(Sums = [sum_squares, sum_squares_for, square]);

#[test]
fn loops_match() {
    for n in [0u64, 1, 2, 7, 30, 200] {
        assert_eq!(
            run::<Sums, _>(&sum_squares, (n,)),
            (0..n).map(|i| i * i).sum::<u64>()
        );
        let mut t = 0u64;
        for i in 0..n {
            if i % 5 == 4 {
                continue;
            }
            if t > 1_000_000 {
                break;
            }
            t += i * i;
        }
        assert_eq!(run::<Sums, _>(&sum_squares_for, (n,)), t, "n = {n}");
    }
}

// ---- a taskwait inside a match arm that binds a name; shadowing in nested blocks ----

#[gtap::function]
fn classify(x: i64) -> i64 {
    let k = x;
    let r = match x % 3 {
        0 => 10,
        m => {
            let d = task!(double(m + k));
            taskwait!();
            let k = d + 1; // shadows the outer `k`
            k * 100 + m
        }
    };
    r + k
}

#[gtap::function]
fn double(x: i64) -> i64 {
    x * 2
}

#[gtap::function]
fn classify_tail(x: i64) -> i64 {
    match x {
        0 => -1,
        v => {
            let d = task!(double(v));
            taskwait!();
            d + v
        }
    }
}
gtap::program!(Classify = [classify, classify_tail, double]);

#[test]
fn match_arms() {
    for x in -7i64..20 {
        let want = match x % 3 {
            0 => 10,
            m => (2 * (m + x) + 1) * 100 + m,
        } + x;
        assert_eq!(run::<Classify, _>(&classify, (x,)), want, "x = {x}");
        assert_eq!(
            run::<Classify, _>(&classify_tail, (x,)),
            if x == 0 { -1 } else { 3 * x }
        );
    }
}

// ---- mutual recursion ----

#[gtap::function]
fn is_even(n: u32) -> bool {
    if n == 0 {
        return true;
    }
    let r = task!(is_odd(n - 1));
    taskwait!();
    r
}

#[gtap::function]
fn is_odd(n: u32) -> bool {
    if n == 0 {
        return false;
    }
    let r = task!(is_even(n - 1));
    taskwait!();
    r
}
gtap::program!(Parity = [is_even, is_odd]);

#[test]
fn mutual_recursion() {
    for n in 0..40 {
        assert_eq!(run::<Parity, _>(&is_even, (n,)), n % 2 == 0);
        assert_eq!(run::<Parity, _>(&is_odd, (n,)), n % 2 == 1);
    }
}

// ---- detached spawns in a loop, a unit task, an atomic counter ----

#[gtap::function]
fn nqueens(n: u32, row: u32, cols: u32, d1: u32, d2: u32, count: gtap::Slice<u64>) {
    if row == n {
        count.atomic_add(0, 1);
        return;
    }
    let mut free = ((1u32 << n) - 1) & !(cols | d1 | d2);
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free &= free - 1;
        task!(nqueens(
            n,
            row + 1,
            cols | bit,
            (d1 | bit) << 1,
            (d2 | bit) >> 1,
            count
        ));
    }
}
gtap::program!(Queens = [nqueens]);

#[test]
fn detached_nqueens() {
    for (n, want) in [(1u32, 1u64), (4, 2), (5, 10), (6, 4), (8, 92)] {
        let mut counter = [0u64; 1];
        // SAFETY: `counter` outlives the run.
        let slice = unsafe { gtap::Slice::from_raw_parts(counter.as_mut_ptr(), 1) };
        run::<Queens, _>(&nqueens, (n, 0, 0, 0, 0, slice));
        assert_eq!(counter[0], want, "n = {n}");
    }
}

// ---- early exits from constructs that contain a join ----
//
// Each function is written once in `twin!`, which defines it as a task function and, in
// `plain`, as ordinary Rust: `task!(f(args))` is the call `f(args)` and `taskwait!()` nothing.

macro_rules! task {
    ($f:ident($($a:expr),* $(,)?)) => {
        $f($($a),*)
    };
}

macro_rules! taskwait {
    () => {};
}

/// `twin! { fn f(..) -> T { .. } .. }`: each `f` as a task function and as `plain::f`.
macro_rules! twin {
    ($(fn $name:ident($($p:tt)*) -> $ret:ty { $($body:tt)* })*) => {
        $(
            #[gtap::function]
            #[allow(
                unreachable_code,
                clippy::never_loop,
                clippy::manual_is_multiple_of,
                reason = "as users write"
            )]
            fn $name($($p)*) -> $ret { $($body)* }
        )*
        mod plain {
            $(
                #[allow(
                    unreachable_code,
                    clippy::never_loop,
                    clippy::manual_is_multiple_of,
                    reason = "as users write"
                )]
                pub(super) fn $name($($p)*) -> $ret { $($body)* }
            )*
        }
    };
}

twin! {
    fn add1(x: u64) -> u64 {
        x + 1
    }

    fn if_return(n: u32, x: u64) -> u64 {
        if n == 0 {
            let a = task!(add1(x));
            taskwait!();
            return a + 1;
        }
        x + u64::from(n)
    }

    fn if_return_local(n: u32, x: u64) -> u64 {
        let y = x * 3;
        if n % 2 == 0 {
            let a = task!(add1(y));
            taskwait!();
            return a;
        }
        y + u64::from(n)
    }

    fn else_if_returns(n: u32, x: u64) -> u64 {
        let k = x + 1;
        if n == 0 {
            let a = task!(add1(x));
            taskwait!();
            return a;
        } else if n == 1 {
            let a = task!(add1(k));
            taskwait!();
            if a > 10 {
                return a * 2;
            }
        } else if n == 2 {
            return k;
        }
        k + x + u64::from(n)
    }

    fn match_returns(n: u32, x: u64) -> u64 {
        let k = x * 2;
        match n % 4 {
            0 => {
                let a = task!(add1(k));
                taskwait!();
                return a;
            }
            1 => {
                let a = task!(add1(x));
                taskwait!();
                if a % 2 == 0 {
                    return a;
                }
            }
            m => {
                if m == 3 {
                    return k;
                }
            }
        }
        k + x + u64::from(n)
    }

    fn both_branches_wait(n: u32, x: u64) -> u64 {
        let k = x + 2;
        if n % 2 == 0 {
            let a = task!(add1(k));
            taskwait!();
            return a;
        } else {
            let b = task!(add1(x));
            taskwait!();
            if b > 4 {
                return b * k;
            }
        }
        k + u64::from(n)
    }

    fn nested_ifs(n: u32, x: u64) -> u64 {
        let mut acc = x;
        if n > 2 {
            if n % 2 == 0 {
                let a = task!(add1(acc));
                taskwait!();
                acc = a;
                if n > 6 {
                    return acc;
                }
            } else {
                acc += 10;
            }
            acc *= 2;
        }
        acc + u64::from(n)
    }

    fn nested_return_inner(n: u32, x: u64) -> u64 {
        let y = x + 7;
        if n > 1 {
            let z = y * 2;
            if n % 3 == 0 {
                let a = task!(add1(z));
                taskwait!();
                return a;
            }
            if z > 20 {
                return z + x;
            }
        }
        y + x + u64::from(n)
    }

    fn loop_return(n: u32, x: u64) -> u64 {
        let mut i = 0u64;
        let mut acc = x;
        loop {
            let a = task!(add1(acc));
            taskwait!();
            acc = a * 2;
            if acc > x + u64::from(n) * 3 {
                return acc * 10 + i;
            }
            i += 1;
        }
    }

    fn loop_once(n: u32, x: u64) -> u64 {
        let mut i = 0u64;
        loop {
            i += 1;
            if i > u64::from(n % 3) {
                break;
            }
            let a = task!(add1(x + i));
            taskwait!();
            return a;
        }
        x + i + u64::from(n)
    }

    fn while_return(n: u32, x: u64) -> u64 {
        let mut i = 0u64;
        while i < u64::from(n) {
            let a = task!(add1(i));
            taskwait!();
            if a == x {
                return a * 100;
            }
            i += 1;
        }
        i + x
    }

    fn while_once(n: u32, x: u64) -> u64 {
        let base = x % 7;
        let mut i = 0u64;
        while i < u64::from(n) {
            i += 2;
            let a = task!(add1(i + base));
            taskwait!();
            return a;
        }
        base + x + i
    }

    fn for_return(n: u32, x: u64) -> u64 {
        let base = x % 7;
        for i in 0..u64::from(n) {
            let a = task!(add1(i + base));
            taskwait!();
            if a % 5 == 0 {
                return a + u64::from(n);
            }
        }
        base + u64::from(n) + x
    }

    fn for_once(n: u32, x: u64) -> u64 {
        let base = x % 7;
        for i in 1..=u64::from(n) {
            let a = task!(add1(i + base));
            taskwait!();
            return a;
        }
        base + x
    }

    fn for_break_or_return(n: u32, x: u64) -> u64 {
        let mut last = 0;
        for i in 0..u64::from(n) {
            let a = task!(add1(i * x));
            taskwait!();
            if a % 3 == 0 {
                last = a;
                break;
            }
            return a + 1000;
        }
        last + x
    }

    fn continue_after_join(n: u32, x: u64) -> u64 {
        let mut i = 0u64;
        let mut total = x;
        while i < u64::from(n) {
            i += 1;
            let y = i * 3;
            if i % 2 == 0 {
                let a = task!(add1(total));
                taskwait!();
                total = a;
                continue;
            }
            total += y;
        }
        total
    }

    fn nested_loops(n: u32, x: u64) -> u64 {
        let mut total = 0;
        'outer: for i in 0..u64::from(n) {
            let mut j = 0;
            while j < i {
                let a = task!(add1(i * j + x));
                taskwait!();
                if a % 7 == 0 {
                    continue 'outer;
                }
                if a % 11 == 0 {
                    return total + a;
                }
                total += a;
                j += 1;
            }
        }
        total + x
    }

    fn labelled_block(n: u32, x: u64) -> u64 {
        let y = x + 1;
        'b: {
            if n == 0 {
                break 'b;
            }
            let a = task!(add1(y));
            taskwait!();
            if a > 3 {
                return a;
            }
        }
        y + x
    }

    fn try_after_join(n: u32, x: u64) -> Option<u64> {
        if n == 0 {
            let a = task!(add1(x));
            taskwait!();
            let b = a.checked_sub(2)?;
            return Some(b);
        }
        let m = x.checked_mul(u64::from(n))?;
        Some(m.checked_sub(5)? + 1)
    }

    fn try_in_loop(n: u32, x: u64) -> Option<u64> {
        let mut acc = x;
        for i in 0..n {
            let a = task!(add1(acc));
            taskwait!();
            acc = a.checked_sub(u64::from(i) * 3)?;
        }
        Some(acc + u64::from(n))
    }

    fn if_let_join(n: u32, x: u64) -> u64 {
        let opt = if n % 2 == 0 { Some(x) } else { None };
        if let Some(v) = opt {
            let a = task!(add1(v));
            taskwait!();
            if a > 5 {
                return a + v;
            }
        }
        x + u64::from(n)
    }

    fn match_bindings(n: u32, x: u64) -> u64 {
        let r = match x.checked_sub(3) {
            Some(d) if n > 1 => {
                let a = task!(add1(d));
                taskwait!();
                if a > 30 {
                    return d;
                }
                a + d
            }
            Some(d) => {
                return d + 1;
            }
            None => 0,
        };
        r + x
    }

    fn let_if_return(n: u32, x: u64) -> u64 {
        let v = if n > 3 {
            let a = task!(add1(x));
            taskwait!();
            if a > 8 {
                return a;
            }
            a * 2
        } else {
            x
        };
        v + x + u64::from(n)
    }

    fn shadow_param_after(n: u32, x: u64) -> u64 {
        let a = task!(add1(x));
        taskwait!();
        let x = a * 2;
        if n == 0 {
            return x;
        }
        let n = u64::from(n) + x;
        n + x
    }

    fn shadow_param_before(n: u32, x: u64) -> u64 {
        let x = x + 1;
        if n == 0 {
            let a = task!(add1(x));
            taskwait!();
            return a;
        }
        let x = x * 2;
        x + u64::from(n)
    }

    fn mut_params(mut n: u32, mut x: u64) -> u64 {
        n += 1;
        if n % 2 == 0 {
            let a = task!(add1(x));
            taskwait!();
            x = a;
            n += 2;
            if n > 9 {
                return x;
            }
        }
        x += 1;
        let b = task!(add1(x));
        taskwait!();
        n *= 3;
        b + u64::from(n) + x
    }

    fn let_else_after_join(n: u32, x: u64) -> u64 {
        let a = task!(add1(x));
        taskwait!();
        let Some(d) = a.checked_sub(u64::from(n)) else {
            return x + 1000;
        };
        if d % 2 == 0 {
            let b = task!(add1(d));
            taskwait!();
            return b * 3;
        }
        d + x + u64::from(n)
    }

    fn while_let_return(n: u32, x: u64) -> u64 {
        let mut next = Some(x);
        let mut steps = 0u64;
        while let Some(v) = next {
            let a = task!(add1(v));
            taskwait!();
            if a % 4 == 0 {
                return a + steps;
            }
            next = if steps < u64::from(n) { Some(a / 2) } else { None };
            steps += 1;
        }
        steps + x
    }

    fn block_return(n: u32, x: u64) -> u64 {
        let k = x ^ 5;
        {
            let y = k + u64::from(n);
            if y % 3 == 0 {
                let a = task!(add1(y));
                taskwait!();
                return a;
            }
        }
        k + x
    }

    fn nested_loop_return(n: u32, x: u64) -> u64 {
        let mut i = 0u64;
        let mut seen = 0;
        loop {
            i += 1;
            if i > u64::from(n) {
                break;
            }
            seen += i;
            loop {
                let a = task!(add1(x + i));
                taskwait!();
                return a + seen;
            }
        }
        seen + x
    }

    fn break_outer_after_join(n: u32, x: u64) -> u64 {
        let mut total = x;
        'rows: for i in 0..u64::from(n) {
            let row = i * 10;
            for j in 0..3u64 {
                let a = task!(add1(row + j));
                taskwait!();
                if a % 7 == 0 {
                    break 'rows;
                }
                if a % 5 == 0 {
                    continue 'rows;
                }
                total += a;
            }
            total += row;
        }
        total
    }

    fn match_guard_param(n: u32, x: u64) -> u64 {
        let v = match x % 3 {
            0 if n > 2 => {
                let a = task!(add1(x));
                taskwait!();
                return a + u64::from(n);
            }
            1 => {
                let b = task!(add1(x * 2));
                taskwait!();
                b
            }
            r => r + u64::from(n),
        };
        v + x + u64::from(n)
    }

    fn dead_after_returns(n: u32, x: u64) -> u64 {
        // (rustc warns: unreachable expression)
        let a = task!(add1(x));
        taskwait!();
        if a > 3 {
            return a;
        } else {
            return a + u64::from(n);
        }
        x + u64::from(n)
    }

    fn dead_markers(n: u32, x: u64) -> u64 {
        let a = task!(add1(x));
        taskwait!();
        if n > 2 {
            return a;
        }
        return a + 1;
        // (rustc warns: unreachable statement)
        let b = task!(add1(x + u64::from(n)));
        taskwait!();
        b
    }

    fn mut_param_early(mut n: u32, x: u64) -> u64 {
        if n < 4 {
            let a = task!(add1(x));
            taskwait!();
            n += 10;
            return a + u64::from(n);
        }
        n -= 1;
        x + u64::from(n)
    }
}
gtap::program!(
    Early = [
        add1,
        if_return,
        if_return_local,
        else_if_returns,
        match_returns,
        both_branches_wait,
        nested_ifs,
        nested_return_inner,
        loop_return,
        loop_once,
        while_return,
        while_once,
        for_return,
        for_once,
        for_break_or_return,
        continue_after_join,
        nested_loops,
        labelled_block,
        try_after_join,
        try_in_loop,
        if_let_join,
        match_bindings,
        let_if_return,
        shadow_param_after,
        shadow_param_before,
        mut_params,
        mut_param_early,
        let_else_after_join,
        while_let_return,
        block_return,
        nested_loop_return,
        break_outer_after_join,
        match_guard_param,
        dead_after_returns,
        dead_markers
    ]
);

/// Runs `f(n, x)` for a grid of arguments against `want`.
fn grid<P: gtap::Program, T: gtap::TaskFn<Args = (u32, u64)>>(
    f: &T,
    want: fn(u32, u64) -> T::Output,
) where
    T::Output: Default + PartialEq + std::fmt::Debug,
{
    for n in 0..12 {
        for x in [0u64, 1, 2, 3, 5, 8, 13, 40, 1000] {
            assert_eq!(run::<P, _>(f, (n, x)), want(n, x), "{}({n}, {x})", T::NAME);
        }
    }
}

#[test]
fn early_exits() {
    grid::<Early, _>(&if_return, plain::if_return);
    grid::<Early, _>(&if_return_local, plain::if_return_local);
    grid::<Early, _>(&else_if_returns, plain::else_if_returns);
    grid::<Early, _>(&match_returns, plain::match_returns);
    grid::<Early, _>(&both_branches_wait, plain::both_branches_wait);
    grid::<Early, _>(&nested_ifs, plain::nested_ifs);
    grid::<Early, _>(&nested_return_inner, plain::nested_return_inner);
    grid::<Early, _>(&loop_return, plain::loop_return);
    grid::<Early, _>(&loop_once, plain::loop_once);
    grid::<Early, _>(&while_return, plain::while_return);
    grid::<Early, _>(&while_once, plain::while_once);
    grid::<Early, _>(&for_return, plain::for_return);
    grid::<Early, _>(&for_once, plain::for_once);
    grid::<Early, _>(&for_break_or_return, plain::for_break_or_return);
    grid::<Early, _>(&continue_after_join, plain::continue_after_join);
    grid::<Early, _>(&nested_loops, plain::nested_loops);
    grid::<Early, _>(&labelled_block, plain::labelled_block);
    grid::<Early, _>(&try_after_join, plain::try_after_join);
    grid::<Early, _>(&try_in_loop, plain::try_in_loop);
    grid::<Early, _>(&if_let_join, plain::if_let_join);
    grid::<Early, _>(&match_bindings, plain::match_bindings);
    grid::<Early, _>(&let_if_return, plain::let_if_return);
    grid::<Early, _>(&shadow_param_after, plain::shadow_param_after);
    grid::<Early, _>(&shadow_param_before, plain::shadow_param_before);
    grid::<Early, _>(&mut_params, plain::mut_params);
    grid::<Early, _>(&mut_param_early, plain::mut_param_early);
    grid::<Early, _>(&let_else_after_join, plain::let_else_after_join);
    grid::<Early, _>(&while_let_return, plain::while_let_return);
    grid::<Early, _>(&block_return, plain::block_return);
    grid::<Early, _>(&nested_loop_return, plain::nested_loop_return);
    grid::<Early, _>(&break_outer_after_join, plain::break_outer_after_join);
    grid::<Early, _>(&match_guard_param, plain::match_guard_param);
    grid::<Early, _>(&dead_after_returns, plain::dead_after_returns);
    grid::<Early, _>(&dead_markers, plain::dead_markers);
}

#[gtap::function]
fn unit_early(n: u32, x: u64, out: gtap::Slice<u64>) {
    if n % 2 == 0 {
        let a = task!(add1(x));
        taskwait!();
        out.atomic_add(0, a);
        return;
    }
    out.atomic_add(0, x + u64::from(n));
}
gtap::program!(EarlyUnit = [unit_early, add1]);

#[test]
fn early_exit_of_a_unit_task() {
    for (n, x) in [(0u32, 5u64), (1, 5), (2, 40), (7, 0)] {
        let mut out = [0u64; 1];
        // SAFETY: `out` outlives the run.
        let slice = unsafe { gtap::Slice::from_raw_parts(out.as_mut_ptr(), 1) };
        run::<EarlyUnit, _>(&unit_early, (n, x, slice));
        let want = if n % 2 == 0 { x + 1 } else { x + u64::from(n) };
        assert_eq!(out[0], want, "unit_early({n}, {x})");
    }
}
