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
