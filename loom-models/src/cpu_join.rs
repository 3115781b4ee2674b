//! A loom model of the CPU executor's join of a call (`gtap-runtime/src/cpu/context.rs`,
//! "Joining records from a call"): a step that runs as a call on a worker promotes its two
//! unstarted children to records joined on a *join cell*, pushes them on its deque, and helps
//! until the cell's count is zero; a thief steals one child meanwhile.
//!
//! | executor | model |
//! |---|---|
//! | cell's `pending`: `fetch_add(n, Relaxed)` before the pushes | `Cell::pending`, the same |
//! | crossbeam-deque push (release) / pop and steal (acquire) | one `DequeSlot` per child (`deque_slot.rs`): pushed `Release`, taken by one `compare_exchange(.., Acquire, _)` |
//! | a child writes its result into the joining step's frame | `UnsafeCell` per result slot |
//! | `finish` reads the parent's `state`, then `fetch_sub(1, AcqRel)` | `Cell::state` (`UnsafeCell`) read, then the decrement |
//! | the joining worker's `Acquire` load of zero, then reading results and freeing the cell | the same; the free is a write of `Cell::state` |
//!
//! Loom flags any plain access not ordered by happens-before, so the model fails if a result
//! could be read before its child wrote it, or if a finishing child could touch the cell after
//! the joining worker freed it. `relaxed_decrement` and `state_after_decrement` must be
//! rejected.

use crate::cell::{read, write};
use crate::deque_slot::DequeSlot;
use loom::{
    cell::UnsafeCell,
    sync::{
        atomic::{AtomicU32, Ordering},
        Arc,
    },
    thread,
};

/// The cell's `state` while it stands as a parent (`JOIN_CELL`).
const JOIN_CELL: u32 = 7;
/// Which change to the protocol the model runs (all but `Whole` must be rejected).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Variant {
    Whole,
    /// A finishing child decrements the count `Relaxed`.
    RelaxedDecrement,
    /// A finishing child reads the parent's state after its decrement.
    StateAfterDecrement,
}

struct Join {
    /// The cell's count of records not finished.
    pending: AtomicU32,
    /// The cell's `state`; the joining worker overwrites it when it frees the cell.
    state: UnsafeCell<u32>,
    /// Each child's arguments (its record's frame), written before the push.
    args: [UnsafeCell<u32>; 2],
    /// Each child's result slot in the joining step's frame.
    results: [UnsafeCell<u32>; 2],
    /// The deque, one slot per child.
    slots: [DequeSlot; 2],
    variant: Variant,
}

impl Join {
    /// Runs child `i` and finishes it against the cell (`worker.rs`, `finish`).
    fn run_child(&self, i: usize) {
        let x = read(&self.args[i]);
        write(&self.results[i], x * 10);
        let order = if self.variant == Variant::RelaxedDecrement {
            Ordering::Relaxed
        } else {
            Ordering::AcqRel
        };
        if self.variant == Variant::StateAfterDecrement {
            self.pending.fetch_sub(1, order);
            assert_eq!(read(&self.state), JOIN_CELL);
        } else {
            assert_eq!(read(&self.state), JOIN_CELL);
            self.pending.fetch_sub(1, order);
        }
    }
}

fn check(variant: Variant) {
    loom::model(move || {
        let join = Arc::new(Join {
            pending: AtomicU32::new(0),
            state: UnsafeCell::new(JOIN_CELL),
            args: [UnsafeCell::new(0), UnsafeCell::new(0)],
            results: [UnsafeCell::new(0), UnsafeCell::new(0)],
            slots: [DequeSlot::new(), DequeSlot::new()],
            variant,
        });
        // Promotion: the records are written and counted before they are pushed.
        for i in 0..2 {
            write(&join.args[i], i as u32 + 1);
        }
        join.pending.fetch_add(2, Ordering::Relaxed);
        for i in (0..2).rev() {
            join.slots[i].push();
        }
        let thief = {
            let join = Arc::clone(&join);
            thread::spawn(move || {
                // A thief takes the oldest entry: the last child.
                if join.slots[1].take() {
                    join.run_child(1);
                }
            })
        };
        // The joining worker helps: pops its own children back and runs them, else waits.
        loop {
            if join.pending.load(Ordering::Acquire) == 0 {
                break;
            }
            if let Some(i) = (0..2).find(|&i| join.slots[i].take()) {
                join.run_child(i);
            } else {
                thread::yield_now();
            }
        }
        assert_eq!(
            (read(&join.results[0]), read(&join.results[1])),
            (10, 20),
            "a child's result is missing after the join"
        );
        // The cell is freed and its record reused.
        write(&join.state, 0);
        thief.join().unwrap();
    });
}

#[test]
fn stolen_child_finishes_while_the_parent_helps() {
    check(Variant::Whole);
}

#[test]
#[should_panic(expected = "Causality violation")]
fn relaxed_decrement() {
    check(Variant::RelaxedDecrement);
}

#[test]
#[should_panic(expected = "Causality violation")]
fn state_after_decrement() {
    check(Variant::StateAfterDecrement);
}
