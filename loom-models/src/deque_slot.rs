//! One entry of a worker's deque in the CPU executor's models (`cpu_join`, `cpu_finish`):
//! crossbeam-deque's push is a release and its pop or steal an acquire, so an entry is an
//! `AtomicU8` stored `Release` when pushed and taken by one `compare_exchange(.., Acquire, _)`,
//! whoever takes it (the owner popping it back or a thief).

use loom::sync::atomic::{AtomicU8, Ordering};

/// Not pushed yet.
const EMPTY: u8 = 0;
/// Pushed, not taken.
const READY: u8 = 1;
/// Taken by the owner or a thief.
const TAKEN: u8 = 2;

pub(crate) struct DequeSlot(AtomicU8);

impl DequeSlot {
    pub(crate) fn new() -> Self {
        Self(AtomicU8::new(EMPTY))
    }

    /// The push that publishes the entry (a release).
    pub(crate) fn push(&self) {
        self.0.store(READY, Ordering::Release);
    }

    /// Takes the entry if it is there (a pop or a steal: an acquire); `false` when it is not
    /// pushed yet or already taken.
    pub(crate) fn take(&self) -> bool {
        self.0
            .compare_exchange(READY, TAKEN, Ordering::Acquire, Ordering::Relaxed)
            .is_ok()
    }
}
