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
    let mut s = Seq { tasks: Vec::new(), cur: 0, spawned: Vec::new(), max_frame: 0 };
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
    if n < 2 { n as u64 } else { fib_ref(n - 1) + fib_ref(n - 2) }
}

#[test]
fn fib_matches() {
    for n in 0..16 {
        assert_eq!(run::<Fib, _>(&fib, (n,)), fib_ref(n), "fib({n})");
    }
    // args (4 bytes, padded) + two u64 slots
    assert_eq!(layout(&fib), 24);
}
