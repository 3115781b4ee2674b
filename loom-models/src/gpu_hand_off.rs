//! A loom model of a sequential clone's hand-off on the GPU (`gtap-device/src/gpu/worker/
//! clone.rs`; `docs/gpu-runtime.md`, "Children as calls", path 9). A lane in a clone answers
//! an idle warp's request: it writes a child task whose parent is its cell, marks the cell
//! *offered*, fences and commits the task to an overflow queue, then waits. A refilling warp
//! acquires the queue's tail, fences, and claims the task with a CAS on the cell (*offered*
//! to *taken*); it runs the task, writes the result into the cell, fences and stores *done*
//! with release. The owner reads *done* with acquire and then the result; or, when nobody
//! claimed the task, it takes it back with the same CAS (*offered* to idle) and runs it
//! itself, and the refilling warp that finds the entry later drops it.
//!
//! | device | model |
//! |---|---|
//! | the task's frame, the cell's result (plain) | `UnsafeCell`s `args`, `result` |
//! | the cell's word: `st.relaxed`, `ld.acquire`, `atom.relaxed.cas`, `st.release` | `AtomicU32` with the same orderings |
//! | `fence.acq_rel.gpu` | `fence(AcqRel)` |
//! | the overflow queue's commit (`st.release` of `tail`) and refill (`ld.acquire`, fence) | `tail` |
//! | the owner's 20 µs before a take-back | one `yield_now`, then the CAS at any later look |
//!
//! The model asserts that the child runs exactly once and that the owner reads its result,
//! and that loom explored both a claim by the thief and a take-back by the owner. Two
//! variants must be rejected: `relaxed_done` (the completer's *done* without its fence and
//! release: the owner reads the result before it was written) and `plain_claim` (the claim
//! as a load and a store instead of a CAS: the thief and the owner both run the child).

use crate::cell::{read, write};
use loom::{
    cell::UnsafeCell,
    sync::{
        atomic::{fence, AtomicU32, Ordering},
        Arc,
    },
    thread,
};

const IDLE: u32 = 0;
const OFFERED: u32 = 1;
const TAKEN: u32 = 2;
const DONE: u32 = 3;
/// The hand-off's generation, in the word's upper bits.
const GENERATION: u32 = 5 << 2;

/// Which change to the protocol the model runs (all but `Whole` must be rejected).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Variant {
    Whole,
    /// The completer stores *done* relaxed, without its fence.
    RelaxedDone,
    /// The thief claims with a load and a store.
    PlainClaim,
}

struct HandOff {
    /// The cell's word.
    word: AtomicU32,
    /// The overflow queue's committed tail (0: empty, 1: the task is there).
    tail: AtomicU32,
    /// The task's frame: its argument.
    args: UnsafeCell<u32>,
    /// The cell's result.
    result: UnsafeCell<u32>,
    /// Runs of the child (a statistic of the model, not of the protocol).
    runs: AtomicU32,
    variant: Variant,
}

impl HandOff {
    /// The thief's claim of the task it refilled; whether it won.
    fn claim(&self) -> bool {
        let offered = GENERATION | OFFERED;
        let taken = GENERATION | TAKEN;
        if self.variant == Variant::PlainClaim {
            if self.word.load(Ordering::Relaxed) == offered {
                self.word.store(taken, Ordering::Relaxed);
                return true;
            }
            return false;
        }
        self.word
            .compare_exchange(offered, taken, Ordering::Relaxed, Ordering::Relaxed)
            .is_ok()
    }

    /// The thief runs the claimed task and completes it against the cell (`finish_cell`).
    fn run_and_finish(&self) {
        self.runs.fetch_add(1, Ordering::Relaxed);
        let x = read(&self.args);
        write(&self.result, x * 10);
        if self.variant == Variant::RelaxedDone {
            let v = self.word.load(Ordering::Relaxed);
            self.word.store((v & !3) | DONE, Ordering::Relaxed);
        } else {
            fence(Ordering::AcqRel);
            let v = self.word.load(Ordering::Relaxed);
            self.word.store((v & !3) | DONE, Ordering::Release);
        }
    }
}

/// How often, across loom's executions, the thief ran the child and the owner took it back.
#[derive(Default)]
struct Seen {
    thief_ran: std::sync::atomic::AtomicUsize,
    taken_back: std::sync::atomic::AtomicUsize,
}

fn check(variant: Variant) {
    let seen = std::sync::Arc::new(Seen::default());
    let counts = std::sync::Arc::clone(&seen);
    loom::model(move || {
        let h = Arc::new(HandOff {
            word: AtomicU32::new(IDLE),
            tail: AtomicU32::new(0),
            args: UnsafeCell::new(0),
            result: UnsafeCell::new(0),
            runs: AtomicU32::new(0),
            variant,
        });
        let thief = {
            let h = Arc::clone(&h);
            let seen = std::sync::Arc::clone(&counts);
            thread::spawn(move || {
                // An idle warp refills from the overflow queue: acquire the tail, fence.
                if h.tail.load(Ordering::Acquire) == 1 {
                    fence(Ordering::AcqRel);
                    if h.claim() {
                        h.run_and_finish();
                        seen.thief_ran
                            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                    // A lost claim drops the entry: its slot goes back to the pools, which
                    // the owner no longer reads.
                }
            })
        };
        // The owner: the task's frame and the cell, then the fence and the commit.
        let arg = 4;
        write(&h.args, arg);
        h.word.store(GENERATION | OFFERED, Ordering::Relaxed);
        fence(Ordering::AcqRel);
        h.tail.store(1, Ordering::Release);
        // Its wait: *done* with acquire, or, after a while, the take-back.
        let mut looks = 0;
        let out = loop {
            let v = h.word.load(Ordering::Acquire);
            if v == GENERATION | DONE {
                break read(&h.result);
            }
            if v == GENERATION | OFFERED
                && looks > 0
                && h.word
                    .compare_exchange(v, GENERATION | IDLE, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok()
            {
                // Taken back: the lane calls the child itself, with its own copy of the
                // argument.
                h.runs.fetch_add(1, Ordering::Relaxed);
                counts
                    .taken_back
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                break arg * 10;
            }
            looks += 1;
            thread::yield_now();
        };
        assert_eq!(out, 40, "the owner read a result the child had not written");
        thief.join().unwrap();
        assert_eq!(
            h.runs.load(Ordering::Relaxed),
            1,
            "the handed-off child ran twice"
        );
    });
    let (ran, back) = (
        seen.thief_ran.load(std::sync::atomic::Ordering::Relaxed),
        seen.taken_back.load(std::sync::atomic::Ordering::Relaxed),
    );
    assert!(ran > 0, "no execution had the thief run the child");
    assert!(back > 0, "no execution had the owner take the child back");
}

#[test]
fn handed_off_then_done_or_taken_back() {
    check(Variant::Whole);
}

#[test]
#[should_panic(expected = "Causality violation")]
fn relaxed_done() {
    check(Variant::RelaxedDone);
}

#[test]
#[should_panic(expected = "ran twice")]
fn plain_claim() {
    check(Variant::PlainClaim);
}
