//! The worker's view of the run: [`Warp`] holds the params its hot paths read in registers,
//! the worker's index and its shared-memory words; the fields only cold paths read (the error
//! record, the overflow queue, the arena's bounds, the worker count) are read from the run's
//! params in memory when needed ([`Warp::error`] and its siblings). Every part of the
//! scheduler is a method on it: the deques (`deque.rs`), the pools (`pool.rs`), the joins
//! (`join.rs`), creating and settling tasks (`step.rs`); the loops in `worker/` drive them.
//!
//! A *worker* is a warp for the thread-level loop and a thread block for the block-level one
//! (`Warp::warp` is then the block's index). A block-level worker also holds one view per
//! warp of the block, for that warp's pool.
//!
//! # Invariants
//!
//! - Every field is loaded once, at the worker's start, from the params of its run; none
//!   changes while the worker runs, and neither do the params the cold-path getters read
//!   (`params()`: the run's own region, the same for every launch of the run).
//! - A field belongs in the view only if a hot path (a spawn, a batch's pops, frees, joins
//!   and release) reads it: every field is a register that must survive a task body, and a
//!   body that calls a function keeps all of them live across the call (taking the cold
//!   fields out took `FibCutoff`'s kernel from 202 registers to 144, the block-level BFS's
//!   from 96 to 80; `docs/benchmarks.md`, tenth session). The control block stays: the idle
//!   path polls it (reading it through the params cost the chain 5%).
//! - `smem` is this worker's first shared word ([`a::SharedWord`], a 32-bit address in the
//!   shared window, so the words are read and written with `ld/st.shared`): nothing outside
//!   the worker reads or writes them. Words that lanes update at once within a batch (a
//!   queue's tail, the pool's counters, the head cache) take block-scope atomics, or relaxed
//!   loads and stores whose stale values are harmless; what lane 0 writes between batches
//!   reaches the other lanes through a warp barrier (`bar.warp.sync`) before the bodies run,
//!   and a block's words through a block barrier.
//! - The error record has one writer per run (the first CAS on `Control::error`), and every
//!   worker leaves its loop once it sees a stop ([`stop_requested`]).

use core::ptr::addr_of_mut;

use super::layout::{Control, DequeHeader, ErrorRecord, Header, Params, SpillHeader};
use crate::arch::nvptx as a;

/// Every lane of a warp, for the `*.sync` instructions.
pub(crate) const FULL: u32 = 0xffff_ffff;

/// The per-warp view of the run: the hot params in registers (every field stays in a register
/// for the whole kernel; what only cold paths read comes from the params in memory instead, see
/// [`Warp::error`], as do the global queues, `GlobalQueues::of_run`), the warp's index and its
/// shared memory words.
pub(crate) struct Warp {
    pub(crate) slots: *mut u8,
    pub(crate) slot_bytes: usize,
    pub(crate) n: u32,
    pub(crate) free_rings: *mut u32,
    pub(crate) free_pos: *mut u32,
    pub(crate) ring_cap: u32,
    pub(crate) queues: u32,
    pub(crate) deques: *mut DequeHeader,
    pub(crate) deque_rings: *mut u32,
    pub(crate) queue_cap: u32,
    pub(crate) root_slot: u32,
    pub(crate) max_children: u32,
    /// Work-first kernel only: the private free stacks (see `pool.rs`).
    pub(crate) free_stacks: *mut u32,
    pub(crate) stack_cap: u32,
    /// Work-first kernel only: the release policy (read every batch).
    pub(crate) release_below: u32,
    pub(crate) release_size: u32,
    /// Work-first kernel only: the inline policy, and the lanes' free arrays.
    pub(crate) inline_steps: u32,
    pub(crate) inline_last_child: bool,
    pub(crate) lane_frees: *mut u32,
    /// The run's control block: read on the idle path at every poll (stops, parks).
    pub(crate) control: *mut Control,
    pub(crate) single_claims: bool,
    pub(crate) warp: u32,
    pub(crate) lane: u32,
    /// Shared memory of this warp: `[alloc_pos, free_pos cache, -, -]` then per queue
    /// `[tail, head cache, generated, -]`.
    pub(crate) smem: a::SharedWord,
}

impl Warp {
    /// The run's params in memory (`params()`), for the fields only cold paths read: keeping
    /// them out of the view keeps them out of the registers that must survive a body's calls.
    #[inline(always)]
    fn run(&self) -> &Params {
        // SAFETY: the run's params, valid for the whole run (`set_params` ran first).
        unsafe { &*super::params() }
    }

    /// The host-mapped error record.
    #[inline(always)]
    pub(crate) fn error(&self) -> *mut ErrorRecord {
        self.run().error as *mut ErrorRecord
    }

    /// The overflow queue's header (`overflow.rs`).
    #[inline(always)]
    pub(crate) fn spill(&self) -> *mut SpillHeader {
        self.run().spill as *mut SpillHeader
    }

    /// The overflow queue's ring.
    #[inline(always)]
    pub(crate) fn spill_ring(&self) -> *mut u32 {
        self.run().spill_ring as *mut u32
    }

    /// The overflow ring's capacity (a power of two).
    #[inline(always)]
    pub(crate) fn spill_cap(&self) -> u32 {
        self.run().spill_cap
    }

    /// Every slot of the run: the arena's bound.
    #[inline(always)]
    pub(crate) fn total_slots(&self) -> u32 {
        self.run().total_slots
    }

    /// Fresh slots a warp takes from the arena at once.
    #[inline(always)]
    pub(crate) fn chunk(&self) -> u32 {
        self.run().chunk
    }

    /// Workers of the run (steal victims).
    #[inline(always)]
    pub(crate) fn num_warps(&self) -> u32 {
        self.run().num_warps
    }

    /// Several queues: the public count below which a queue the warp does not run next is
    /// released (`deque.rs`).
    #[inline(always)]
    pub(crate) fn release_other_below(&self) -> u32 {
        self.run().release_other_below
    }

    /// The view of worker `warp` (a warp, or a block for block-level workers) of the run
    /// `p` describes, with its shared words at `smem`.
    #[inline(always)]
    pub(crate) fn new(p: &Params, warp: u32, lane: u32, smem: a::SharedWord) -> Self {
        Self {
            slots: p.slots as *mut u8,
            slot_bytes: p.slot_bytes as usize,
            n: p.tasks_per_warp,
            free_rings: p.free_rings as *mut u32,
            free_pos: p.free_pos as *mut u32,
            ring_cap: p.ring_cap,
            queues: p.queues,
            deques: p.deques as *mut DequeHeader,
            deque_rings: p.deque_rings as *mut u32,
            queue_cap: p.queue_cap,
            root_slot: p.root_slot,
            max_children: p.max_children,
            free_stacks: p.free_stacks as *mut u32,
            stack_cap: p.stack_cap,
            inline_last_child: p.inline_last_child != 0,
            lane_frees: p.lane_frees as *mut u32,
            control: p.control as *mut Control,
            release_below: p.release_below,
            release_size: p.release_size,
            inline_steps: p.inline_steps,
            single_claims: p.single_claims != 0,
            warp,
            lane,
            smem,
        }
    }

    #[inline(always)]
    pub(crate) fn header(&self, slot: u32) -> *mut Header {
        // SAFETY (pointer arithmetic only): slot < warps * n + 1, inside the slots region.
        self.slots
            .wrapping_add(slot as usize * self.slot_bytes)
            .cast()
    }

    #[inline(always)]
    pub(crate) fn deque(&self, warp: u32, q: u32) -> *mut DequeHeader {
        self.deques.wrapping_add((warp * self.queues + q) as usize)
    }

    #[inline(always)]
    pub(crate) fn ring(&self, warp: u32, q: u32) -> *mut u32 {
        self.deque_rings
            .wrapping_add((warp * self.queues + q) as usize * self.queue_cap as usize)
    }

    #[inline(always)]
    pub(crate) fn sm_queue(&self, q: u32) -> a::SharedWord {
        self.smem.add(4 + 4 * q as usize)
    }

    /// Records the run's first error (later ones are dropped) in the host-mapped record.
    #[cold]
    pub(crate) fn record_error(&self, code: u32, kind: u32, limit: u32, value: u32) {
        record_error(
            self.control,
            self.error(),
            code,
            self.warp,
            self.lane,
            kind,
            limit,
            value,
        );
    }

    /// Whether the run must stop: done, an error, or the host's abort.
    pub(crate) fn should_stop(&self) -> bool {
        stop_requested(self.control)
    }

    /// Work-first, programs without joins, lane 0: adds `delta` to the live-task count and ends
    /// the run when it reaches 0. In the multi-GPU kernel of a run on several GPUs the count
    /// is this GPU's [`Control::live_here`] and reaching 0 ends nothing: the first GPU's
    /// courier decides when every GPU's count is 0 at once (`gpu/peer`).
    pub(crate) unsafe fn flush_live<const MULTI: bool>(&self, delta: i32) {
        if MULTI && self.run().gpus > 1 {
            // SAFETY: the control block is valid for the whole run.
            // Ordering: relaxed, scope .sys (the first GPU's courier reads the word across
            // GPUs); a count only. Added as a 64-bit value: the live count never goes below
            // the tasks it counted before (the one-GPU argument), so a negative `delta` never
            // borrows from the import count in the high half.
            unsafe {
                a::atom_relaxed_sys_add_u64(
                    addr_of_mut!((*self.control).live_here),
                    i64::from(delta) as u64,
                );
            }
            return;
        }
        // SAFETY: the control block is valid for the whole run.
        unsafe {
            // Ordering: relaxed, scope .gpu; a count only (see the publish step).
            let old = a::atom_relaxed_gpu_add_u32(addr_of_mut!((*self.control).live), delta as u32);
            if old.wrapping_add(delta as u32) == 0 {
                // Ordering: release, scope .gpu; every task is finished.
                a::st_release_gpu_u32(addr_of_mut!((*self.control).done), 1);
            }
        }
    }
}

/// Whether the run whose control words are `c` must stop: done, an error, or the host's
/// abort.
pub(crate) fn stop_requested(c: *mut Control) -> bool {
    // SAFETY: the control block is valid for the whole run.
    // Ordering: relaxed, scope .sys; these are flags (`done` may be stored by another GPU of
    // the run, `peer`), the host reads results only after the kernel has exited, and a
    // late observation only delays the exit.
    unsafe {
        a::ld_relaxed_sys_u32(addr_of_mut!((*c).done)) != 0
            || a::ld_relaxed_sys_u32(addr_of_mut!((*c).error)) != 0
            || a::ld_relaxed_sys_u32(addr_of_mut!((*c).abort)) != 0
    }
}

/// Records the run's first error; see [`Warp::record_error`].
#[cold]
#[allow(clippy::too_many_arguments)]
pub(crate) fn record_error(
    control: *mut Control,
    error: *mut ErrorRecord,
    code: u32,
    warp: u32,
    lane: u32,
    kind: u32,
    limit: u32,
    value: u32,
) {
    // SAFETY: both blocks are valid for the whole run (the host allocates them).
    unsafe {
        // Ordering: relaxed, scope .gpu; only decides the single writer of the record.
        if a::atom_relaxed_gpu_cas_u32(addr_of_mut!((*control).error), 0, code) != 0 {
            return;
        }
        // Ordering: relaxed, scope .sys; the fields are published by the release of `code`.
        a::st_relaxed_sys_u32(addr_of_mut!((*error).warp), warp);
        a::st_relaxed_sys_u32(addr_of_mut!((*error).lane), lane);
        a::st_relaxed_sys_u32(addr_of_mut!((*error).kind), kind);
        a::st_relaxed_sys_u32(addr_of_mut!((*error).limit), limit);
        a::st_relaxed_sys_u32(addr_of_mut!((*error).value), value);
        // Ordering: release, scope .sys; the host reads `code` last-written, fields before it.
        a::st_release_sys_u32(addr_of_mut!((*error).code), code);
    }
}
