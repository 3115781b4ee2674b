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
    /// field until the task suspends; `flags` holds the child's depth where the kernel keeps
    /// depths (`FLAG_DEPTH_SHIFT`), else 0. The spawner writes the arguments to
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
        flags: u16,
    ) {
        let header = Header {
            kind,
            state: 0,
            pending: 0,
            queue: queue as u16,
            flags,
            parent,
            reserved: 0,
            result_dst: result_dst as u64,
        };
        // SAFETY: as the caller promises; published with the ring entry.
        unsafe { self.store_header(self.header(slot), header) }
    }

    /// Writes `header` at `h` with two 16-byte stores (two memory requests where the fields'
    /// own stores take one each).
    ///
    /// # Safety
    ///
    /// `h` is the header of a new task: nobody else can read or write it yet.
    #[inline(always)]
    pub(crate) unsafe fn store_header(&self, h: *mut Header, header: Header) {
        let Header {
            kind,
            state,
            pending,
            queue,
            flags,
            parent,
            reserved,
            result_dst,
        } = header;
        // SAFETY: as the caller promises; slots, hence headers, are 16-aligned
        // (`Params::slot_bytes`); plain stores.
        unsafe {
            // `Header`'s words in order (`layout.rs` asserts the offsets).
            a::st_v4_u32(h.cast(), kind, state, pending, queue_flags(queue, flags));
            let parent_reserved = u64::from(parent) | u64::from(reserved) << 32;
            a::st_v2_u64(h.cast::<u64>().add(2), parent_reserved, result_dst);
        }
    }

    /// The header at `h`, read with two 16-byte loads (two memory requests where the fields'
    /// own loads take three or four, though those mostly hit the sector the first one brought
    /// into L1: `docs/benchmarks.md`, eleventh session).
    ///
    /// # Safety
    ///
    /// `h` is the header of a task this lane runs or resumes: written by this warp, or
    /// acquired with the task, and not written by others meanwhile (plain loads).
    #[inline(always)]
    pub(crate) unsafe fn load_header(&self, h: *mut Header) -> Header {
        // SAFETY: as the caller promises; slots, hence headers, are 16-aligned
        // (`Params::slot_bytes`).
        let ([kind, state, pending, queue_flags], [parent_reserved, result_dst]) =
            unsafe { (a::ld_v4_u32(h.cast()), a::ld_v2_u64(h.cast::<u64>().add(2))) };
        // `Header`'s words in order (`layout.rs` asserts the offsets).
        let (queue, flags) = split_queue_flags(queue_flags);
        Header {
            kind,
            state,
            pending,
            queue,
            flags,
            parent: parent_reserved as u32,
            reserved: (parent_reserved >> 32) as u32,
            result_dst,
        }
    }

    /// Asks L1 for the first bytes of the frame after header `h` (`CCTL.E.PF1`, nothing waits
    /// for it), ahead of a step that will read them. A lane that resumes a parent inline
    /// calls it with the parent's header load: the continuation reads its locals and its
    /// children's results from there, and without the prefetch that read was a second round
    /// trip to L2 after the header's, the costliest stall of the chain (fifteenth session:
    /// the chain 8.5% faster on an H100). Not done for a batch's tasks: there the prefetch
    /// cost fib 1.2% (the loads already overlap across the warp's lanes and its 16 warps per
    /// SM).
    ///
    /// # Safety
    ///
    /// `h` is a task's header in the pool: every slot has at least 16 bytes of frame after
    /// its header (the host sizes them so).
    #[inline(always)]
    pub(crate) unsafe fn prefetch_frame(&self, h: *mut Header) {
        // SAFETY: inside the slot, as the caller promises.
        unsafe { a::prefetch_l1(h.cast::<u8>().add(HEADER_BYTES as usize)) };
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
    /// task's new join, with a strong store of `pending`, like the RMWs other threads make on
    /// it. (The thread-level work-first worker uses [`Warp::open_join_local`].)
    ///
    /// # Safety
    ///
    /// `h` is the header of the task this worker just stepped, and `pending > 0`.
    #[inline(always)]
    pub(crate) unsafe fn open_join(&self, h: *mut Header, pending: u32, done: bool) {
        let flags = if done { FLAG_DONE } else { 0 };
        // SAFETY: as the caller promises; the children are unpublished until the batch ends.
        unsafe {
            // Ordering: relaxed, scope .gpu; published with the children (the batch's
            // barrier, and the fence of a release or of the ablation's publication).
            a::st_relaxed_gpu_u32(addr_of_mut!((*h).pending), pending);
            (*h).flags = flags;
        }
    }

    /// [`Warp::open_join`] for the thread-level work-first worker, with the resume `state`
    /// and `queue` its `wait` named: until a child is released only this warp touches the
    /// counter (`join.rs`, owner only), so the header's first half (`kind`, `state`,
    /// `pending`, `queue` and `flags`) is one plain 16-byte store: one memory request where
    /// the fields' own stores take four.
    ///
    /// # Safety
    ///
    /// As for [`Warp::open_join`]; `kind` is the task's kind, `depth` its flags' depth bits
    /// (`FLAG_DEPTH_SHIFT`), kept.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) unsafe fn open_join_local(
        &self,
        h: *mut Header,
        kind: u32,
        state: u32,
        queue: u32,
        pending: u32,
        done: bool,
        depth: u16,
    ) {
        let flags = if done { FLAG_DONE } else { 0 } | depth;
        // SAFETY: as the caller promises; slots, hence headers, are 16-aligned
        // (`Params::slot_bytes`); the children are unpublished until the batch ends.
        unsafe {
            a::st_v4_u32(
                h.cast(),
                kind,
                state,
                pending,
                queue_flags(queue as u16, flags),
            )
        };
    }
}

/// A header's fourth word: `queue` and `flags` (little-endian, `layout.rs`).
#[inline(always)]
pub(crate) const fn queue_flags(queue: u16, flags: u16) -> u32 {
    queue as u32 | (flags as u32) << 16
}

/// `queue` and `flags` out of a header's fourth word ([`queue_flags`]).
#[inline(always)]
pub(crate) const fn split_queue_flags(word: u32) -> (u16, u16) {
    (word as u16, (word >> 16) as u16)
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
