//! The work-first scheduler's split deques: a private part only the owner touches, and the
//! public part thieves steal from (the shared-deque protocol, whose part is at the end of this file).
//!
//! # Layout of one queue of one warp
//!
//! One ring of `queue_cap` slot indices, positions increasing towards the owner's end:
//!
//! ```text
//!   head ......... public ......... | ..... private ..... | tail
//!   (thieves claim from here)         (owner pushes and pops here, no atomics)
//! ```
//!
//! `head` and `count` (published, unclaimed entries) live in the warp's [`DequeHeader`] in
//! global memory; `tail` and `private` live in the warp's shared memory. The public part is
//! `[tail - private - count, tail - private)` up to claims in flight, and the owner claims
//! public entries (by CAS on `count`, as in the shared-deque protocol) only when its private
//! part is empty, so owner and thieves meet on `count` alone.
//!
//! # Release
//!
//! Between batches the owner reads its `count`; when it is below `release_below` it moves
//! the oldest `max(1, private >> release_shift)` private entries (all of them while fewer than
//! `release_all_below`; `layout::release_count`) to the public part: it marks
//! each entry's ancestors [`FLAG_SHARED`] up to the first one already marked (see
//! `join.rs`), runs one `fence.acq_rel.gpu`, and adds to `count`. That is the only fence and
//! the only device-scope RMW of a batch that shares nothing. With several queues (EPAQ), a
//! queue the warp does not run next is released also while its `count` is below
//! `release_other_below` (`Params`; by default always): the warp runs one queue dry before
//! the others, so their private tasks would wait. A ring at least half full spills most of
//! its private part to an overflow queue instead (`overflow.rs`).

use core::ptr::addr_of_mut;

use super::layout::{is_slot, release_count, DequeHeader, Header, ERR_QUEUE_OVERFLOW, FLAG_SHARED};
use super::overflow::{SERVED, SPILL};
use super::warp::{Warp, FULL};
use crate::arch::nvptx as a;

impl Warp {
    /// The shared word counting queue `q`'s private entries.
    #[inline(always)]
    pub(crate) fn sm_private(&self, q: u32) -> a::SharedWord {
        self.smem.add(4 + 4 * self.queues as usize + q as usize)
    }

    /// Lane 0: takes up to `max` of the newest private entries of queue `q`; returns (first
    /// position, count). No atomics: nobody else reads the private part.
    ///
    /// # Safety
    ///
    /// Lane 0 (the owner of the warp's deque state).
    #[inline(always)]
    pub(crate) unsafe fn pop_private(&self, q: u32, max: u32) -> (u32, u32) {
        // SAFETY: for the whole body, this warp's shared words.
        unsafe {
            let pr = self.sm_private(q);
            // Ordering: relaxed, scope .cta; lane 0's own words.
            let n = a::ld_shared_u32(pr);
            if n == 0 {
                return (0, 0);
            }
            let got = n.min(max);
            let sq = self.sm_queue(q);
            let t = a::ld_shared_u32(sq).wrapping_sub(got);
            a::st_shared_u32(sq, t);
            a::st_shared_u32(pr, n - got);
            (t, got)
        }
    }

    /// Lane 0, acquiring: with `kept` tasks held, the next ones from the private part (the
    /// kept tasks' queue `cur_q` first), else from the own public part (a CAS on `count`).
    /// Returns (first position, count, queue).
    ///
    /// # Safety
    ///
    /// Lane 0.
    #[inline(always)]
    pub(crate) unsafe fn pop_wf(&self, cur_q: u32, kept: u32) -> (u32, u32, u32) {
        // SAFETY: for the whole body, lane 0 owns the warp's deque operations; a queue's public
        // entries end at its tail when its private part is empty, as `pop_own` expects.
        unsafe {
            if kept > 0 {
                let (b, g) = self.pop_private(cur_q, 32 - kept);
                if g > 0 {
                    return (b, g, cur_q);
                }
                let (b, g) = self.pop_own(cur_q, 32 - kept);
                return (b, g, cur_q);
            }
            for i in 0..self.queues {
                let q = (cur_q + i) % self.queues;
                let (b, g) = self.pop_private(q, 32);
                if g > 0 {
                    return (b, g, q);
                }
            }
            for i in 0..self.queues {
                let q = (cur_q + i) % self.queues;
                let (b, g) = self.pop_own(q, 32);
                if g > 0 {
                    return (b, g, q);
                }
            }
            (0, 0, cur_q)
        }
    }

    /// Lane 0, at the end of a batch: `g` new entries at the top of queue `q` stay private.
    ///
    /// # Safety
    ///
    /// Lane 0.
    #[inline(always)]
    pub(crate) unsafe fn add_private(&self, q: u32, g: u32) {
        // SAFETY: this warp's shared word.
        unsafe {
            let pr = self.sm_private(q);
            // Ordering: relaxed, scope .cta; lane 0's own word.
            a::st_shared_u32(pr, a::ld_shared_u32(pr) + g);
        }
    }

    /// The worker's deque thread (lane 0, or thread 0 of a block), at the end of a batch,
    /// after the batch's barrier: the `g > 0` entries that the batch pushed to queue `q`.
    /// With `keeps` (the queue the batch keeps from), the newest `keep` of them are kept to
    /// run next, off the deque; returns the ring position of the first kept one. The rest
    /// stay in the private part (work first, `wf`), are staged for the global queue's push
    /// (`GLOBAL`: the own ring only stages them; the tail goes back to the first, and the
    /// pop-estimate word, unused there, takes their count), or are published (the
    /// shared-deque ablation, after the batch's fence).
    ///
    /// # Safety
    ///
    /// The deque thread, after the barrier that ends the batch's pushes; `keep <= g`.
    #[inline(always)]
    pub(crate) unsafe fn publish_new<const GLOBAL: bool>(
        &self,
        q: u32,
        g: u32,
        keeps: bool,
        keep: u32,
        wf: bool,
    ) -> u32 {
        let sq = self.sm_queue(q);
        // SAFETY: for the whole body, this worker's shared words and deque header.
        unsafe {
            // Ordering: relaxed, scope .cta; the deque thread's own words (the lanes' pushes
            // were ordered before them by the batch's barrier).
            a::st_shared_u32(sq.add(2), 0);
            let (mut publish, mut kept_from) = (g, 0);
            if keeps {
                kept_from = a::ld_shared_u32(sq).wrapping_sub(keep);
                a::st_shared_u32(sq, kept_from);
                publish -= keep;
            }
            if wf {
                // Work first: the rest stays private until the policy releases it.
                self.add_private(q, publish);
            } else if GLOBAL {
                // Kept entries above the first are read before the next batch reserves.
                let first = a::ld_shared_u32(sq)
                    .wrapping_add(if keeps { keep } else { 0 })
                    .wrapping_sub(g);
                a::st_shared_u32(sq, first);
                a::st_shared_u32(sq.add(3), publish);
            } else if publish > 0 {
                // Ordering: relaxed, scope .gpu, after this batch's fence.acq_rel.gpu (a
                // release pattern): thieves that claim these entries see them and the tasks'
                // headers and frames.
                a::atom_relaxed_gpu_add_u32(
                    addr_of_mut!((*self.deque(self.warp, q)).count),
                    publish,
                );
                let est = a::ld_shared_u32(sq.add(3));
                a::st_shared_u32(sq.add(3), est + publish);
            }
            if !wf && !GLOBAL {
                // The shared deque: the deque thread refreshes the cache of the steal end when
                // the ring looks half full (`spill_due`; work first refreshes it in
                // `plan_spill`), since spawns only read it (`reserve`).
                // Ordering: relaxed, scope .gpu; thieves only raise `head`, stale is
                // conservative.
                if self.spill_due(q) {
                    let head =
                        a::ld_relaxed_gpu_u32(addr_of_mut!((*self.deque(self.warp, q)).head));
                    a::st_shared_u32(sq.add(1), head);
                }
            }
            kept_from
        }
    }

    /// Lane 0, at the start of a batch: the public `count` of queue `q`, loaded now so that
    /// its latency hides behind the bodies ([`Warp::release_amount`] takes it at the end).
    ///
    /// # Safety
    ///
    /// Lane 0.
    #[inline(always)]
    pub(crate) unsafe fn count_hint(&self, q: u32) -> u32 {
        // SAFETY: this warp's deque header.
        // Ordering: relaxed, scope .gpu; a hint (see `release_amount`).
        unsafe { a::ld_relaxed_gpu_u32(addr_of_mut!((*self.deque(self.warp, q)).count)) }
    }

    /// Lane 0, at the end of a batch: how many private entries of queue `q` to release now
    /// (0: none), from the public `count` (`hint`, read at the batch's start, for queue
    /// `hint_q`; read now for the others) and the release policy (below `release_below`; when
    /// the warp does not run `q` next, `!runs_next`, also below `release_other_below`: the
    /// queue's private tasks wait until the warp has run its next queue dry); or, when the
    /// ring is at least half full or (`hungry`, multi-GPU kernels only) another GPU asked for
    /// work,
    /// [`SPILL`] with the entries to spill to the overflow queue (planned: see `overflow.rs`).
    ///
    /// # Safety
    ///
    /// Lane 0.
    #[inline(always)]
    pub(crate) unsafe fn release_amount(
        &self,
        q: u32,
        runs_next: bool,
        hint_q: u32,
        hint: u32,
        hungry: bool,
    ) -> u32 {
        // SAFETY: for the whole body, this warp's shared word and deque header.
        unsafe {
            // Ordering: relaxed, scope .cta; lane 0's own word.
            let n = a::ld_shared_u32(self.sm_private(q));
            if n == 0 {
                return 0;
            }
            // A ring at least half full spills instead (`overflow.rs`); so does a worker of
            // a multi-GPU run when another GPU asked for work (`hungry`, read at the batch's
            // start; `peer`): the spill is its export.
            if self.spill_due(q) || hungry {
                let k = self.plan_spill(q, hungry);
                if k & !SERVED != 0 {
                    return SPILL | k;
                }
                if k == SERVED {
                    // The request was served from the public part; the release waits for
                    // the next batch.
                    return SERVED;
                }
            }
            // A hint: a stale value releases late or early, never wrongly (the claim protocol
            // is on `count` itself). Thieves only lower `count`, and only the owner raises it,
            // so a count read before this batch's own releases is still an upper bound.
            let c = if q == hint_q {
                hint
            } else {
                self.count_hint(q)
            };
            // A queue the warp does not run next also releases below `release_other_below`.
            if c >= self.release_below && (runs_next || c >= self.release_other_below()) {
                return 0;
            }
            release_count(n, self.release_size)
        }
    }

    /// Every lane (converged): moves the oldest `r` private entries of queue `q` to the
    /// public part, where thieves can claim them; or, with [`SPILL`] set in `r`, carries out
    /// the spill lane 0 planned (`overflow.rs`).
    ///
    /// # Safety
    ///
    /// `r` (warp-uniform) is lane 0's [`Warp::release_amount`] of queue `q` for this batch;
    /// the warp is converged.
    pub(crate) unsafe fn release(&self, q: u32, r: u32) {
        if r & SPILL != 0 {
            // SAFETY: lane 0's plan for this batch.
            unsafe { self.spill_private(q, r & !SPILL, self.lane, 32, false) };
            return;
        }
        let mut first = 0;
        if self.lane == 0 {
            // SAFETY: lane 0 owns the warp's deque words.
            first = unsafe { self.oldest_private(q) };
        }
        first = a::shfl_sync_idx_b32(FULL, first, 0);
        // SAFETY: the oldest `r` private entries, as the caller promises.
        unsafe { self.mark_released(q, first, r, self.lane, 32) };
        // Release side of the publication: every lane's marks, and the tasks' headers, frames
        // and ring entries written by this warp's earlier batches.
        a::fence_acq_rel_gpu();
        a::bar_warp_sync(FULL);
        if self.lane == 0 {
            // SAFETY: lane 0, after every lane's fence.
            unsafe { self.publish_released(q, r) };
        }
    }

    /// The owner's deque thread: the ring position of queue `q`'s oldest private entry.
    ///
    /// # Safety
    ///
    /// Lane 0 (thread 0 of a block-level worker).
    #[inline(always)]
    pub(crate) unsafe fn oldest_private(&self, q: u32) -> u32 {
        // SAFETY: this worker's shared words.
        // Ordering: relaxed, scope .cta; the deque thread's own words.
        unsafe {
            a::ld_shared_u32(self.sm_queue(q)).wrapping_sub(a::ld_shared_u32(self.sm_private(q)))
        }
    }

    /// Thread `rank` of `size` (a warp's lanes, or a block's threads): marks the ancestors of
    /// its share of the `r` entries from ring position `first` of queue `q` (see
    /// [`Warp::mark_shared`]). The caller fences on every thread before
    /// [`Warp::publish_released`].
    ///
    /// # Safety
    ///
    /// `[first, first + r)` are private entries of this worker's queue `q`.
    #[inline(always)]
    pub(crate) unsafe fn mark_released(&self, q: u32, first: u32, r: u32, rank: u32, size: u32) {
        let mut i = rank;
        while i < r {
            let pos = first.wrapping_add(i) & (self.queue_cap - 1);
            // SAFETY: a private entry of this worker's ring; its ancestors are suspended.
            unsafe { self.mark_shared(self.ring(self.warp, q).add(pos as usize).read()) };
            i += size;
        }
    }

    /// The owner's deque thread, after every thread of the worker marked and fenced: the
    /// oldest `r` private entries of queue `q` become public.
    ///
    /// # Safety
    ///
    /// Lane 0 (thread 0 of a block-level worker); `r` is at most the private count.
    #[inline(always)]
    pub(crate) unsafe fn publish_released(&self, q: u32, r: u32) {
        // SAFETY: this worker's shared words and deque header.
        unsafe {
            let pr = self.sm_private(q);
            // Ordering: relaxed, scope .cta; the deque thread's own words.
            a::st_shared_u32(pr, a::ld_shared_u32(pr) - r);
            // Ordering: relaxed, scope .gpu, after every thread's fence.acq_rel.gpu (a release
            // pattern): a thief whose CAS on `count` claims these entries and then fences sees
            // everything written before the fences.
            a::atom_relaxed_gpu_add_u32(addr_of_mut!((*self.deque(self.warp, q)).count), r);
            let sq = self.sm_queue(q);
            a::st_shared_u32(sq.add(3), a::ld_shared_u32(sq.add(3)) + r);
        }
    }

    /// Marks the ancestors of `slot` (a task about to become stealable) [`FLAG_SHARED`], from
    /// its parent up to the first one already marked.
    ///
    /// Every ancestor of a live task is suspended. An unmarked ancestor is one whose join
    /// this warp owns (a task whose join crossed warps is marked, and so are its ancestors,
    /// by this same walk when it was marked), so plain stores suffice; lanes that walk the same
    /// chain store the same value.
    pub(crate) unsafe fn mark_shared(&self, slot: u32) {
        // SAFETY: forwarded.
        unsafe { mark_shared(self.slots, self.slot_bytes, slot) }
    }
}

/// [`Warp::mark_shared`] on the task slots at `slots` (`slot_bytes` each), for code that has
/// no [`Warp`] (the overflow queues' out-of-line spill).
///
/// # Safety
///
/// `slot` is a live task of this worker's private part.
#[inline(always)]
pub(crate) unsafe fn mark_shared(slots: *mut u8, slot_bytes: usize, slot: u32) {
    let header = |s: u32| -> *mut Header { slots.wrapping_add(s as usize * slot_bytes).cast() };
    // SAFETY: for the whole body, headers of suspended ancestors (alive while `slot` is).
    unsafe {
        let mut p = (*header(slot)).parent;
        while is_slot(p) {
            let h = header(p);
            let f = (*h).flags;
            if f & FLAG_SHARED != 0 {
                break;
            }
            (*h).flags = f | FLAG_SHARED;
            p = (*h).parent;
        }
    }
}

// The public part's protocol (GTaP's deque, and the whole deque of the shared-deque
// ablation): the owner's ring entries, its claims from the LIFO end, and thieves' steals from
// the head under a per-deque lock.
impl Warp {
    /// Puts `slot` on this warp's queue `q` as a new (unpublished) entry of this batch.
    pub(crate) unsafe fn reserve(&self, q: u32, slot: u32, kind: u32) -> bool {
        // SAFETY: for the whole body, q < queues (checked by callers); the ring index is masked.
        unsafe {
            let sq = self.sm_queue(q);
            // Ordering: relaxed, scope .cta; the tail is this warp's own.
            let t = a::atom_shared_add_u32(sq, 1);
            // Ordering: relaxed, scope .cta; a cache of the steal end (stale = conservative),
            // written only by the deque thread between batches (`plan_spill` refreshes it when
            // the ring looks half full), so the threads spawning at once only read it.
            let h = a::ld_shared_u32(sq.add(1));
            if t.wrapping_sub(h) >= self.queue_cap {
                // Ordering: relaxed, scope .gpu; thieves only raise it, stale is conservative.
                // Not written back: two warps of a block refreshing the cache while others
                // read it was a hazard racecheck reported (gpu-smoke's block overflow row).
                let h = a::ld_relaxed_gpu_u32(addr_of_mut!((*self.deque(self.warp, q)).head));
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
            a::atom_shared_add_u32(sq.add(2), 1);
        }
        true
    }

    /// Lane 0: claims up to `max` entries from the LIFO end of this warp's queue `q`; returns
    /// (first position, count).
    pub(crate) unsafe fn pop_own(&self, q: u32, max: u32) -> (u32, u32) {
        // SAFETY: for the whole body, this warp's deque header and shared words are valid.
        unsafe {
            let dq = self.deque(self.warp, q);
            let sq = self.sm_queue(q);
            // What this warp published minus what it took back: an upper bound of `count`
            // (thieves only lower it), so 0 means empty without an L2 round trip.
            // Ordering: relaxed, scope .cta; lane 0's own word.
            if a::ld_shared_u32(sq.add(3)) == 0 {
                return (0, 0);
            }
            // Claimed entries are the newest `got` ones, contiguous below the tail, whether
            // they were claimed in one CAS (the default) or one CAS each (the ablation).
            let mut got = 0;
            while got < max {
                // Ordering: relaxed, scope .gpu; the CAS below decides.
                let c = a::ld_relaxed_gpu_u32(addr_of_mut!((*dq).count));
                if c == 0 {
                    a::st_shared_u32(sq.add(3), 0);
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
                    a::st_shared_u32(sq.add(3), c - claim);
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
            let t = a::ld_shared_u32(sq).wrapping_sub(got);
            a::st_shared_u32(sq, t);
            (t, got)
        }
    }

    /// The thief's deque thread, once every lane (thread) of the worker has read its entry of
    /// a steal: moves victim `v`'s queue-`q` head to `head` (past the stolen entries) and
    /// releases the steal lock that [`Warp::steal`] took.
    ///
    /// # Safety
    ///
    /// This worker holds the lock of `v`'s deque `q`.
    #[inline(always)]
    pub(crate) unsafe fn unlock_victim(&self, v: u32, q: u32, head: u32) {
        // SAFETY: a valid deque header, whose lock we hold.
        unsafe { Self::unlock_deque(self.deque(v, q), head) }
    }

    /// [`Warp::unlock_victim`] of deque `dq`.
    ///
    /// # Safety
    ///
    /// `dq` is a valid deque header whose lock this thread holds.
    #[inline(always)]
    pub(crate) unsafe fn unlock_deque(dq: *mut DequeHeader, head: u32) {
        // SAFETY: a valid deque header, whose lock we hold.
        unsafe {
            // Ordering: relaxed, scope .gpu; published by the unlock below.
            a::st_relaxed_gpu_u32(addr_of_mut!((*dq).head), head);
            // Ordering: release, scope .gpu; the unlock, after our reads of the entries and the
            // head update; pairs with the next holder's acquire CAS on the lock.
            a::st_release_gpu_u32(addr_of_mut!((*dq).lock), 0);
        }
    }

    /// Lane 0: tries random victims; on success returns (victim, queue, first position,
    /// count) with the victim's steal lock held.
    ///
    /// With `refill` (work first, idle for a few rounds) and no victim with work, it moves up
    /// to a batch of tasks from the overflow queues into this worker's private part instead
    /// (`overflow.rs`), which the next acquire pops. With `multi` (the multi-GPU kernel), an
    /// idle refill also reports the warp to its GPU's courier, which imports work from other
    /// GPUs (`peer`).
    pub(crate) unsafe fn steal(
        &self,
        rng: &mut u32,
        q0: u32,
        refill: bool,
        multi: bool,
    ) -> (u32, u32, u32, u32) {
        if self.num_warps() < 2 {
            return (0, 0, 0, 0);
        }
        // Random victims tried per round before the worker backs off (`Config::steal_tries`),
        // read from memory: the idle path holds no register for it in the busy loop.
        // SAFETY: `params()` points at the run's params once the worker started.
        let tries = unsafe { (*super::params()).steal_tries };
        for _ in 0..tries {
            *rng ^= *rng << 13;
            *rng ^= *rng >> 17;
            *rng ^= *rng << 5;
            let mut v = *rng % (self.num_warps() - 1);
            if v >= self.warp {
                v += 1;
            }
            for i in 0..self.queues {
                let q = (q0 + i) % self.queues;
                let dq = self.deque(v, q);
                // SAFETY: v < warps, q < queues: a valid deque header.
                let (head, got) = unsafe { claim_public(dq, self.single_claims) };
                if got > 0 {
                    return (v, q, head, got);
                }
            }
        }
        if refill {
            // SAFETY: the deque thread of this work-first worker, between batches.
            unsafe {
                self.refill_from_overflow(q0);
                if multi {
                    // A multi-GPU run: nothing on this GPU; the courier hears of it
                    // (`peer`).
                    super::peer::note_starving();
                }
            }
        }
        (0, 0, 0, 0)
    }
}

/// Lane 0 of any worker (a thief, or an owner exporting its own oldest tasks, `peer`):
/// claims up to half the public entries of deque `dq` (at most 32) from its head, in one CAS
/// or (`single`, the ablation) one CAS per entry; returns (first position, count), holding
/// the deque's steal lock when the count is not 0 (release it with
/// [`Warp::unlock_victim`]).
///
/// # Safety
///
/// `dq` is a valid deque header of the run.
#[inline(never)]
pub(crate) unsafe fn claim_public(dq: *mut DequeHeader, single: bool) -> (u32, u32) {
    // SAFETY: for the whole body, a valid deque header.
    unsafe {
        // Ordering: relaxed, scope .gpu; a cheap emptiness test before locking.
        if a::ld_relaxed_gpu_u32(addr_of_mut!((*dq).count)) == 0 {
            return (0, 0);
        }
        // Ordering: acquire, scope .gpu; pairs with the release of the previous holder's
        // unlock, so we see the head it wrote.
        if a::atom_acquire_gpu_cas_u32(addr_of_mut!((*dq).lock), 0, 1) != 0 {
            return (0, 0);
        }
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
            let claim = if single { 1 } else { want };
            // Ordering: acquire, scope .gpu; pairs with the owner's fence + add that published
            // the entries (and the tasks' frames).
            if a::atom_acquire_gpu_cas_u32(addr_of_mut!((*dq).count), c, c - claim) == c {
                got += claim;
            }
        }
        if got > 0 {
            // Ordering: relaxed, scope .gpu; written only under the lock we hold.
            return (a::ld_relaxed_gpu_u32(addr_of_mut!((*dq).head)), got);
        }
        // Ordering: release, scope .gpu; unlock.
        a::st_release_gpu_u32(addr_of_mut!((*dq).lock), 0);
        (0, 0)
    }
}
