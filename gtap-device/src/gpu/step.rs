//! A task's life on any worker, the part both loops share: creating a child (the spawn's
//! checks, its header, its ring entry) and opening a join when a step spawned children.
//! Each loop's [`Context`](crate::task::Context) calls these; only where the slot comes from
//! differs (a lane's free array or its warp's pool, `pool.rs`), and whether the child goes to
//! the ring at once (a lane may hold its last child to run it inline, `worker/lane.rs`).
//!
//! # Invariants
//!
//! - A child's header is written before its ring entry, and both before the batch ends; no
//!   other worker can name the child until its entry is released (work first) or published
//!   (the ablations), each behind a fence (`deque.rs`).
//! - A join is opened by the worker that ran the step (its *owner*), which writes `pending`
//!   and `flags` before any child can run: its children are on the owner's ring, unpublished,
//!   until the batch ends. Opening a join clears the last join's mark ([`FLAG_SHARED`]): a
//!   new join is owner-only until one of its children is released.
//!
//! [`FLAG_SHARED`]: super::layout::FLAG_SHARED

use core::ptr::addr_of_mut;

use super::layout::{
    Header, ERR_INVALID_QUEUE, ERR_TOO_MANY_CHILDREN, FLAG_DONE, HEADER_BYTES, NONE,
};
use super::warp::Warp;
use crate::arch::nvptx as a;

impl Warp {
    /// Whether a spawn to `queue` by a step of kind `spawner` that already spawned `spawned`
    /// children must be refused: the queue is not one of the worker's `queues`, or the step
    /// reached `Config::max_children`. A refusal records the run's error (which names the
    /// limit), and the step aborts.
    #[inline(always)]
    pub(crate) fn refuse_spawn(&self, spawner: u32, queue: u32, queues: u32, spawned: u32) -> bool {
        if queue >= queues {
            self.record_error(ERR_INVALID_QUEUE, spawner, queues, queue);
            return true;
        }
        if spawned >= self.max_children {
            self.record_error(ERR_TOO_MANY_CHILDREN, spawner, self.max_children, spawned);
            return true;
        }
        false
    }

    /// Writes the header of a new task of `kind` in `slot`, child of `parent` (or [`NONE`]
    /// in a program without joins), whose result goes to `result_dst`; `queue` is the queue
    /// field until the task suspends. The spawner writes the arguments to
    /// [`Warp::frame`] of the slot.
    ///
    /// # Safety
    ///
    /// `slot` was just allocated by this worker: nobody else can name it yet.
    #[inline(always)]
    pub(crate) unsafe fn init_child(
        &self,
        slot: u32,
        kind: u32,
        queue: u32,
        parent: u32,
        result_dst: *mut u8,
    ) {
        let h = self.header(slot);
        // SAFETY: as the caller promises; slots, hence headers, are 16-aligned
        // (`Params::slot_bytes`); plain stores, published with the ring entry.
        unsafe {
            // `Header`'s fields in order: `kind`, `state` 0, `queue`, `pending` 0; then
            // `parent` and `flags` 0 as one little-endian `u64`, and `result_dst`.
            a::st_v4_u32(h.cast(), kind, 0, queue, 0);
            a::st_v2_u64(h.cast::<u64>().add(2), u64::from(parent), result_dst as u64);
        }
    }

    /// The frame of the task in `slot`: its arguments, locals saved across a join, and the
    /// results its children write.
    #[inline(always)]
    pub(crate) fn frame(&self, slot: u32) -> *mut u8 {
        self.header(slot)
            .cast::<u8>()
            .wrapping_add(HEADER_BYTES as usize)
    }

    /// The running task's step spawned `pending` children and suspended (`done == false`: a
    /// `taskwait!`) or returned (`done`: its record waits for detached children): opens the
    /// task's new join. `local` (the thread-level work-first worker) writes with plain stores:
    /// until a child is released only this warp touches the counter (`join.rs`, owner only).
    /// Otherwise `pending` takes a strong store, like the RMWs other threads make on it.
    ///
    /// # Safety
    ///
    /// `h` is the header of the task this worker just stepped, and `pending > 0`.
    #[inline(always)]
    pub(crate) unsafe fn open_join(&self, h: *mut Header, pending: u32, done: bool, local: bool) {
        let flags = if done { FLAG_DONE } else { 0 };
        // SAFETY: as the caller promises; the children are unpublished until the batch ends.
        unsafe {
            if local {
                (*h).pending = pending;
            } else {
                // Ordering: relaxed, scope .gpu; published with the children (the batch's
                // barrier, and the fence of a release or of the ablation's publication).
                a::st_relaxed_gpu_u32(addr_of_mut!((*h).pending), pending);
            }
            (*h).flags = flags;
        }
    }
}

/// A spawn's parent field: the spawner's slot, or [`NONE`] in a program without joins (whose
/// tasks nobody waits for).
#[inline(always)]
pub(crate) const fn parent_field(joins: bool, spawner: u32) -> u32 {
    if joins {
        spawner
    } else {
        NONE
    }
}
