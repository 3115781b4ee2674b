//! A loom model of promotion on request onto a live join cell, the CPU executor's steal of
//! unstarted work (`gtap-runtime/src/cpu/join.rs`, "Promotion on request"). A step running as
//! a call joins a record child `A` on a fresh cell and pushes it; it then runs its inline
//! children one by one, and before the next one starts it reads its request flag. A thief,
//! finding nothing, sets that flag and steals. When the owner sees the flag, its unstarted
//! inline child `B` becomes a record joined on *the same cell*, whose count a stolen `A` may
//! already have taken to zero: the promotion's increment climbs back from zero while the
//! owner is not yet waiting. The owner then helps until the count is zero, reads both results
//! and frees the cell.
//!
//! | executor | model |
//! |---|---|
//! | `Run::wanted[owner]`: the thief's `store(true, Relaxed)`, the owner's `load(Relaxed)` | `Promote::wanted` |
//! | `Cx::join`: the cell made with the count of the step's records, then the pushes | `new_cell(1)`, then `A`'s push |
//! | `promote_outermost`: the record written, `fetch_add(n, Relaxed)` on the cell, then the push | `B`'s argument, the add, then `B`'s push |
//! | crossbeam-deque push (release) / pop and steal (acquire) | one `DequeSlot` per record (`deque_slot.rs`) |
//! | `finish` on a cell: `fetch_sub(1, AcqRel)` | the same, and the count before it must be at least 1 |
//! | `help`: `load(Acquire) == 0`, then the results read and the cell freed | the same; the free is a write of `Promote::state` |
//!
//! The flag is a hint: the model asserts the same results whether the owner saw it or not,
//! and loom explores both. Two variants must be rejected: `count_after_push` (the promotion
//! publishes `B` before counting it: a thief that finished `A` finishes `B` against a count of
//! zero) and `relaxed_wait` (the waiter's load is Relaxed: the results are read without the
//! children's writes happening before).

use crate::cell::{read, write};
use crate::deque_slot::DequeSlot;
use loom::{
    cell::UnsafeCell,
    sync::{
        atomic::{AtomicBool, AtomicU32, Ordering},
        Arc,
    },
    thread,
};

/// The cell's `state` while it stands as a parent (`JOIN_CELL`).
const JOIN_CELL: u32 = 7;
/// Record `A`: the step's record child, joined on the cell when the join begins.
const A: usize = 0;
/// Record `B`: the inline child promoted onto the same cell.
const B: usize = 1;

/// Which change to the protocol the model runs (all but `Whole` must be rejected).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Variant {
    Whole,
    /// The promotion pushes `B` before it adds `B` to the cell's count.
    CountAfterPush,
    /// The joining worker waits for zero with a Relaxed load.
    RelaxedWait,
}

struct Promote {
    /// The owner's request flag.
    wanted: AtomicBool,
    /// The cell's count of records not finished.
    pending: AtomicU32,
    /// The cell's `state`; the joining worker overwrites it when it frees the cell.
    state: UnsafeCell<u32>,
    /// Each child's arguments (its frame), written before it is published.
    args: [UnsafeCell<u32>; 2],
    /// Each child's result slot in the joining step's frame.
    results: [UnsafeCell<u32>; 2],
    /// The owner's deque, one slot per record.
    slots: [DequeSlot; 2],
    variant: Variant,
}

impl Promote {
    /// Runs child `i`; a record then finishes against the cell (`worker.rs`, `finish`).
    fn run_child(&self, i: usize, record: bool) {
        let x = read(&self.args[i]);
        write(&self.results[i], x * 10);
        if record {
            assert_eq!(read(&self.state), JOIN_CELL);
            let before = self.pending.fetch_sub(1, Ordering::AcqRel);
            assert!(before >= 1, "a join cell's count went below zero");
        }
    }

    /// `promote_outermost` for the one unstarted child `B`; returns the count it found.
    fn promote(&self) -> u32 {
        let found = if self.variant == Variant::CountAfterPush {
            self.slots[B].push();
            self.pending.fetch_add(1, Ordering::Relaxed)
        } else {
            let found = self.pending.fetch_add(1, Ordering::Relaxed);
            self.slots[B].push();
            found
        };
        self.wanted.store(false, Ordering::Relaxed);
        found
    }

    /// `help`: runs its own records back while the count is not zero.
    fn help(&self) {
        let order = if self.variant == Variant::RelaxedWait {
            Ordering::Relaxed
        } else {
            Ordering::Acquire
        };
        loop {
            if self.pending.load(order) == 0 {
                return;
            }
            if let Some(i) = [B, A].into_iter().find(|&i| self.slots[i].take()) {
                self.run_child(i, true);
            } else {
                thread::yield_now();
            }
        }
    }
}

/// How often, across the executions loom ran, the owner promoted `B` onto a cell whose count
/// the stolen `A` had already taken to zero, and how often the thief ran `B`.
#[derive(Default)]
struct Seen {
    promoted_at_zero: std::sync::atomic::AtomicUsize,
    b_stolen: std::sync::atomic::AtomicUsize,
}

fn check(variant: Variant) {
    let seen = std::sync::Arc::new(Seen::default());
    let counts = std::sync::Arc::clone(&seen);
    loom::model(move || {
        let seen = &counts;
        let p = Arc::new(Promote {
            wanted: AtomicBool::new(false),
            pending: AtomicU32::new(0),
            state: UnsafeCell::new(JOIN_CELL),
            args: [UnsafeCell::new(0), UnsafeCell::new(0)],
            results: [UnsafeCell::new(0), UnsafeCell::new(0)],
            slots: [DequeSlot::new(), DequeSlot::new()],
            variant,
        });
        // The step spawns A (a record: written, counted on a new cell, pushed) and B (inline:
        // its frame written on the worker's frame stack).
        write(&p.args[A], 1);
        write(&p.args[B], 2);
        p.pending.store(1, Ordering::Relaxed);
        p.slots[A].push();
        let thief = {
            let p = Arc::clone(&p);
            let seen = std::sync::Arc::clone(seen);
            thread::spawn(move || {
                // Found no task: ask the owner, then steal, oldest first, one try each. The
                // executor loads the flag first and stores `true` only when it read `false` (to
                // spare its owner an invalidation); the store alone leaves the flag the same.
                // (With the load before it, loom never let the owner's Relaxed load read this
                // store, so the model makes the store alone.)
                p.wanted.store(true, Ordering::Relaxed);
                for i in [A, B] {
                    if p.slots[i].take() {
                        p.run_child(i, true);
                        if i == B {
                            seen.b_stolen
                                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                }
            })
        };
        // The join's inline children: before B starts, the request flag.
        if p.wanted.load(Ordering::Relaxed) {
            if p.promote() == 0 {
                seen.promoted_at_zero
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            }
        } else {
            p.run_child(B, false);
        }
        p.help();
        assert_eq!(
            (read(&p.results[A]), read(&p.results[B])),
            (10, 20),
            "a child's result is missing after the join"
        );
        // The cell is freed and its record reused.
        write(&p.state, 0);
        thief.join().unwrap();
    });
    // The model covers the cases it is about: loom explored them.
    let (at_zero, stolen) = (
        seen.promoted_at_zero
            .load(std::sync::atomic::Ordering::Relaxed),
        seen.b_stolen.load(std::sync::atomic::Ordering::Relaxed),
    );
    assert!(at_zero > 0, "no execution promoted onto a count of zero");
    assert!(
        stolen > 0,
        "no execution had the thief run the promoted child"
    );
}

#[test]
fn promoted_onto_a_cell_whose_count_reached_zero() {
    check(Variant::Whole);
}

#[test]
#[should_panic(expected = "below zero")]
fn count_after_push() {
    check(Variant::CountAfterPush);
}

#[test]
#[should_panic(expected = "Causality violation")]
fn relaxed_wait() {
    check(Variant::RelaxedWait);
}
