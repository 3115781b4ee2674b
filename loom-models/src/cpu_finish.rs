//! A loom model of how a finishing record tells its suspended parent on the CPU executor
//! (`gtap-runtime/src/cpu/worker.rs`, `finish`): the last child is known without an RMW when
//! the parent's count already reads 1, and only then the count is left unwritten.
//!
//! | executor | model |
//! |---|---|
//! | the parent's step suspends: `pending.store(n, Relaxed)`, then its children are published (the first as `next`, the others pushed: a release) | `Parent::pending`, then one `DequeSlot` per child (`deque_slot.rs`): pushed `Release`, taken by one `compare_exchange(.., Acquire, _)` |
//! | a child writes its result into the parent's frame | `UnsafeCell` per result slot |
//! | `finish`: `pending.load(Acquire) == 1 \|\| pending.fetch_sub(1, AcqRel) == 1` | `Parent::tell` |
//! | the last child's worker resumes the parent, which reads the results and joins again (a fresh count, stored `Relaxed`, before the next child is published) | the same: the second round has one child, taken by the thief |
//!
//! The second round checks the count that the first round's last child left unwritten (1 when
//! it took the shortcut): the new count is stored before the child is published, so the child
//! cannot read the stale one. The model asserts that each round's parent resumes exactly once
//! and reads every result. `relaxed_load` (the shortcut's load `Relaxed`) must be rejected: the
//! parent would read a sibling's result that its write does not happen before.

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

/// Which form of the protocol the model runs (`RelaxedLoad` must be rejected).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Variant {
    Whole,
    /// The shortcut's load of the count is `Relaxed`.
    RelaxedLoad,
}

struct Parent {
    /// The parent's count of children not finished.
    pending: AtomicU32,
    /// The results of the first round's two children and of the second round's child.
    results: [UnsafeCell<u32>; 3],
    /// The deque: the first round's second child, then the second round's child.
    slots: [DequeSlot; 2],
    /// Times the parent was resumed (by the last child of each round).
    resumed: AtomicU32,
    variant: Variant,
}

impl Parent {
    /// `finish`'s test for the last child: true for exactly one child of a join.
    fn tell(&self) -> bool {
        let order = if self.variant == Variant::RelaxedLoad {
            Ordering::Relaxed
        } else {
            Ordering::Acquire
        };
        self.pending.load(order) == 1 || self.pending.fetch_sub(1, Ordering::AcqRel) == 1
    }

    /// Runs child `i` of the first round; its last child resumes the parent, which reads both
    /// results and starts the second round (one child, pushed on the deque).
    fn run_first_round_child(&self, i: usize) {
        write(&self.results[i], 10 * (i as u32 + 1));
        if self.tell() {
            self.resumed.fetch_add(1, Ordering::Relaxed);
            assert_eq!(
                (read(&self.results[0]), read(&self.results[1])),
                (10, 20),
                "the parent resumed before a child's result was visible"
            );
            // The next join: a fresh count, then the child's publication.
            self.pending.store(1, Ordering::Relaxed);
            self.slots[1].push();
        }
    }
}

fn check(variant: Variant) {
    loom::model(move || {
        let parent = Arc::new(Parent {
            pending: AtomicU32::new(0),
            results: [UnsafeCell::new(0), UnsafeCell::new(0), UnsafeCell::new(0)],
            slots: [DequeSlot::new(), DequeSlot::new()],
            resumed: AtomicU32::new(0),
            variant,
        });
        // The parent's step suspends with two children: the count, then the publication (the
        // first child is the owner's `next`, the second is pushed).
        parent.pending.store(2, Ordering::Relaxed);
        parent.slots[0].push();
        let thief = {
            let parent = Arc::clone(&parent);
            thread::spawn(move || {
                // Steals the first round's second child if the owner has not popped it, then
                // waits for the second round's child, which only it takes.
                if parent.slots[0].take() {
                    parent.run_first_round_child(1);
                }
                loop {
                    if parent.slots[1].take() {
                        write(&parent.results[2], 30);
                        if parent.tell() {
                            parent.resumed.fetch_add(1, Ordering::Relaxed);
                            assert_eq!(read(&parent.results[2]), 30);
                        }
                        break;
                    }
                    thread::yield_now();
                }
            })
        };
        // The owner runs its `next` (child 0), then pops child 1 back if nobody stole it.
        parent.run_first_round_child(0);
        if parent.slots[0].take() {
            parent.run_first_round_child(1);
        }
        thief.join().unwrap();
        assert_eq!(
            parent.resumed.load(Ordering::Relaxed),
            2,
            "each round's parent resumes exactly once"
        );
    });
}

#[test]
fn last_child_known_from_the_count() {
    check(Variant::Whole);
}

#[test]
#[should_panic(expected = "Causality violation")]
fn relaxed_load() {
    check(Variant::RelaxedLoad);
}
