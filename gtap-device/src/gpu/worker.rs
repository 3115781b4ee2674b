//! The thread-level persistent worker: one task per lane, a warp as the unit of scheduling.
//!
//! The protocol (deques, pools, joins, termination, errors) is described with its invariants in
//! `docs/gpu-runtime.md`; this file follows it step by step. Summary:
//!
//! - **Batch loop.** A warp holds up to 32 tasks (one per lane). It tops up from its own deque
//!   (one CAS on `count`, LIFO end), steals half of a random victim's deque when it holds
//!   nothing, runs the step of every held task at once, then publishes the new tasks of the
//!   batch, keeping up to 32 of them (the newest) to run next without publishing them.
//! - **Pools.** Slot `i` belongs to warp `i / tasks_per_warp`. Only the owner allocates (a
//!   block-scope counter in shared memory, fresh slots first, then its free ring); any warp
//!   frees a slot back to its owner's ring (one device-scope add for the position, one release
//!   store of the entry).
//! - **Joins.** A suspended task's `pending` is the number of children of its last step; each
//!   finishing child decrements it (acq_rel), the last one re-enqueues the parent on its own
//!   deque (or, if the parent's body had already returned and only waited for detached
//!   children, completes the parent in turn). The root's completion is the end of the run.
//! - **Programs without joins** free a task as soon as its body returns and count live tasks in
//!   one device word, updated once per batch per warp.
//! - **Errors** are recorded once (first writer wins) and make every warp leave its loop.

use core::ptr::addr_of_mut;

use super::global_queue::GlobalQueues;
use super::lane::{run_lane, INLINE_MAX_TASKS};
use super::layout::{
    BatchRecord, Control, DequeHeader, ErrorRecord, Header, Params, SpillHeader, WarpStats,
    ERR_POOL_EXHAUSTED, ERR_PROTOCOL, ERR_QUEUE_OVERFLOW, FLAG_DONE, NONE,
};
use super::overflow::OVERFLOW_IDLE_NS;
use super::park::{LEAVE_PARK, LEAVE_STOP};
use crate::arch::nvptx as a;
use crate::task::Program;

const FULL: u32 = 0xffff_ffff;
/// Random victims tried per steal round before the warp backs off.
const STEAL_TRIES: u32 = 4;
/// Longest idle back-off, in nanoseconds.
const MAX_IDLE_NS: u32 = 2048;
/// Busy warps look at the control words every this many batches.
const STOP_CHECK_EVERY: u32 = 64;
/// Spins on an empty free-ring entry before the scheduler reports itself broken.
const MAX_RING_SPINS: u32 = 1 << 22;

/// The per-warp view of the run: the params in registers (every field stays in a register for
/// the whole kernel; the global queues, used only on cold paths under work first, are read
/// from the params in memory instead, see [`Warp::gq_header`]), the warp's index and its shared
/// memory words.
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
    /// Read on the workers' cold paths (errors, stops, steals, the pools' slow paths).
    pub(crate) control: *mut Control,
    pub(crate) error: *mut ErrorRecord,
    pub(crate) spill: *mut SpillHeader,
    pub(crate) spill_ring: *mut u32,
    pub(crate) spill_cap: u32,
    pub(crate) total_slots: u32,
    pub(crate) chunk: u32,
    pub(crate) num_warps: u32,
    pub(crate) single_claims: bool,
    pub(crate) warp: u32,
    pub(crate) lane: u32,
    /// Shared memory of this warp: `[alloc_pos, free_pos cache, -, -]` then per queue
    /// `[tail, head cache, generated, -]`.
    pub(crate) smem: *mut u32,
}

impl Warp {
    /// The view of worker `warp` (a warp, or a block for block-level workers) of the run
    /// `p` describes, with its shared words at `smem`.
    #[inline(always)]
    pub(crate) fn new(p: &Params, warp: u32, lane: u32, smem: *mut u32) -> Self {
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
            release_below: p.release_below,
            release_size: p.release_size,
            inline_steps: p.inline_steps,
            control: p.control as *mut Control,
            error: p.error as *mut ErrorRecord,
            spill: p.spill as *mut SpillHeader,
            spill_ring: p.spill_ring as *mut u32,
            spill_cap: p.spill_cap,
            total_slots: p.total_slots,
            chunk: p.chunk,
            num_warps: p.num_warps,
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
    pub(crate) fn sm_queue(&self, q: u32) -> *mut u32 {
        self.smem.wrapping_add(4 + 4 * q as usize)
    }

    /// Records the run's first error (later ones are dropped) in the host-mapped record.
    #[cold]
    pub(crate) fn record_error(&self, code: u32, kind: u32, limit: u32, value: u32) {
        record_error(
            self.control,
            self.error,
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
    /// the run when it reaches 0.
    pub(crate) unsafe fn flush_live(&self, delta: i32) {
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

    /// Takes a free slot of this warp's pool, or [`NONE`] (error recorded).
    pub(crate) unsafe fn alloc(&self, kind: u32) -> u32 {
        // SAFETY (whole body): the shared words, the free ring and free position of this warp
        // are valid for the run; positions are masked into the ring.
        unsafe {
            // Ordering: relaxed, scope .cta; the counter is touched by this warp's lanes only.
            let pos = a::atom_relaxed_cta_add_u32(self.smem, 1);
            if pos < self.n {
                return self.warp * self.n + pos;
            }
            // Ordering: relaxed, scope .cta; a cache of the free position (monotonic).
            let mut fp = a::ld_relaxed_cta_u32(self.smem.add(1));
            if pos >= fp {
                // Ordering: relaxed, scope .gpu; a stale value only under-reports free slots,
                // and the ring entry itself is read with acquire below.
                fp = a::ld_relaxed_gpu_u32(self.free_pos.add(self.warp as usize));
                // Ordering: relaxed, scope .cta; keeps the cache monotonic.
                a::atom_relaxed_cta_max_u32(self.smem.add(1), fp);
                if pos >= fp {
                    self.record_error(ERR_POOL_EXHAUSTED, kind, self.n, pos);
                    return NONE;
                }
            }
            let e = self.free_rings.add(
                self.warp as usize * self.ring_cap as usize + (pos & (self.ring_cap - 1)) as usize,
            );
            let mut spins = 0;
            loop {
                // Ordering: relaxed, scope .gpu. The entry was stored after the freeing warp's
                // fence.acq_rel.gpu, so the slot's previous contents had reached L2 before we
                // can see it; we only *write* the slot here (no stale L1 read), and whoever
                // runs it later acquires through the queue. An acquire would invalidate the
                // SM's L1 on every spawn.
                let v = a::ld_relaxed_gpu_u32(e);
                if v != 0 {
                    // Ordering: relaxed, scope .gpu; the entry is ours (one allocator per
                    // position) and the next writer is a free `ring_cap` positions later.
                    a::st_relaxed_gpu_u32(e, 0);
                    return v - 1;
                }
                spins += 1;
                if spins > MAX_RING_SPINS {
                    self.record_error(ERR_PROTOCOL, kind, 0, pos);
                    return NONE;
                }
            }
        }
    }

    /// Returns `slot` to its owner's pool.
    pub(crate) unsafe fn free(&self, slot: u32) {
        if slot == self.root_slot {
            return;
        }
        let owner = slot / self.n;
        // SAFETY: owner < warps; the ring position is masked into the owner's ring.
        unsafe {
            // Ordering: relaxed, scope .gpu; only claims a ring position.
            let q = a::atom_relaxed_gpu_add_u32(self.free_pos.add(owner as usize), 1);
            let e = self
                .free_rings
                .add(owner as usize * self.ring_cap as usize + (q & (self.ring_cap - 1)) as usize);
            // Ordering: relaxed, scope .gpu; `free` runs only after the batch's
            // fence.acq_rel.gpu (the release of everything written to the slot).
            a::st_relaxed_gpu_u32(e, slot + 1);
        }
    }

    /// Puts `slot` on this warp's queue `q` as a new (unpublished) entry of this batch.
    pub(crate) unsafe fn reserve(&self, q: u32, slot: u32, kind: u32) -> bool {
        // SAFETY (whole body): q < queues (checked by callers); the ring index is masked.
        unsafe {
            let sq = self.sm_queue(q);
            // Ordering: relaxed, scope .cta; the tail is this warp's own.
            let t = a::atom_relaxed_cta_add_u32(sq, 1);
            // Ordering: relaxed, scope .cta; a cache of the steal end (stale = conservative).
            let mut h = a::ld_relaxed_cta_u32(sq.add(1));
            if t.wrapping_sub(h) >= self.queue_cap {
                // Ordering: relaxed, scope .gpu; thieves only raise it, stale is conservative.
                h = a::ld_relaxed_gpu_u32(addr_of_mut!((*self.deque(self.warp, q)).head));
                a::st_relaxed_cta_u32(sq.add(1), h);
                if t.wrapping_sub(h) >= self.queue_cap {
                    self.record_error(ERR_QUEUE_OVERFLOW, kind, self.queue_cap, q);
                    return false;
                }
            }
            // A plain store: published by the batch's fence and the add to `count`.
            *self
                .ring(self.warp, q)
                .add((t & (self.queue_cap - 1)) as usize) = slot;
            // Ordering: relaxed, scope .cta; read by lane 0 after the batch's warp barrier.
            a::atom_relaxed_cta_add_u32(sq.add(2), 1);
        }
        true
    }

    /// Every lane of the warp calls this (converged) after the batch's fence: lanes with
    /// `slot != NONE` give it back to its owner's pool, one device-scope add per owner.
    pub(crate) unsafe fn free_warp(&self, slot: u32) {
        let mine = slot != NONE && slot != self.root_slot;
        let owner = if mine { slot / self.n } else { NONE };
        let peers = a::match_any_sync_b32(FULL, owner);
        let leader = peers.trailing_zeros();
        let mut base = 0;
        if mine && self.lane == leader {
            // SAFETY: owner < warps.
            // Ordering: relaxed, scope .gpu; claims ring positions for the whole group.
            base = unsafe {
                a::atom_relaxed_gpu_add_u32(self.free_pos.add(owner as usize), peers.count_ones())
            };
        }
        base = a::shfl_sync_idx_b32(FULL, base, leader);
        if mine {
            let q = base.wrapping_add((peers & a::lanemask_lt()).count_ones());
            // SAFETY: the owner's ring; the position is masked.
            unsafe {
                let e = self.free_rings.add(
                    owner as usize * self.ring_cap as usize + (q & (self.ring_cap - 1)) as usize,
                );
                // Ordering: relaxed, scope .gpu; after the batch's fence.acq_rel.gpu, which
                // releases everything written to the slot.
                a::st_relaxed_gpu_u32(e, slot + 1);
            }
        }
    }

    /// A finished task whose slot was already freed (by [`Warp::free_warp`]) tells its parent;
    /// repeat upwards while a parent whose body had returned loses its last child. Runs after
    /// the batch's fence; returns whether it re-enqueued a parent (which then needs a fence
    /// before it is published).
    pub(crate) unsafe fn complete(&self, parent_of_freed: u32) -> bool {
        let mut parent = parent_of_freed;
        // SAFETY (whole body): parents outlive their children by the pending counter.
        unsafe {
            loop {
                if parent == NONE {
                    // The root, with its whole subtree, is done: the run is over.
                    // Ordering: release, scope .gpu; the root's result is written before.
                    a::st_release_gpu_u32(addr_of_mut!((*self.control).done), 1);
                    return false;
                }
                let ph = self.header(parent);
                // Ordering: relaxed, scope .gpu, after the batch's fence.acq_rel.gpu (a release
                // pattern: our result in the parent's frame is visible first). The parent runs
                // only after a later fence.acq_rel.gpu of the warp that acquires it, which
                // together with this RMW chain is the acquire pattern.
                let old = a::atom_relaxed_gpu_add_u32(addr_of_mut!((*ph).pending), u32::MAX);
                if old != 1 {
                    return false;
                }
                if (*ph).flags & FLAG_DONE != 0 {
                    // Its body had returned: it is complete now too (a rare path: free alone).
                    let grand = (*ph).parent;
                    a::fence_acq_rel_gpu();
                    self.free(parent);
                    parent = grand;
                    continue;
                }
                let q = (*ph).queue;
                let _ = self.reserve(q, parent, (*ph).kind);
                return true;
            }
        }
    }

    /// Lane 0: claims up to `max` entries from the LIFO end of this warp's queue `q`; returns
    /// (first position, count).
    pub(crate) unsafe fn pop_own(&self, q: u32, max: u32) -> (u32, u32) {
        // SAFETY (whole body): this warp's deque header and shared words are valid.
        unsafe {
            let dq = self.deque(self.warp, q);
            let sq = self.sm_queue(q);
            // What this warp published minus what it took back: an upper bound of `count`
            // (thieves only lower it), so 0 means empty without an L2 round trip.
            // Ordering: relaxed, scope .cta; lane 0's own word.
            if a::ld_relaxed_cta_u32(sq.add(3)) == 0 {
                return (0, 0);
            }
            // Claimed entries are the newest `got` ones, contiguous below the tail, whether
            // they were claimed in one CAS (the default) or one CAS each (the ablation).
            let mut got = 0;
            while got < max {
                // Ordering: relaxed, scope .gpu; the CAS below decides.
                let c = a::ld_relaxed_gpu_u32(addr_of_mut!((*dq).count));
                if c == 0 {
                    a::st_relaxed_cta_u32(sq.add(3), 0);
                    break;
                }
                let rest = max - got;
                let claim = if self.single_claims {
                    1
                } else if c < rest {
                    c
                } else {
                    rest
                };
                // Ordering: relaxed, scope .gpu; the entries were written by this warp, and the
                // batch's fence.acq_rel.gpu after this claim orders everything else.
                if a::atom_relaxed_gpu_cas_u32(addr_of_mut!((*dq).count), c, c - claim) == c {
                    a::st_relaxed_cta_u32(sq.add(3), c - claim);
                    got += claim;
                    if !self.single_claims {
                        break;
                    }
                }
            }
            if got == 0 {
                return (0, 0);
            }
            // Ordering: relaxed, scope .cta; the tail is this warp's own.
            let t = a::ld_relaxed_cta_u32(sq).wrapping_sub(got);
            a::st_relaxed_cta_u32(sq, t);
            (t, got)
        }
    }

    /// Lane 0: tries random victims; on success returns (victim, queue, first position,
    /// count) with the victim's steal lock held.
    ///
    /// With `refill` (work first, idle for a few rounds) and no victim with work, it moves up
    /// to a batch of tasks from the overflow queues into this worker's private part instead
    /// (`overflow.rs`), which the next acquire pops. With `multi` (the multi-GPU kernel), a
    /// claimed batch goes to another GPU that asked for work, and an idle refill also takes
    /// completions and imports from other GPUs (`peer.rs`).
    pub(crate) unsafe fn steal(
        &self,
        rng: &mut u32,
        q0: u32,
        refill: bool,
        multi: bool,
    ) -> (u32, u32, u32, u32) {
        if self.num_warps < 2 {
            return (0, 0, 0, 0);
        }
        for _ in 0..STEAL_TRIES {
            *rng ^= *rng << 13;
            *rng ^= *rng >> 17;
            *rng ^= *rng << 5;
            let mut v = *rng % (self.num_warps - 1);
            if v >= self.warp {
                v += 1;
            }
            for i in 0..self.queues {
                let q = (q0 + i) % self.queues;
                let dq = self.deque(v, q);
                // SAFETY (block): v < warps, q < queues: a valid deque header.
                unsafe {
                    // Ordering: relaxed, scope .gpu; a cheap emptiness test before locking.
                    if a::ld_relaxed_gpu_u32(addr_of_mut!((*dq).count)) == 0 {
                        continue;
                    }
                    // Ordering: acquire, scope .gpu; pairs with the release of the previous
                    // holder's unlock, so we see the head it wrote.
                    if a::atom_acquire_gpu_cas_u32(addr_of_mut!((*dq).lock), 0, 1) != 0 {
                        continue;
                    }
                    // Up to half the entries (at most 32), from the head: in one CAS, or (the
                    // ablation) one CAS per entry while the lock is held.
                    let mut got = 0u32;
                    let mut want = 32u32;
                    while got < want {
                        // Ordering: relaxed, scope .gpu; the CAS below decides.
                        let c = a::ld_relaxed_gpu_u32(addr_of_mut!((*dq).count));
                        if c == 0 {
                            break;
                        }
                        if got == 0 {
                            let half = c.div_ceil(2);
                            want = if half < 32 { half } else { 32 };
                        }
                        let claim = if self.single_claims { 1 } else { want };
                        // Ordering: acquire, scope .gpu; pairs with the victim's fence + add
                        // that published the entries (and the tasks' frames).
                        if a::atom_acquire_gpu_cas_u32(addr_of_mut!((*dq).count), c, c - claim) == c
                        {
                            got += claim;
                        }
                    }
                    if got > 0 {
                        // Ordering: relaxed, scope .gpu; written only under the lock we hold.
                        let head = a::ld_relaxed_gpu_u32(addr_of_mut!((*dq).head));
                        // Another GPU asked for work (a multi-GPU run): the batch goes to it.
                        if multi
                            && super::peer::export_stolen(
                                self.ring(v, q),
                                self.queue_cap,
                                q,
                                head,
                                got,
                                self.warp,
                            )
                        {
                            // Ordering: relaxed, scope .gpu; published by the unlock.
                            a::st_relaxed_gpu_u32(addr_of_mut!((*dq).head), head.wrapping_add(got));
                            // Ordering: release, scope .gpu; unlock after our reads of the
                            // entries and the head update.
                            a::st_release_gpu_u32(addr_of_mut!((*dq).lock), 0);
                            return (0, 0, 0, 0);
                        }
                        return (v, q, head, got);
                    }
                    // Ordering: release, scope .gpu; unlock.
                    a::st_release_gpu_u32(addr_of_mut!((*dq).lock), 0);
                }
            }
        }
        if refill {
            // SAFETY: the deque thread of this work-first worker, between batches.
            unsafe {
                self.refill_from_overflow(q0);
                if multi {
                    // A multi-GPU run: completions from other GPUs, imports (`peer.rs`).
                    super::peer::peer_work(self.warp, self.smem, q0);
                }
            }
        }
        (0, 0, 0, 0)
    }
}

/// Whether the run whose control words are `c` must stop: done, an error, or the host's
/// abort.
pub(crate) fn stop_requested(c: *mut Control) -> bool {
    // SAFETY: the control block is valid for the whole run.
    // Ordering: relaxed, scope .sys; these are flags (`done` may be stored by another GPU of
    // the run, `peer.rs`), the host reads results only after the kernel has exited, and a
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

/// Global-queue kernel, every lane (converged), after lane 0 staged the batch's publication:
/// per queue, lane 0 reserves the positions, the lanes copy the staged entries from the own
/// ring in parallel, fence, and lane 0 commits.
///
/// # Safety
///
/// For each queue, the own-ring tail is the first staged entry and the pop-estimate word
/// their count (written by lane 0 before this call).
#[inline(always)]
unsafe fn push_global(w: &Warp) {
    a::bar_warp_sync(FULL);
    for q in 0..w.queues {
        let sq = w.sm_queue(q);
        // SAFETY (whole body): this warp's shared words, its own ring's staged entries and a
        // reserved range of the global queue.
        unsafe {
            // Ordering: relaxed, scope .cta; written by lane 0 before the warp barrier.
            let n = a::ld_relaxed_cta_u32(sq.add(3));
            if n == 0 {
                continue;
            }
            let first = a::ld_relaxed_cta_u32(sq);
            let gq = GlobalQueues::of_run();
            let mut base = 0;
            if w.lane == 0 {
                base = gq.reserve(q, n, w.warp, w.lane);
            }
            base = a::shfl_sync_idx_b32(FULL, base, 0);
            if base != NONE {
                let mut i = w.lane;
                while i < n {
                    let slot = *w
                        .ring(w.warp, q)
                        .add((first.wrapping_add(i) & (w.queue_cap - 1)) as usize);
                    gq.write(q, base.wrapping_add(i), slot);
                    i += 32;
                }
            }
            // Release side of the push: every lane's entries, then lane 0's commit.
            a::fence_acq_rel_gpu();
            a::bar_warp_sync(FULL);
            if w.lane == 0 {
                a::st_relaxed_cta_u32(sq.add(3), 0);
                if base != NONE {
                    gq.commit(q, base, n);
                }
            }
        }
    }
}

// /////////////////////////////////////////////////////////////////////////////////////////////
// MAIN LOOP

/// The profiled kernel's per-warp state, all in the warp's shared memory (after the
/// scheduler's words): the record being filled, then the global region's base and capacity.
/// Lane 0 fills the record field by field as the batch goes and copies it out at the end, so
/// no timestamp stays in a register across the task bodies. The global region holds
/// `profile_cap + 1` records per warp; the last is scratch for records that no longer fit,
/// which are counted, not stored.
pub(crate) struct Prof<const BLOCK: bool> {
    /// Records finished so far.
    pub(crate) written: u32,
}

/// The thread-level worker's profiler (a record per warp, after the warp's scheduler words).
type WarpProf = Prof<false>;

/// Offsets (in bytes) of the profiler's words after the record in shared memory.
const PROF_BASE: usize = 56;
const PROF_CAP: usize = 64;

impl<const BLOCK: bool> Prof<BLOCK> {
    /// The record being filled, in shared memory: after the warp's scheduler words, or (block
    /// level) after the block's collective area.
    #[inline(always)]
    pub(crate) fn rec(w: &Warp) -> *mut BatchRecord {
        let offset = if BLOCK {
            super::layout::BLOCK_SMEM_BYTES
        } else {
            super::layout::smem_per_warp(w.queues)
        };
        w.smem.wrapping_add((offset / 4) as usize).cast()
    }

    /// Sets up the shared words and starts the first record.
    ///
    /// # Safety
    ///
    /// Lane 0, once, with the profiled kernel's shared memory.
    #[inline(always)]
    pub(crate) unsafe fn init(w: &Warp, p: &Params, idle_from: u64) {
        let r = Self::rec(w).cast::<u8>();
        // SAFETY: inside this warp's PROFILE_SMEM_BYTES.
        unsafe {
            r.add(PROF_BASE).cast::<u64>().write(p.profile);
            r.add(PROF_CAP).cast::<u32>().write(p.profile_cap);
            Self::start(w, idle_from);
        }
    }

    /// Starts a record at `idle_from`.
    ///
    /// # Safety
    ///
    /// Lane 0 of the profiled kernel.
    #[inline(always)]
    unsafe fn start(w: &Warp, idle_from: u64) {
        // SAFETY: the warp's shared record.
        unsafe {
            Self::rec(w).write(BatchRecord {
                idle_from,
                ..BatchRecord::default()
            });
        }
    }

    /// Copies the finished record to the warp's region (or only counts it when full) and
    /// starts the next at `end`.
    ///
    /// # Safety
    ///
    /// Lane 0 of the profiled kernel, after `init`.
    #[inline(always)]
    pub(crate) unsafe fn finish(&mut self, w: &Warp, end: u64) {
        let r = Self::rec(w);
        // SAFETY: the shared words written by `init`; the global slot is inside the region
        // (at most `cap`, the scratch record); plain stores, read by the host after exit.
        unsafe {
            (*r).end = end;
            let base = r.cast::<u8>().add(PROF_BASE).cast::<u64>().read();
            let cap = r.cast::<u8>().add(PROF_CAP).cast::<u32>().read();
            let at = w.warp as usize * (cap as usize + 1) + self.written.min(cap) as usize;
            (base as *mut BatchRecord).add(at).write(r.read());
            self.written = self.written.wrapping_add(1);
            Self::start(w, end);
        }
    }

    /// At the worker's exit: a last record with no tasks (the idle time before the worker
    /// left its loop), and the record count for the host.
    ///
    /// # Safety
    ///
    /// As for [`Prof::finish`]; `p` holds the profile counts (one `u32` per worker).
    #[inline(always)]
    pub(crate) unsafe fn close(&mut self, w: &Warp, p: &Params) {
        let now = a::globaltimer();
        let r = Self::rec(w);
        // SAFETY: the worker's shared record and its entry of the counts; plain stores, read
        // by the host after the kernel exits.
        unsafe {
            (*r).run_from = now;
            (*r).run_to = now;
            (*r).tasks = 0;
            self.finish(w, now);
            (p.profile_counts as *mut u32)
                .add(w.warp as usize)
                .write(self.written);
        }
    }
}

/// The body of `gtap_thread_worker_<Program>` (`PROFILE = false`) and
/// `gtap_thread_worker_profiled_<Program>` (`PROFILE = true`, writes a [`BatchRecord`] per batch
/// to `params.profile`): runs the task tree rooted at `params.root_slot`. Profiling is a
/// compile-time switch, so the unprofiled kernel contains none of its code.
///
/// # Safety
///
/// Launched by the host runtime with `params` pointing to a [`Params`] whose regions are
/// allocated and reset as `layout.rs` describes, a block size that is a multiple of 32,
/// `smem_per_warp_of(queues, PROFILE)` bytes of dynamic shared memory per warp, and every block
/// resident.
#[inline(always)]
pub unsafe fn thread_worker<
    P: Program,
    const PROFILE: bool,
    const GLOBAL: bool,
    const SHARED: bool,
    const MULTI: bool,
>(
    params: *const Params,
) {
    // The work-first scheduler (private deque parts, warp-local joins and pools) unless one of
    // the ablations is asked for.
    let wf = !SHARED && !GLOBAL;
    // Whether warps may leave the run and take it up again (`park.rs`). The park and rejoin
    // paths raise fib's registers from 106 to 124 at the same 16 warps per SM, and made fib,
    // nqueens and UTS 2-4% faster, not slower (`docs/benchmarks.md`), so the plain kernel
    // carries them.
    let parkable = wf && !MULTI && !PROFILE;
    if P::HAS_BLOCK {
        // Programs with a block-level kind run on `block_worker`; never launched for them.
        return;
    }
    // SAFETY: the caller passes valid params.
    let p = unsafe { &*params };
    let lane = a::lane_id();
    let warp_in_block = a::thread_idx_x() / 32;
    // Blocks that rejoin a running run stand for blocks `block_base..` (`park.rs`).
    let block = a::block_idx_x() + if parkable { p.block_base } else { 0 };
    let warp = block * (a::block_dim_x() / 32) + warp_in_block;
    if warp >= p.num_warps {
        return;
    }
    // The run's own params (the same region in every launch of the run: `Params::run`).
    super::set_params(if parkable {
        p.run as *const Params
    } else {
        params
    });
    let smem: *mut u32 = a::dynamic_smem()
        .wrapping_add((warp_in_block * super::layout::smem_per_warp_of(p.queues, PROFILE)) as usize)
        .cast();
    let resume = parkable && p.resume != 0;
    // Work first: slots in this lane's free array (kept across batches; see `pool.rs`).
    let mut lane_free: u32 = 0;
    if resume {
        // Out of line, before the warp view exists: a call made while the view's registers
        // are live raised fib's kernel from 106 to 122 registers.
        // SAFETY: this warp's shared words; nothing of the warp ran yet.
        match unsafe { super::park::rejoin(p, warp, lane, smem) } {
            Some(n) => lane_free = n,
            None => return,
        }
    }
    let w = Warp::new(p, warp, lane, smem);
    if !resume && lane == 0 {
        // SAFETY: this warp's shared words (smem_per_warp(queues) bytes).
        unsafe {
            // Ordering: relaxed, scope .cta; published to the lanes by the warp barrier below.
            if wf {
                w.init_pool_wf();
            } else {
                a::st_relaxed_cta_u32(smem, 0);
                a::st_relaxed_cta_u32(smem.add(1), p.tasks_per_warp);
            }
            for q in 0..p.queues {
                let sq = w.sm_queue(q);
                a::st_relaxed_cta_u32(sq, 0);
                a::st_relaxed_cta_u32(sq.add(1), 0);
                a::st_relaxed_cta_u32(sq.add(2), 0);
                a::st_relaxed_cta_u32(sq.add(3), 0);
                a::st_relaxed_cta_u32(w.sm_private(q), 0);
            }
        }
    }
    a::bar_warp_sync(FULL);

    // Warp-uniform state (every lane computes the same value, or gets it from lane 0).
    let mut kept: u32 = 0;
    let mut cur_q: u32 = 0;
    // Per-lane state.
    let mut task = NONE;
    // The root starts on GPU 0 (of a multi-GPU run; `peer.rs`).
    if warp == 0 && p.gpu == 0 && !resume {
        kept = 1;
        if lane == 0 {
            task = p.root_slot;
        }
    }
    let mut rng: u32 = (warp.wrapping_mul(2_654_435_761) ^ a::globaltimer() as u32) | 1;
    let mut idle_ns: u32 = 0;
    let mut batches: u32 = 0;
    let mut steals: u32 = 0;
    let mut steps: u32 = 0;
    let mut spawned_total: u32 = 0;
    // Work-first, programs without joins (lane 0): tasks finished minus spawned by this warp
    // and not yet subtracted from `Control::live` (never positive: see the publish step).
    let mut live_debt: i32 = 0;
    // Why the loop ended: `LEAVE_STOP` (the run is over) or `LEAVE_PARK` (`park.rs`).
    let mut leave = LEAVE_STOP;
    // Profiler state (dead code when !PROFILE).
    let mut prof = WarpProf { written: 0 };
    if PROFILE && lane == 0 {
        // SAFETY: lane 0, once, profiled kernel.
        unsafe { WarpProf::init(&w, p, a::globaltimer()) };
    }

    loop {
        let kept_before = kept;
        // ---- 1. Acquire: top up from the own deque, steal when holding nothing. ----
        if kept < 32 {
            let (mut base, mut got, mut q) = (0u32, 0u32, cur_q);
            if lane == 0 {
                // SAFETY: lane 0 owns the warp's deque operations.
                unsafe {
                    if wf {
                        (base, got, q) = w.pop_wf(cur_q, kept);
                    } else if kept > 0 {
                        // Top up the batch from the queue its kept tasks came from.
                        (base, got) = if GLOBAL {
                            GlobalQueues::of_run().pop(cur_q, 32 - kept)
                        } else {
                            w.pop_own(cur_q, 32 - kept)
                        };
                    } else {
                        for i in 0..w.queues {
                            q = (cur_q + i) % w.queues;
                            (base, got) = if GLOBAL {
                                GlobalQueues::of_run().pop(q, 32)
                            } else {
                                w.pop_own(q, 32)
                            };
                            if got > 0 {
                                break;
                            }
                        }
                    }
                }
            }
            got = a::shfl_sync_idx_b32(FULL, got, 0);
            base = a::shfl_sync_idx_b32(FULL, base, 0);
            q = a::shfl_sync_idx_b32(FULL, q, 0);
            let mut src_warp = warp;
            let mut stolen = false;
            if !GLOBAL && got == 0 && kept == 0 {
                let (mut v, mut sq, mut head, mut sg) = (0u32, 0u32, 0u32, 0u32);
                if lane == 0 {
                    // Work first, idle for a few rounds: the steal also refills the private
                    // part from the overflow queues when no victim had work (`overflow.rs`).
                    let refill = wf && idle_ns >= OVERFLOW_IDLE_NS;
                    // SAFETY: lane 0 owns the warp's deque operations.
                    (v, sq, head, sg) = unsafe { w.steal(&mut rng, cur_q, refill, MULTI) };
                }
                if PROFILE && lane == 0 {
                    // SAFETY: lane 0 owns this warp's profile region.
                    unsafe { (*WarpProf::rec(&w)).steal_attempts += 1 };
                }
                sg = a::shfl_sync_idx_b32(FULL, sg, 0);
                if sg > 0 {
                    v = a::shfl_sync_idx_b32(FULL, v, 0);
                    sq = a::shfl_sync_idx_b32(FULL, sq, 0);
                    head = a::shfl_sync_idx_b32(FULL, head, 0);
                    src_warp = v;
                    q = sq;
                    base = head;
                    got = sg;
                    stolen = true;
                }
            }
            if got > 0 {
                if stolen || GLOBAL {
                    // Acquire side of the victim's (or pusher's) publication: every lane,
                    // converged.
                    a::fence_acq_rel_gpu();
                }
                if lane >= kept && lane < kept + got {
                    if GLOBAL {
                        // SAFETY: a claimed position of global queue q.
                        task = unsafe {
                            GlobalQueues::of_run().take(q, base.wrapping_add(lane - kept))
                        };
                    } else {
                        let pos = base.wrapping_add(lane - kept) & (w.queue_cap - 1);
                        // SAFETY: the claimed entries [base, base + got) of that ring.
                        task = unsafe { *w.ring(src_warp, q).add(pos as usize) };
                    }
                }
                if stolen {
                    // Every lane has read its entry: release the victim's steal end.
                    a::bar_warp_sync(FULL);
                    if lane == 0 {
                        let dq = w.deque(src_warp, q);
                        // SAFETY: we hold the victim's lock for this deque.
                        unsafe {
                            // Ordering: relaxed, scope .gpu; published by the unlock below.
                            a::st_relaxed_gpu_u32(addr_of_mut!((*dq).head), base.wrapping_add(got));
                            // Ordering: release, scope .gpu; unlock after our reads of the
                            // entries and the head update.
                            a::st_release_gpu_u32(addr_of_mut!((*dq).lock), 0);
                        }
                    }
                    steals += 1;
                    if PROFILE && lane == 0 {
                        // SAFETY: lane 0 owns this warp's profile region.
                        unsafe { (*WarpProf::rec(&w)).stolen = got };
                    }
                }
                cur_q = q;
                kept += got;
            }
        }

        if kept == 0 {
            // ---- Idle: stop if the run is over, otherwise back off and retry. ----
            if wf && !P::JOINS && lane == 0 && live_debt != 0 {
                // SAFETY: the control block is valid.
                unsafe { w.flush_live(live_debt) };
                live_debt = 0;
            }
            let mut code = 0;
            if lane == 0 {
                code = w.leave_code(parkable);
            }
            code = a::shfl_sync_idx_b32(FULL, code, 0);
            if code != 0 {
                leave = code;
                break;
            }
            a::nanosleep(idle_ns);
            idle_ns = if idle_ns == 0 {
                64
            } else {
                (idle_ns * 2).min(MAX_IDLE_NS)
            };
            continue;
        }
        idle_ns = 0;
        // Work-first: the public count of the queue this batch came from, for the release
        // decision after the bodies (loaded now so its latency hides behind them).
        let cur_q_hint = cur_q;
        let mut count_hint = 0;
        if wf && lane == 0 {
            // SAFETY: lane 0 owns the warp's deque operations.
            count_hint = unsafe { w.count_hint(cur_q) };
        }
        // Multi-GPU kernel: whether another GPU asked this one for work (`peer.rs`), loaded
        // now so that its latency hides behind the bodies; the release decision exports.
        let mut hungry = false;
        if MULTI && lane == 0 {
            // SAFETY: the control block is valid for the run.
            // Ordering: relaxed, scope .sys; a request stored by another GPU (a hint: the
            // exchange in the spill's plan decides who serves it).
            hungry = unsafe { a::ld_relaxed_sys_u32(addr_of_mut!((*w.control).hungry)) } != 0;
        }
        if PROFILE && lane == 0 {
            // SAFETY: lane 0 owns this warp's profile region.
            unsafe {
                let r = WarpProf::rec(&w);
                (*r).run_from = a::globaltimer();
                (*r).tasks = kept;
                (*r).kept = kept_before;
            }
        }
        // No acquire fence for kept or own popped tasks: they were written by this warp, and a
        // parent that this warp re-enqueued was followed by the batch's second fence (after
        // the RMW on its pending counter), which is the acquire of its children's results.

        // ---- 2. Run the lane's task, and (work first) what it leads to inline. ----
        let mut spawned: u32 = 0;
        let mut finished: u32 = 0;
        let mut aborted = false;
        // The lane's finished batch task (freed after the bodies) and, with joins, its parent.
        let mut to_free = NONE;
        let mut notify = false;
        let mut notify_parent = NONE;
        let mut notify_shared = false;
        // Steps run inline after the batch task's first (the profiler's count).
        let mut inlined: u32 = 0;
        if task != NONE {
            // SAFETY: a published (or kept) task's header and frame, acquired above; inline
            // tasks were made by this lane in this batch (see `run_lane`).
            let budget = if wf && kept <= INLINE_MAX_TASKS {
                w.inline_steps
            } else {
                0
            };
            let out = unsafe { run_lane::<P>(&w, task, cur_q, wf, budget, &mut lane_free) };
            spawned = out.spawned;
            finished = out.finished;
            aborted = out.aborted;
            to_free = out.to_free;
            notify = out.notify;
            notify_parent = out.notify_parent;
            notify_shared = out.notify_shared;
            inlined = out.steps - 1;
            steps += out.steps;
        }
        spawned_total = spawned_total.wrapping_add(spawned);
        // Release side: every lane's frame, header and ring writes, before lane 0 publishes.
        a::bar_warp_sync(FULL);
        if PROFILE {
            let batch_spawned = a::redux_sync_add_u32(FULL, spawned);
            let batch_inlined = a::redux_sync_add_u32(FULL, inlined);
            if lane == 0 {
                // SAFETY: lane 0 owns this warp's profile region.
                unsafe {
                    let r = WarpProf::rec(&w);
                    (*r).run_to = a::globaltimer();
                    (*r).spawned = batch_spawned;
                    (*r).tasks += batch_inlined;
                }
            }
        }
        if !wf {
            a::fence_acq_rel_gpu();
        }
        if a::vote_sync_ballot_b32(FULL, aborted) != 0 {
            break;
        }
        let mut joins = 0;
        if wf {
            // Work-first: no fence unless a join is shared (see `join.rs`).
            // SAFETY: finished tasks' slots and parents; this lane's free array.
            unsafe {
                w.free_batch_wf(to_free);
                lane_free = w.drain_lane_frees(lane_free);
            }
            if P::JOINS {
                // SAFETY: as above.
                joins = unsafe { w.join_wf(notify, notify_parent, notify_shared) }.count_ones();
            }
        } else {
            // SAFETY: finished tasks' slots and parents (see `free_warp` and `complete`).
            unsafe { w.free_warp(to_free) };
        }
        if P::JOINS && !wf {
            // SAFETY: as above.
            let reenqueued = notify && unsafe { w.complete(notify_parent) };
            let resumed = a::vote_sync_ballot_b32(FULL, reenqueued);
            joins = resumed.count_ones();
            if resumed != 0 {
                // Re-enqueued parents' ring entries, before lane 0 publishes them.
                a::fence_acq_rel_gpu();
            }
        }

        // ---- 3. Publish: keep up to 32 new tasks, make the rest stealable. ----
        let (mut kq, mut keep, mut new_tail) = (0u32, 0u32, 0u32);
        let (mut rq, mut release) = (0u32, 0u32);
        if !P::JOINS {
            let s = a::redux_sync_add_u32(FULL, spawned);
            let f = a::redux_sync_add_u32(FULL, finished);
            if wf && lane == 0 {
                // Work-first: a warp adds what it spawned at once (before any of it can be
                // released) but lets what it finished wait (until it idles), so `live` is
                // never below the true count and reaches 0 only when every task is done.
                live_debt = live_debt.wrapping_add(s.wrapping_sub(f) as i32);
                if live_debt > 0 {
                    // SAFETY: the control block is valid.
                    unsafe { w.flush_live(live_debt) };
                    live_debt = 0;
                }
            } else if lane == 0 && s != f {
                let delta = s.wrapping_sub(f);
                // SAFETY: the control block is valid.
                unsafe {
                    // Ordering: relaxed, scope .gpu; a count only. It is raised before the new
                    // tasks are published, so it reaches 0 only when no task is left.
                    let old = a::atom_relaxed_gpu_add_u32(addr_of_mut!((*w.control).live), delta);
                    if old.wrapping_add(delta) == 0 {
                        // Ordering: release, scope .gpu; the root's result is written.
                        a::st_release_gpu_u32(addr_of_mut!((*w.control).done), 1);
                    }
                }
            }
        }
        if lane == 0 {
            // SAFETY: lane 0 owns the warp's shared words and deque headers.
            unsafe {
                let mut best = 0u32;
                for q in 0..w.queues {
                    // Ordering: relaxed, scope .cta; written by lanes before the warp barrier.
                    let g = a::ld_relaxed_cta_u32(w.sm_queue(q).add(2));
                    if g > best {
                        best = g;
                        kq = q;
                    }
                }
                keep = best.min(32);
                for q in 0..w.queues {
                    let sq = w.sm_queue(q);
                    let g = a::ld_relaxed_cta_u32(sq.add(2));
                    if g == 0 {
                        continue;
                    }
                    a::st_relaxed_cta_u32(sq.add(2), 0);
                    let mut publish = g;
                    if q == kq {
                        new_tail = a::ld_relaxed_cta_u32(sq).wrapping_sub(keep);
                        a::st_relaxed_cta_u32(sq, new_tail);
                        publish -= keep;
                    }
                    if wf {
                        // Work-first: the rest stays private until the policy releases it.
                        w.add_private(q, publish);
                    } else if GLOBAL {
                        // The own ring only stages the batch's entries: the published ones
                        // start at the batch's first position, which becomes the tail again
                        // (kept entries above it are read before the next batch reserves).
                        // The count for the push below goes in the unused pop estimate.
                        let first = a::ld_relaxed_cta_u32(sq)
                            .wrapping_add(if q == kq { keep } else { 0 })
                            .wrapping_sub(g);
                        a::st_relaxed_cta_u32(sq, first);
                        a::st_relaxed_cta_u32(sq.add(3), publish);
                    } else if publish > 0 {
                        // Ordering: relaxed, scope .gpu, after this batch's fence.acq_rel.gpu
                        // (a release pattern): thieves that claim these entries see them and
                        // the tasks' headers and frames.
                        a::atom_relaxed_gpu_add_u32(
                            addr_of_mut!((*w.deque(warp, q)).count),
                            publish,
                        );
                        let est = a::ld_relaxed_cta_u32(sq.add(3));
                        a::st_relaxed_cta_u32(sq.add(3), est + publish);
                    }
                }
                if wf {
                    // A ring at least half full spills instead (`overflow.rs`): the decision
                    // comes back as a release with `SPILL` set.
                    for q in 0..w.queues {
                        release = w.release_amount(q, cur_q_hint, count_hint, hungry);
                        if release > 0 {
                            rq = q;
                            break;
                        }
                    }
                    w.refill_wf();
                }
                batches += 1;
                // Ordering: relaxed, scope .gpu; a heartbeat the host watchdog samples.
                a::st_relaxed_gpu_u32((p.progress as *mut u32).add(warp as usize), batches);
            }
        }
        if GLOBAL {
            // SAFETY: the staged entries lane 0 counted above.
            unsafe { push_global(&w) };
        }
        if wf {
            release = a::shfl_sync_idx_b32(FULL, release, 0);
            if release > 0 {
                rq = a::shfl_sync_idx_b32(FULL, rq, 0);
                // SAFETY: `release` private entries of queue `rq`, or a spill of it (lane 0's
                // decision above).
                unsafe { w.release(rq, release) };
            }
        }
        keep = a::shfl_sync_idx_b32(FULL, keep, 0);
        task = NONE;
        if keep > 0 {
            kq = a::shfl_sync_idx_b32(FULL, kq, 0);
            new_tail = a::shfl_sync_idx_b32(FULL, new_tail, 0);
            if lane < keep {
                let pos = new_tail.wrapping_add(lane) & (w.queue_cap - 1);
                // SAFETY: entries written by this warp's lanes during the batch.
                task = unsafe { *w.ring(warp, kq).add(pos as usize) };
            }
            cur_q = kq;
        }
        if PROFILE && lane == 0 {
            // SAFETY: lane 0 owns this warp's profile region.
            unsafe {
                (*WarpProf::rec(&w)).joins = joins;
                prof.finish(&w, a::globaltimer());
            }
        }
        kept = keep;

        let check = batches % STOP_CHECK_EVERY == 0;
        if a::shfl_sync_idx_b32(FULL, u32::from(check), 0) != 0 {
            let mut code = 0;
            if lane == 0 {
                code = w.leave_code(parkable);
            }
            code = a::shfl_sync_idx_b32(FULL, code, 0);
            if code != 0 {
                leave = code;
                break;
            }
        }
    }

    if PROFILE && lane == 0 {
        // SAFETY: lane 0 owns this warp's profile region and count.
        unsafe { prof.close(&w, p) };
    }

    // ---- Exit: per-warp counters for the host (added: a warp index may run in several
    // launches of one run, `park.rs`). ----
    let steps = a::redux_sync_add_u32(FULL, steps);
    let spawned = a::redux_sync_add_u32(FULL, spawned_total);
    if lane == 0 {
        let st = (p.stats as *mut WarpStats).wrapping_add(warp as usize);
        // SAFETY: this warp's stats entry; an earlier launch's warp of this index wrote it
        // before its park's release, which this warp's rejoin acquired.
        unsafe {
            let old = st.read();
            st.write(WarpStats {
                steps: old.steps.wrapping_add(steps),
                spawned: old.spawned.wrapping_add(spawned),
                steals: old.steals.wrapping_add(steals),
                batches: old.batches.wrapping_add(batches),
            })
        };
    }
    if parkable && leave == LEAVE_PARK {
        if !P::JOINS && lane == 0 && live_debt != 0 {
            // SAFETY: the control block is valid.
            unsafe { w.flush_live(live_debt) };
        }
        // SAFETY: between batches (the loop's stop checks), converged; `kept` tasks of
        // `cur_q` are the publish step's keep.
        unsafe { w.park(kept, cur_q, lane_free) };
    }
}
