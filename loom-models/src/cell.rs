//! Plain (non-atomic) accesses to the models' warp-owned words: loom checks that each is
//! ordered with every other access to its cell, and a race fails the model, which is what the
//! models test for.

use loom::cell::UnsafeCell;

/// A plain load.
pub(crate) fn read(cell: &UnsafeCell<u32>) -> u32 {
    // SAFETY: loom checks that this access is ordered with every write to `cell`.
    cell.with(|p| unsafe { *p })
}

/// A plain store.
pub(crate) fn write(cell: &UnsafeCell<u32>, value: u32) {
    // SAFETY: as in `read`: loom checks every access.
    cell.with_mut(|p| unsafe { *p = value })
}
