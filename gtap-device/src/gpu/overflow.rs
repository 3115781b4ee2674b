//! The work-first scheduler's overflow queues: where a private part that outgrows its ring
//! goes, so that no program stops for a deque's capacity.
//!
//! A worker's private part grows with a depth-first walk: each batch keeps the newest tasks
//! and leaves their older siblings below them (a BFS of a 2048 x 2048 grid on 128-thread
//! blocks left more than 65536 in one block's deque). The ring has a fixed capacity
//! (`Config::tasks_per_warp` or `Config::tasks_per_block` entries), so instead of stopping
//! with `QueueOverflow`, the owner moves most of its private part out to an *overflow queue*:
//! one FIFO ring per EPAQ queue index, shared by every worker (`global_queue.rs`, whose
//! capacity holds every task slot of the run, so a push never finds it full).
//!
//! **Thread-level programs only** (`Params::overflow_spills`): block-level workers run the
//! same code, but the host turns their spills off, so a block's deque that fills up stops the
//! run with `QueueOverflow` as before. The one block-level run that needed spills at scale (a
//! BFS of a 2048 x 2048 grid on 128-thread blocks, 4·10^8 tasks) once gave wrong depths, and
//! the cause was not found before the session's GPU time ran out (`docs/benchmarks.md`).
//!
//! # Spill (the owner, between batches)
//!
//! The release decision ([`Warp::release_amount`]) looks first at the ring: when it is at
//! least half full (`tail - head`, the steal end read again when the cache says so) and the
//! private part is not empty, the deque thread *plans* a spill instead of a release: the
//! oldest `k = private - private / 4` private entries go out, the newest `m = private / 4`
//! stay and move down to where the oldest were (`[first + k, first + k + m)` to
//! `[first, first + m)`; `m <= k`, so source and destination never overlap), the tail becomes
//! `first + m`. It reserves `k` positions of the overflow queue, records the new tail and
//! private count, keeps the first reserved position in the queue's "generated" shared word
//! (free between the batch's publication and the next batch's spawns), and returns
//! `SPILL | k` as the release amount. Then every thread of the worker ([`Warp::release`]):
//!
//! 1. marks the ancestors of its share of the `k` entries `FLAG_SHARED` (the task may finish
//!    on another worker: `join.rs`) and writes them to the reserved positions;
//! 2. synchronizes (every entry is read), then moves its share of the `m` kept entries down;
//! 3. runs `fence.acq_rel.gpu` and synchronizes; the deque thread commits the positions
//!    (`st.release.gpu` on `tail`) and clears the generated word.
//!
//! # Refill (an idle worker)
//!
//! A worker whose steals failed for a few rounds in a row ([`OVERFLOW_IDLE_NS`]) has its deque
//! thread claim up to a batch of tasks from the front of an overflow queue, fence, take them,
//! and push them onto its own private part, as if it had spawned them; its next acquire pops
//! them. Their ancestors stay marked, so their joins take the shared path.
//!
//! # Cost when unused
//!
//! Everything here but [`Warp::spill_due`] is out of line (`#[inline(never)]`, scalar
//! arguments), and the worker loop has no code of its own for it: the spill rides on the
//! release decision and the release, the refill on the steal. Measured on the GPU (fib(40)):
//! a version with its own branches and broadcasts in the loop, inlined or not, was 6-7% slower
//! than the same kernel without them (more code and convergence regions in the loop, a plan
//! struct in local memory); this one is not.
//!
//! # Memory model
//!
//! The spilled tasks are published as a release publishes them (`docs/gpu-runtime.md`, path
//! 2): the marks, and the headers and frames written by this worker's earlier batches, come
//! before every thread's `fence.acq_rel.gpu`, which comes before the deque thread's release
//! store of `tail` (the threads synchronize in between). A refilling deque thread acquires
//! `tail`, claims by CAS on `head`, and fences before it reads the entries; its barrier with
//! the other threads of its worker (`bar.warp.sync` or `bar.sync`, which order memory among
//! the threads that take part) orders that acquire before their reads of the tasks in later
//! batches. The kept entries' new positions are private: written and read by this worker's
//! threads, ordered by its barriers; thieves read only the public part, which ends below
//! `first`, and the batch's kept tasks (above the old tail) are not touched.

use core::ptr::addr_of_mut;

use super::global_queue::GlobalQueues;
use super::layout::{DequeHeader, NONE};
use super::warp::{Warp, FULL};
use crate::arch::nvptx as a;

/// [`Warp::release_amount`]: the amount is a spill of `amount & !(SPILL | EXPORT)` entries.
pub(crate) const SPILL: u32 = 1 << 31;

/// With [`SPILL`]: the spill goes to this GPU's export queue, for another GPU that asked
/// for work (a multi-GPU run, `peer`), not to its overflow queue.
pub(crate) const EXPORT: u32 = 1 << 30;

/// In a release amount of the multi-GPU kernel: this worker served another GPU's request
/// (exported from its public part, or with [`EXPORT`] from its private part). The worker
/// loop clears it before the release.
pub(crate) const SERVED: u32 = 1 << 29;

/// An idle worker refills from the overflow queues only once its back-off has reached this
/// many nanoseconds (its fourth empty round in a row): the common idle path (the run's start
/// and end, a failed steal) pays nothing for queues that are almost always empty, and an idle
/// worker finds spilled tasks within a few microseconds.
pub(crate) const OVERFLOW_IDLE_NS: u32 = 256;

// Every allowed back-off bound reaches the refill's threshold.
const _: () = assert!(OVERFLOW_IDLE_NS <= super::layout::MIN_IDLE_MAX_NS);

/// Tasks a refill moves at most (a thread-level batch).
const REFILL_MAX: u32 = 32;

impl Warp {
    /// The deque thread, between batches: whether queue `q` may need a spill (its ring looks
    /// at least half full by the cached steal end). Cheap: two shared-memory loads.
    ///
    /// # Safety
    ///
    /// The deque thread (lane 0, thread 0 of a block-level worker; any scheduler).
    #[inline(always)]
    pub(crate) unsafe fn spill_due(&self, q: u32) -> bool {
        let sq = self.sm_queue(q);
        // SAFETY: this worker's shared words.
        // Ordering: relaxed, scope .cta; the deque thread's own words (the head cache is
        // stale-conservative: thieves only raise the real head).
        unsafe {
            a::ld_shared_u32(sq).wrapping_sub(a::ld_shared_u32(sq.add(1))) >= self.queue_cap / 2
        }
    }

    /// The deque thread, when [`Warp::spill_due`] or another GPU asked for work (`export`):
    /// plans a spill of queue `q` (module doc); returns `k`, the entries to spill, with
    /// [`EXPORT`] when they go to the export queue, or 0 (none due, or the reservation
    /// failed: an error is recorded); with [`SERVED`] when the request was served (from the
    /// public part, or by this export).
    ///
    /// # Safety
    ///
    /// As for [`Warp::spill_due`], after the batch's entries were counted as private.
    #[inline(always)]
    pub(crate) unsafe fn plan_spill(&self, q: u32, export: bool) -> u32 {
        // SAFETY: forwarded; this worker's own words and header.
        unsafe {
            plan_spill(
                export,
                self.sm_queue(q),
                self.sm_private(q),
                self.deque(self.warp, q),
                self.queue_cap,
                q,
                self.warp,
                self.lane,
            )
        }
    }

    /// Thread `rank` of `size` (every thread of the worker; `block` for a block-level one):
    /// carries out the spill of `k` entries of queue `q` its deque thread planned.
    ///
    /// # Safety
    ///
    /// Every thread of the worker calls it with the plan of this batch (`r`, the plan's
    /// count and [`EXPORT`] flag, not 0).
    #[inline(always)]
    pub(crate) unsafe fn spill_private(&self, q: u32, r: u32, rank: u32, size: u32, block: bool) {
        // SAFETY: forwarded.
        unsafe {
            spill(
                self.sm_queue(q),
                self.sm_private(q),
                self.ring(self.warp, q),
                self.queue_cap,
                self.slots,
                self.slot_bytes,
                q,
                r & !EXPORT,
                r & EXPORT != 0,
                rank,
                size,
                block,
            );
        }
    }

    /// The deque thread of an idle work-first worker: moves up to a batch of tasks from the
    /// first non-empty overflow queue, from `q0` on, onto this worker's private part.
    ///
    /// # Safety
    ///
    /// The deque thread, between batches, with nothing held.
    #[inline(always)]
    pub(crate) unsafe fn refill_from_overflow(&self, q0: u32) {
        // SAFETY: forwarded.
        unsafe {
            overflow_refill(
                self.smem.add(4),
                self.deque_rings,
                self.warp,
                self.queues,
                self.queue_cap,
                q0,
            );
        }
    }
}

/// [`Warp::plan_spill`] for queue `q` of a worker (its shared words `sq`, private count `pr`,
/// header `dq`, ring of `queue_cap` entries; `warp` and `lane` name it in an error).
///
/// # Safety
///
/// The deque thread of a work-first worker, between batches; the pointers are its own.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn plan_spill(
    export: bool,
    sq: a::SharedWord,
    pr: a::SharedWord,
    dq: *mut DequeHeader,
    queue_cap: u32,
    q: u32,
    warp: u32,
    lane: u32,
) -> u32 {
    // SAFETY: the params of the running kernel (`set_params` ran first).
    if unsafe { (*super::params()).overflow_spills } == 0 {
        // Spills are off for this run (block-level programs): the deque's capacity is the
        // limit, as `reserve` reports.
        return 0;
    }
    // SAFETY: the worker's own shared words and deque header; the overflow queue's header
    // (q < queues).
    unsafe {
        // Ordering: relaxed, scope .cta; the deque thread's own words.
        let tail = a::ld_shared_u32(sq);
        let private = a::ld_shared_u32(pr);
        // Ordering: relaxed, scope .gpu; thieves only raise it, stale is conservative.
        let head = a::ld_relaxed_gpu_u32(addr_of_mut!((*dq).head));
        a::st_shared_u32(sq.add(1), head);
        // An export (multi-GPU): another GPU asked and this worker serves the request, with
        // the oldest half of its public part (the largest tasks it holds) when it has one,
        // else with the oldest half of its private part.
        let public = export && super::peer::export_public(dq, q, warp);
        let export = export && !public && private > 1;
        let served = if public || export { SERVED } else { 0 };
        if private == 0 || (!export && tail.wrapping_sub(head) < queue_cap / 2) {
            return served;
        }
        let m = if export {
            private - private / 2
        } else {
            private / 4
        };
        let k = private - m;
        let base = if export {
            let c = (*super::params()).control as *mut super::layout::Control;
            // Ordering: relaxed, scope .gpu; a statistic the host reads after the run.
            a::atom_relaxed_gpu_add_u32(addr_of_mut!((*c).exported), k);
            super::peer::own_exports().reserve(q, k, warp, lane)
        } else {
            GlobalQueues::of_run().reserve(q, k, warp, lane)
        };
        if base == NONE {
            return 0;
        }
        a::st_shared_u32(sq, tail.wrapping_sub(private).wrapping_add(m));
        a::st_shared_u32(pr, m);
        // The generated word is free until the next batch's spawns (module doc).
        a::st_shared_u32(sq.add(2), base);
        if export {
            k | EXPORT | SERVED
        } else {
            k | served
        }
    }
}

/// [`Warp::spill_private`]: thread `rank` of `size` of a worker (`block`: a block-level worker, whose
/// barrier is `bar.sync`; else a warp, `bar.warp.sync`), queue `q` (shared words `sq`, `pr`;
/// `ring` of `queue_cap` entries), task slots at `slots` (`slot_bytes` each), `k` entries.
///
/// # Safety
///
/// Every thread of the worker calls it with the same `q` and `k`, after its deque thread's
/// [`plan_spill`] of this batch returned `k`.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
unsafe fn spill(
    sq: a::SharedWord,
    pr: a::SharedWord,
    ring: *mut u32,
    queue_cap: u32,
    slots: *mut u8,
    slot_bytes: usize,
    q: u32,
    k: u32,
    export: bool,
    rank: u32,
    size: u32,
    block: bool,
) {
    let sync = || {
        if block {
            a::bar_sync();
        } else {
            a::bar_warp_sync(FULL);
        }
    };
    // The deque thread's plan is in the shared words.
    sync();
    // SAFETY: this worker's shared words.
    // Ordering: relaxed, scope .cta; written by the deque thread before the barrier above.
    let (m, tail, base) = unsafe {
        (
            a::ld_shared_u32(pr),
            a::ld_shared_u32(sq),
            a::ld_shared_u32(sq.add(2)),
        )
    };
    let first = tail.wrapping_sub(m);
    let gq = if export {
        super::peer::own_exports()
    } else {
        GlobalQueues::of_run()
    };
    let mask = queue_cap - 1;
    let mut i = rank;
    while i < k {
        // SAFETY: a private entry of this worker's ring (the plan's oldest `k`); the task and
        // its ancestors are alive; a reserved overflow position.
        unsafe {
            let slot = ring.add((first.wrapping_add(i) & mask) as usize).read();
            super::deque::mark_shared(slots, slot_bytes, slot);
            gq.write(q, base.wrapping_add(i), slot);
        }
        i += size;
    }
    // Every spilled entry is read (and every thread read the plan) before the kept ones move
    // down over them and the deque thread clears the generated word.
    sync();
    let mut i = rank;
    while i < m {
        // SAFETY: the plan's kept entries and their new positions, disjoint (m <= k).
        unsafe {
            let from = ring.add((first.wrapping_add(k + i) & mask) as usize);
            ring.add((first.wrapping_add(i) & mask) as usize)
                .write(from.read());
        }
        i += size;
    }
    // Release side of the spill: every thread's marks and entries (and the tasks, written by
    // earlier batches) before the commit's release of `tail`.
    gq.fence();
    sync();
    if rank == 0 {
        // SAFETY: positions this worker reserved, written and fenced by every thread; the
        // worker's own shared word.
        unsafe {
            gq.commit(q, base, k);
            // Ordering: relaxed, scope .cta; counted from 0 again by the next batch's spawns.
            a::st_shared_u32(sq.add(2), 0);
        }
    }
}

/// [`Warp::refill_from_overflow`] for worker `warp`, whose queue words start at `sq0` (16
/// bytes a queue, then a private count a queue) and rings at `rings` (`queues` of `queue_cap`
/// entries per worker).
///
/// # Safety
///
/// The deque thread of a work-first worker, between batches, holding no task.
#[inline(never)]
unsafe fn overflow_refill(
    sq0: a::SharedWord,
    rings: *mut u32,
    warp: u32,
    queues: u32,
    queue_cap: u32,
    q0: u32,
) {
    let gq = GlobalQueues::of_run();
    for i in 0..queues {
        let q = (q0 + i) % queues;
        let g = gq.header(q);
        let sq = sq0.add(4 * q as usize);
        let pr = sq0.add(4 * queues as usize + q as usize);
        // SAFETY: q < queues; this worker's shared words and ring.
        unsafe {
            // Ordering: relaxed, scope .gpu; a cheap emptiness test (the pop decides).
            let h = a::ld_relaxed_gpu_u32(addr_of_mut!((*g).head));
            if a::ld_relaxed_gpu_u32(addr_of_mut!((*g).tail)) == h {
                continue;
            }
            // Room below half the ring (the cached steal end is conservative).
            // Ordering: relaxed, scope .cta; the deque thread's own words.
            let tail = a::ld_shared_u32(sq);
            let used = tail.wrapping_sub(a::ld_shared_u32(sq.add(1)));
            let room = (queue_cap / 2).saturating_sub(used).min(REFILL_MAX);
            if room == 0 {
                continue;
            }
            let (base, got) = gq.pop(q, room);
            if got == 0 {
                continue;
            }
            // Acquire side of the spiller's commit (this thread; the worker's barrier before
            // the next batch orders it for the others).
            gq.fence();
            let ring = rings.wrapping_add((warp * queues + q) as usize * queue_cap as usize);
            let mut n = 0;
            for j in 0..got {
                let slot = gq.take(q, base.wrapping_add(j));
                // A child a lane's clone handed off is this warp's only if its claim wins
                // over the lane taking it back (`worker/clone.rs`).
                if slot != NONE && crate::gpu::worker::claim_handed_off(slot) {
                    ring.add((tail.wrapping_add(n) & (queue_cap - 1)) as usize)
                        .write(slot);
                    n += 1;
                }
            }
            a::st_shared_u32(sq, tail.wrapping_add(n));
            a::st_shared_u32(pr, a::ld_shared_u32(pr) + n);
            return;
        }
    }
}
