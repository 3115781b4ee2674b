//! A loom model of the global queues' ring (`gtap-device/src/gpu/global_queue.rs`) across a
//! wrap-around: positions `p` and `p + CAP` share an entry, a writer waits for the entry to be
//! zeroed by the claimer of its previous occupant, and a claimer may read a `tail` older than
//! the `head` it read first.
//!
//! The owner pushes three tasks one at a time into a ring of two entries (the third reuses the
//! first entry) and claims one itself; an idle warp claims what it can. Every task that was
//! pushed must be taken exactly once, with its data visible; a push the capacity check refuses
//! is the device's typed error (`QueueOverflow`), an allowed outcome.

use crate::cell::{read, write};
use loom::{
    cell::UnsafeCell,
    sync::{
        atomic::{
            fence, AtomicU32,
            Ordering::{AcqRel, Acquire, Relaxed, Release},
        },
        Arc,
    },
    thread,
};

const CAP: u32 = 2;
const TASKS: usize = 3;

struct Ring {
    entries: [AtomicU32; CAP as usize],
    alloc: AtomicU32,
    tail: AtomicU32,
    head: AtomicU32,
    /// The tasks' frames, written before the push.
    data: [UnsafeCell<u32>; TASKS],
    /// Bookkeeping: how many times each task was taken.
    taken: [AtomicU32; TASKS],
    /// `GlobalQueues::pop` reads a `tail` older than its `head` as empty (false: the version
    /// before, which loom must reject).
    stale_tail_check: bool,
}

impl Ring {
    fn new(stale_tail_check: bool) -> Self {
        Ring {
            stale_tail_check,
            entries: std::array::from_fn(|_| AtomicU32::new(0)),
            alloc: AtomicU32::new(0),
            tail: AtomicU32::new(0),
            head: AtomicU32::new(0),
            data: std::array::from_fn(|_| UnsafeCell::new(0)),
            taken: std::array::from_fn(|_| AtomicU32::new(0)),
        }
    }

    fn entry(&self, pos: u32) -> &AtomicU32 {
        &self.entries[(pos % CAP) as usize]
    }

    /// `reserve`, `write`, fence, `commit` for one task; false when the capacity check
    /// refuses it (the device records `QueueOverflow`).
    fn push(&self, task: u32) -> bool {
        write(&self.data[task as usize], 100 + task);
        let base = self.alloc.fetch_add(1, Relaxed);
        let h = self.head.load(Relaxed);
        if base.wrapping_add(1).wrapping_sub(h) > CAP {
            return false;
        }
        let e = self.entry(base);
        while e.load(Relaxed) != 0 {
            thread::yield_now();
        }
        e.store(task + 1, Relaxed);
        fence(AcqRel);
        while self.tail.load(Relaxed) != base {
            thread::yield_now();
        }
        self.tail.store(base + 1, Release);
        true
    }

    /// `pop` of one entry, fence, `take`; returns whether a task was taken.
    fn take(&self) -> bool {
        let h = self.head.load(Relaxed);
        let t = self.tail.load(Acquire);
        let avail = t.wrapping_sub(h);
        if avail == 0 || (self.stale_tail_check && avail > CAP) {
            return false;
        }
        if self
            .head
            .compare_exchange(h, h + 1, Relaxed, Relaxed)
            .is_err()
        {
            return false;
        }
        fence(AcqRel);
        let e = self.entry(h);
        let v = loop {
            let v = e.load(Relaxed);
            if v != 0 {
                break v;
            }
            thread::yield_now();
        };
        e.store(0, Relaxed);
        let task = (v - 1) as usize;
        let data = read(&self.data[task]);
        assert_eq!(data, 100 + task as u32, "a task taken with another's frame");
        assert_eq!(
            self.taken[task].fetch_add(1, Relaxed),
            0,
            "a task taken twice"
        );
        true
    }
}

/// The model: the owner pushes three tasks and takes one, an idle warp takes two, the rest is
/// drained; every pushed task is taken exactly once.
fn check_ring(stale_tail_check: bool) {
    loom::model(move || {
        let ring = Arc::new(Ring::new(stale_tail_check));
        let idle = {
            let ring = Arc::clone(&ring);
            thread::spawn(move || {
                ring.take();
                ring.take();
            })
        };
        let mut pushed = [false; TASKS];
        pushed[0] = ring.push(0);
        pushed[1] = ring.push(1);
        ring.take();
        pushed[2] = ring.push(2);
        idle.join().unwrap();
        // Drain what is left, as idle warps would.
        while ring.take() {}
        for (task, &was_pushed) in pushed.iter().enumerate() {
            let times = ring.taken[task].load(Relaxed);
            assert_eq!(
                times,
                u32::from(was_pushed),
                "task {task} taken {times} times"
            );
        }
    });
}

#[test]
fn ring_wraps_around() {
    check_ring(true);
}

#[test]
#[should_panic(expected = "a task taken twice")]
fn no_stale_tail_check() {
    // The pop before the loom model of the overflow queues: a `tail` older than the `head`
    // read before it is taken for 2^32 - 1 entries, and a claimer takes a position twice.
    check_ring(false);
}
