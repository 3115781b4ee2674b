//! The work-first scheduler's joins: warp-local bookkeeping for a parent whose children never
//! left its warp, the device-scope protocol only for a parent marked [`FLAG_SHARED`].
//!
//! # The two paths (the argument in full is in `docs/gpu-runtime.md`, "Work-first joins")
//!
//! - **Owner only** (the parent is not marked): every child of the join was spawned into this
//!   warp's private part and never released, so it runs, finishes and reports on this warp.
//!   Lanes that finish siblings in the same batch are grouped with `match.any` on the parent;
//!   the group's leader subtracts the group's size from `pending` with a plain load and
//!   store. Program order and `bar.warp.sync` order every access to `pending`, to the
//!   children's results in the parent's frame and to the parent's header; no fence, no
//!   device-scope RMW.
//! - **Shared** (the parent is marked): a child may finish on any warp. Before its decrement
//!   every lane of the finishing warp runs `fence.acq_rel.gpu` (release: the child's result in
//!   the parent's frame), then the leader subtracts with a device-scope *acquire* RMW. The
//!   RMWs on `pending` form a release sequence, so the one that brings it to zero
//!   synchronizes with every earlier child's release: that lane sees every other child's
//!   result and the parent's header before it re-enqueues the parent on *this* warp's
//!   private part. No second fence: the acquire RMW is an `ATOM` and an L1 invalidation, and
//!   `bar.warp.sync` (before the next batch's bodies) orders memory among the warp's lanes,
//!   so the lane that resumes the parent sees what the lane that completed it saw. (Until
//!   the fifteenth session the last lane fenced after a relaxed RMW and the whole warp fenced
//!   again: two `MEMBAR.GPU`s, each waiting for the warp's outstanding stores, on most of
//!   EPAQ's batches; `docs/benchmarks.md`.)
//!
//! A mark is set by the join's owner before the release fence that publishes the child, so a
//! thief that claims the child sees it; the owner's plain decrements before the mark are
//! ordered before every device-scope decrement after it by that same fence. The mark is
//! cleared when the parent suspends again (a new join, owned by the warp that ran the step).

use core::ptr::addr_of_mut;

use super::layout::{is_slot, Header, FLAG_DONE, FLAG_SHARED, NONE};
use super::step::split_queue_flags;
use super::warp::{Warp, FULL};
use crate::arch::nvptx as a;

impl Warp {
    /// Whether the join of `parent` (not [`NONE`]) uses the device-scope protocol.
    #[inline(always)]
    pub(crate) unsafe fn is_shared(&self, parent: u32) -> bool {
        // SAFETY: a suspended task's header; its mark was written by this warp or acquired
        // with the task (see the module doc).
        unsafe { (*self.header(parent)).flags & FLAG_SHARED != 0 }
    }

    /// Any lane, in a task body: whether the join of `parent` (not [`NONE`]) is owner-only and
    /// waits for one child alone (the caller's). Then no other lane or warp touches its
    /// `pending` until the caller does: siblings would count, a thief's child would have
    /// marked it, and marks are set only between batches by the owner (or, for a parent on
    /// another warp, before the release that made the caller's task visible here).
    ///
    /// # Safety
    ///
    /// `parent` is the parent of a task this lane runs.
    #[inline(always)]
    pub(crate) unsafe fn waits_for_one(&self, parent: u32) -> bool {
        // SAFETY: a suspended task's header (it waits for the caller's task); plain loads,
        // written by this warp or acquired with the caller's task (see the module doc).
        unsafe { !self.is_shared(parent) && (*self.header(parent)).pending == 1 }
    }

    /// One lane, in a task body: a task it ran finished, and its parent's join (header `ph`)
    /// is shared. Tells the parent with the protocol of the join rounds for a group of one
    /// and returns whether that child was the last; then this lane has acquired every other
    /// child's result and the parent's header, and completes, resumes or re-enqueues the
    /// parent itself (`lane.rs`).
    ///
    /// # Safety
    ///
    /// `ph` is the header of the finished task's marked parent; the lane wrote the task's
    /// result before the call.
    ///
    /// Out of line: inlined, its fence in the lane loop made fib(40) 8% and the chain 6%
    /// slower on an H200 (the same kernels' registers), though neither takes it often.
    #[inline(never)]
    pub(crate) unsafe fn tell_shared_in_lane(&self, ph: *mut Header) -> bool {
        // Release side: this lane's writes (the child's result in the parent's frame, its
        // inline descendants' frames) before the RMW. Only this lane's child is counted by the
        // RMW below, so only its writes need releasing; a divergent lane fences alone.
        a::fence_acq_rel_gpu();
        // Ordering: acquire, scope .gpu; after the fence above (a release pattern). The RMWs
        // on `pending` form a release sequence, so the one that reads 1 (the last) synchronizes
        // with every other child's fence + RMW, here or in another warp's join rounds. Pairs
        // with the RMW of `tell_parent`'s shared path and of this function in other lanes.
        // SAFETY: a suspended parent's header (it waits for this lane's task).
        let old = unsafe { a::atom_acquire_gpu_add_u32(addr_of_mut!((*ph).pending), u32::MAX) };
        old == 1
    }

    /// Every lane (converged), after the batch's frees: lanes with `notify` tell `parent`
    /// that their task finished; `shared` is [`Warp::is_shared`] of `parent`, read by the
    /// lane when its task finished (marks change only between batches, by the owner). Returns
    /// the ballot of lanes that re-enqueued a parent.
    ///
    /// Runs in rounds: in each, the lanes still telling a parent are grouped by it
    /// (`match.any`) and one leader per parent applies the group's count, so no two lanes ever
    /// update one `pending` at once. A parent whose body had returned and whose last child
    /// this was is freed, and its leader tells the grandparent in the next round (where it
    /// may meet another lane telling the same grandparent).
    ///
    /// # Safety
    ///
    /// `parent` is the finished task's parent when `notify`; the warp is converged.
    #[inline(always)]
    pub(crate) unsafe fn join_wf(&self, notify: bool, parent: u32, shared: bool) -> u32 {
        let (mut active, mut parent) = (notify, parent);
        let mut resumed = false;
        let mut first = true;
        while a::vote_sync_ballot_b32(FULL, active) != 0 {
            let shared = if first {
                active && shared
            } else {
                // SAFETY: as the caller promises; later rounds tell suspended grandparents.
                active && is_slot(parent) && unsafe { self.is_shared(parent) }
            };
            first = false;
            if a::vote_sync_ballot_b32(FULL, shared) != 0 {
                // Release side for shared joins: every lane's results and frees before the
                // RMWs.
                a::fence_acq_rel_gpu();
            }
            let key = if active { parent } else { NONE - 1 };
            let peers = a::match_any_sync_b32(FULL, key);
            if active && self.lane == peers.trailing_zeros() {
                // SAFETY: one leader per parent in this round.
                let step = unsafe { self.complete_wf(parent, peers.count_ones(), shared) };
                resumed |= step.resumed;
                active = step.next != NONE - 1;
                parent = step.next;
            } else {
                active = false;
            }
        }
        // No acquire fence: a lane that completed a shared join acquired with its RMW, and the
        // warp barrier before the next bodies orders memory among the lanes (module doc).
        a::vote_sync_ballot_b32(FULL, resumed)
    }

    /// One lane: `count` children of `parent` finished (see [`Warp::tell_parent`]).
    unsafe fn complete_wf(&self, parent: u32, count: u32, shared: bool) -> Completion {
        // SAFETY: as the caller (`join_wf`, one leader per parent per round) promises.
        unsafe { self.tell_parent::<false>(self, parent, count, shared) }
    }

    /// The join core of both work-first loops. One lane (or thread): `count` children of
    /// `parent` finished. Completes the parent when they were its last: re-enqueues it on
    /// this worker, or, if its body had returned, frees it to `pool` and returns its own
    /// parent to tell next (in the next round of a warp, or the next turn of a block thread's
    /// loop).
    ///
    /// - A *shared* join (`shared`, the parent is marked): a device-scope acquire RMW, after
    ///   the worker's `fence.acq_rel.gpu` (release pattern; the RMWs on `pending` form a
    ///   release sequence, so the last one synchronizes with every child's release).
    /// - An *owner-only* join: warp level (`!BLOCK`), plain accesses by the round's one leader
    ///   per parent, ordered by program order and warp barriers; block level (`BLOCK`), a
    ///   block-scope RMW (the threads of one batch update it at once), block barriers
    ///   ordering the rest.
    ///
    /// # Safety
    ///
    /// `parent` is the parent of `count` tasks that finished on this worker; for a shared join
    /// every lane (thread) of the worker fenced after their results were written; `pool` is
    /// the caller's pool view (its own warp's), after this batch's frees.
    #[inline(always)]
    unsafe fn tell_parent<const BLOCK: bool>(
        &self,
        pool: &Warp,
        parent: u32,
        count: u32,
        shared: bool,
    ) -> Completion {
        let mut out = Completion {
            next: NONE - 1,
            resumed: false,
        };
        // SAFETY: for the whole body, parents outlive their children by the pending counter.
        unsafe {
            if !is_slot(parent) {
                // The root, with its whole subtree, is done (the run is over), or an import
                // (another GPU's task) is: `peer` (block-level programs run on one GPU).
                super::peer::finish_root(parent);
                return out;
            }
            let ph = self.header(parent);
            // The owner-only path reads the parent's first half at once (`kind`, `state`,
            // `pending`, `queue` and `flags`): a completed parent needs its kind, queue and
            // flags too.
            let mut first_half = None;
            let last = if shared {
                // Ordering: acquire, scope .gpu. Release side: the worker's fence.acq_rel.gpu
                // before it (a release pattern). The RMWs on `pending` form a release
                // sequence, so the one that reads `count` (the last) synchronizes with every
                // other child's release: it acquires their results and the parent's header as
                // its owner left it. Pairs with the same RMW of the other children's workers.
                let old =
                    a::atom_acquire_gpu_add_u32(addr_of_mut!((*ph).pending), count.wrapping_neg());
                old == count
            } else if BLOCK {
                // Ordering: relaxed, scope .cta; every updater is a thread of this block, and
                // block barriers order the rest.
                let old =
                    a::atom_relaxed_cta_add_u32(addr_of_mut!((*ph).pending), count.wrapping_neg());
                old == count
            } else {
                // Owner only: plain accesses, ordered by program order and warp barriers, and
                // one leader per parent per round.
                let half = a::ld_v4_u32(ph.cast());
                first_half = Some(half);
                let left = half[2] - count;
                if left != 0 {
                    // Not stored when it reaches 0: nobody reads the counter of a join that
                    // completed (the parent runs or is freed next, and its next join writes
                    // it anew), so the store would only cost a memory request.
                    (*ph).pending = left;
                }
                left == 0
            };
            if !last {
                return out;
            }
            let (kind, (queue, flags)) = match first_half {
                // `Header`'s words in order (`layout.rs`).
                Some([kind, _, _, qf]) => (kind, split_queue_flags(qf)),
                None => ((*ph).kind, ((*ph).queue, (*ph).flags)),
            };
            if flags & FLAG_DONE != 0 {
                // Its body had returned: it is complete now too.
                out.next = (*ph).parent;
                pool.free_one_wf(parent);
                return out;
            }
            let _ = self.reserve(u32::from(queue), parent, kind);
            out.resumed = true;
            out
        }
    }
}

impl Warp {
    /// One thread of a block-level worker (work first), before the batch's frees: whether
    /// what it is about to do shares something, so that every thread of the block must fence
    /// first: it tells a parent whose join is shared, or whose body had returned (the chain
    /// may reach a shared grandparent).
    ///
    /// # Safety
    ///
    /// `parent` is the finished task's parent when `notify`.
    #[inline(always)]
    pub(crate) unsafe fn block_shares(&self, notify: bool, parent: u32) -> bool {
        // SAFETY: a suspended task's header, as the caller promises.
        notify
            && is_slot(parent)
            && unsafe { (*self.header(parent)).flags } & (FLAG_SHARED | FLAG_DONE) != 0
    }

    /// One thread of a block-level worker (work first), after the batch's frees: its finished
    /// task's `parent` lost a child. Repeats upwards while a parent whose body had returned
    /// loses its last child.
    ///
    /// - An owner-only join (not marked) takes a block-scope RMW on `pending`: every child of
    ///   it ran on this block, the threads of one batch update it at once (hence an atomic),
    ///   and the block barriers between batches order everything else (the children's
    ///   results, the parent's header) for the thread that resumes it.
    /// - A shared join takes the warp path's device-scope protocol: the block fenced before
    ///   (the caller's [`Warp::block_shares`]), then the acquire RMW. The block barrier after
    ///   the joins orders memory among the block's threads, so whichever thread runs the
    ///   parent sees what the completing thread acquired; no fence after it.
    ///
    /// A parent freed on the way goes to `pool`, this thread's warp's pool (see `pool.rs`).
    /// Returns whether it re-enqueued a parent on this worker.
    ///
    /// # Safety
    ///
    /// `parent` is the finished task's parent; every thread of the block fenced when any
    /// thread's [`Warp::block_shares`] was true; `pool` is this thread's warp's view, after its
    /// [`Warp::free_batch_wf`] of this batch.
    pub(crate) unsafe fn complete_block_wf(&self, pool: &Warp, parent: u32) -> bool {
        let mut parent = parent;
        loop {
            // SAFETY: a suspended task's header (a finished task's parent), as the caller
            // promises; its mark changes only between batches.
            let shared = is_slot(parent) && unsafe { self.is_shared(parent) };
            // SAFETY: as the caller promises; the block fenced before this chain began when
            // any link of it is shared or done (`block_shares`).
            let c = unsafe { self.tell_parent::<true>(pool, parent, 1, shared) };
            if c.next == NONE - 1 {
                return c.resumed;
            }
            parent = c.next;
        }
    }
}

/// What one leader's update of a join did.
struct Completion {
    /// The parent to tell next (its child completed), or `NONE - 1`.
    next: u32,
    /// The parent was re-enqueued on this warp.
    resumed: bool,
}

// The shared-deque ablation's join: every child's decrement is a device-scope RMW after the
// batch's fence.
impl Warp {
    /// A finished task whose slot was already freed (by [`Warp::free_warp`]) tells its parent;
    /// repeat upwards while a parent whose body had returned loses its last child. Runs after
    /// the batch's fence; returns whether it re-enqueued a parent (which then needs a fence
    /// before it is published).
    pub(crate) unsafe fn complete(&self, parent_of_freed: u32) -> bool {
        let mut parent = parent_of_freed;
        // SAFETY: for the whole body, parents outlive their children by the pending counter.
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
                let q = u32::from((*ph).queue);
                let _ = self.reserve(q, parent, (*ph).kind);
                return true;
            }
        }
    }
}
