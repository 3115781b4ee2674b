//! The courier: the one warp of each GPU of a multi-GPU run that reaches other GPUs (the
//! protocol and its memory-model argument: the parent module's doc and `docs/gpu-runtime.md`,
//! "Several GPUs").
//!
//! Each round it takes completions from its inbox (one a lane), forwards finished imports from
//! its outbox to their GPUs' inboxes, serves a peer's new request from its overflow queues,
//! and while its GPU is hungry imports from the peers' export queues or asks one of them.
//!
//! # Invariants
//!
//! - Every lane runs every round, converged: lane 0 claims and reserves, every lane takes,
//!   copies and writes its own entry, lane 0 commits after a warp barrier.
//! - The courier runs no tasks and holds none between rounds: everything it claims is pushed
//!   to an overflow, export or inbox queue in the same round.
//! - Its lanes own the import-table entries in stripes (`lane`, `lane + 32`, ...): an entry is
//!   written by its lane at an import and cleared by the same lane when the completion is
//!   forwarded.
//! - Programs without joins use no import table: an import is counted in this GPU's
//!   [`Control::live_here`] before its copies are published here, and acknowledged to the
//!   exporter after that, which then frees its records and uncounts them (the parent module's
//!   "Termination without joins").

use core::ptr::addr_of_mut;

use super::{
    exports_of, finish_root, import_entries, own_exports, peer, run, stop_everywhere,
    HUNGRY_REPORTS,
};
use crate::arch::nvptx as a;
use crate::gpu::global_queue::GlobalQueues;
use crate::gpu::layout::{
    is_slot, Control, Header, Params, ERR_PROTOCOL, FLAG_DONE, FLAG_SHARED, IMPORT_BASE, MAX_GPUS,
    NONE,
};
use crate::gpu::warp::{stop_requested, Warp, FULL};

/// Completions the courier takes from its inbox at once.
const INBOX_BATCH: u32 = 32;

/// Claims (of up to 32 tasks each) the courier makes in one round while its GPU is hungry.
const CLAIMS_PER_ROUND: u32 = 8;

/// Rounds a hungry courier waits for a request's exports before it asks again (a new epoch,
/// of the next peer).
const ASK_AGAIN_ROUNDS: u32 = 8;

/// The courier's pause between rounds: short while there is traffic, growing to the longest
/// when there is none.
const COURIER_MIN_NS: u32 = 256;
const COURIER_MAX_NS: u32 = 4096;

/// The courier: the last warp of this GPU's grid, every lane, after the warp's shared words
/// were initialized; returns when the run stops. Each round it takes completions from the
/// inbox, and while this GPU is hungry, takes back its own unclaimed exports, imports from
/// peers, or asks one peer for work (module doc). `joins`: the program's tasks join their
/// children (else they are detached, and the first GPU's courier detects the end).
///
/// # Safety
///
/// Every lane of worker `warp` (shared words at `smem`), converged, holding no task.
#[inline(never)]
pub(crate) unsafe fn courier(warp: u32, smem: a::SharedWord, joins: bool) {
    let p = run();
    let lane = a::lane_id();
    let w = Warp::new(p, warp, lane, smem);
    let c = p.control as *mut Control;
    // Import-table entries this lane owns: `lane`, `lane + 32`, ... below `entries`.
    let entries = import_entries(p);
    let mut cursor = lane;
    let mut pause = COURIER_MIN_NS;
    // Peers asked for work and not yet withdrawn (bit g), the next peer to ask, and the
    // epoch of this GPU's requests.
    let mut asked: u32 = 0;
    let mut next_ask = 1u32;
    let mut epoch = 0u32;
    let mut waited = ASK_AGAIN_ROUNDS;
    // Statistics (lane 0's): whether this GPU was hungry last round and since when, the time
    // it was hungry before (nanoseconds), and the requests it sent.
    let mut was_hungry = false;
    let mut hungry_since = 0u64;
    let mut hungry_ns = 0u64;
    let mut asks = 0u32;
    // The last request of another GPU this courier served from its overflow queues.
    let mut served = 0u32;
    // Until this time (lane 0's), the GPU asks no other for work (`Params::spread_after_ns`).
    let spread_from = a::globaltimer() + u64::from(p.spread_after_ns);
    let mut spreading = p.spread_after_ns == 0;
    loop {
        let mut stop = false;
        let mut hungry = false;
        let mut reports = 0u32;
        let mut moved = 0u32;
        if lane == 0 {
            stop = stop_requested(c);
            // SAFETY: the courier's own shared words; the control block.
            unsafe {
                w.refill_wf();
                // Ordering: relaxed, scope .gpu; the idle warps' reports (a hint), reset for
                // the next round.
                reports = a::ld_relaxed_gpu_u32(addr_of_mut!((*c).starving));
                if reports > 0 {
                    a::st_relaxed_gpu_u32(addr_of_mut!((*c).starving), 0);
                }
                if !spreading && reports >= HUNGRY_REPORTS {
                    spreading = a::globaltimer() >= spread_from;
                }
                hungry = reports >= HUNGRY_REPORTS && !stop && spreading;
                if hungry != was_hungry {
                    let now = a::globaltimer();
                    if hungry {
                        hungry_since = now;
                    } else {
                        hungry_ns += now.saturating_sub(hungry_since);
                    }
                    was_hungry = hungry;
                }
                if stop {
                    // Ordering: relaxed, scope .gpu; statistics the host reads after the
                    // kernel ended.
                    a::st_relaxed_gpu_u32(
                        addr_of_mut!((*c).hungry_us),
                        (hungry_ns / 1000).min(u64::from(u32::MAX)) as u32,
                    );
                    a::st_relaxed_gpu_u32(addr_of_mut!((*c).asks), asks);
                }
            }
        }
        // Lane 0's writes to the pool's shared words before the lanes free and allocate.
        a::bar_warp_sync(FULL);
        if a::shfl_sync_idx_b32(FULL, u32::from(stop), 0) != 0 {
            return;
        }
        if !joins && p.gpu == 0 && lane == 0 {
            // SAFETY: the control blocks of the run's GPUs.
            if unsafe { every_count_zero(p) } {
                // SAFETY: as above.
                unsafe { stop_everywhere(p) };
            }
        }
        // SAFETY: every lane, converged; the inbox and the outbox (module doc).
        moved += unsafe { w.take_completions(p, joins) + w.forward_completions(p) };
        let mut request = 0;
        if lane == 0 {
            // SAFETY: the control block.
            // Ordering: relaxed, scope .sys; another GPU's request (a hint).
            request = unsafe { a::ld_relaxed_sys_u32(addr_of_mut!((*c).hungry)) };
        }
        let request = a::shfl_sync_idx_b32(FULL, request, 0);
        if request != served {
            served = request;
            if request != 0 {
                // The oldest tasks this GPU spilled (the largest waiting here) go first.
                // SAFETY: every lane, converged.
                moved += unsafe { w.export_overflow(p) };
            }
        }
        let hungry = a::shfl_sync_idx_b32(FULL, u32::from(hungry), 0) != 0;
        if hungry {
            // SAFETY: every lane, converged; forwarded.
            let got = unsafe { w.import_round(p, &mut cursor, entries, joins) };
            moved += got;
            if got > 0 {
                waited = 0;
            } else {
                waited += 1;
            }
            if lane == 0 && waited >= ASK_AGAIN_ROUNDS {
                // Nothing exported anywhere for a while: ask one peer, rotating.
                waited = 0;
                let g = (p.gpu + next_ask) % p.gpus;
                next_ask = next_ask % (p.gpus - 1) + 1;
                // SAFETY: g < gpus, another GPU; its control block.
                unsafe {
                    let pc = peer(p, g).control as *mut Control;
                    // Ordering: relaxed, scope .sys; a request (a hint: the export queue's
                    // commit publishes what it brings). A new epoch makes every chosen warp
                    // export once more.
                    epoch = epoch.wrapping_add(1) & 0x00FF_FFFF;
                    let share = (reports * 4).min(255);
                    a::st_relaxed_sys_u32(addr_of_mut!((*pc).hungry), (epoch.max(1) << 8) | share);
                }
                asked |= 1 << g;
                asks += 1;
            }
        } else if lane == 0 && asked != 0 {
            // Work again: withdraw the requests still standing, so that busy peers do not
            // keep exporting to a GPU that does not need it.
            for g in 0..p.gpus {
                if asked & (1 << g) != 0 {
                    // SAFETY: g < gpus; its control block.
                    // Ordering: relaxed, scope .sys; a hint (an exporter that took a unit
                    // before this store still exports, and any courier may import it).
                    unsafe {
                        let pc = peer(p, g).control as *mut Control;
                        a::st_relaxed_sys_u32(addr_of_mut!((*pc).hungry), 0);
                    }
                }
            }
            asked = 0;
            waited = ASK_AGAIN_ROUNDS;
        } else if !hungry {
            waited = ASK_AGAIN_ROUNDS;
        }
        let moved = a::shfl_sync_idx_b32(FULL, moved, 0);
        // The lanes' allocations before lane 0 clamps the pool's words next round.
        a::bar_warp_sync(FULL);
        if moved > 0 {
            pause = COURIER_MIN_NS;
        } else {
            a::nanosleep(pause);
            pause = (pause * 2).min(COURIER_MAX_NS);
        }
    }
}

impl Warp {
    /// The courier, every lane (converged): takes up to [`INBOX_BATCH`] completions from this
    /// GPU's inbox, one a lane, completes each exported task, and pushes the parents that
    /// became ready to the overflow queues; how many completions. Without joins an entry is
    /// an import's acknowledgement: the exported record is freed and uncounted.
    unsafe fn take_completions(&self, p: &Params, joins: bool) -> u32 {
        // SAFETY: this GPU's entry of the peer table.
        let inbox = GlobalQueues::inbox_of(unsafe { &peer(p, p.gpu) });
        let (mut base, mut got) = (0, 0);
        if self.lane == 0 {
            // SAFETY: the inbox's one queue.
            (base, got) = unsafe { inbox.pop(0, INBOX_BATCH) };
        }
        let got = a::shfl_sync_idx_b32(FULL, got, 0);
        if got == 0 {
            return 0;
        }
        let base = a::shfl_sync_idx_b32(FULL, base, 0);
        // Acquire side of the importers' commits (lane 0 acquired `tail`; the barrier orders
        // that before every lane's fence): the results of the exported tasks.
        a::bar_warp_sync(FULL);
        inbox.fence();
        let mut ready = NONE;
        let mut ready_q = 0;
        let mut slot = NONE;
        if self.lane < got {
            // SAFETY: a claimed position, fenced.
            slot = unsafe { inbox.take(0, base.wrapping_add(self.lane)) };
        }
        if !joins {
            if slot != NONE {
                // SAFETY: this GPU's exported record, copied by the importer, taken by this
                // lane alone; the courier is between rounds (its free stack is clamped).
                unsafe { self.free_one_wf(slot) };
            }
            let acked = a::vote_sync_ballot_b32(FULL, slot != NONE).count_ones();
            if self.lane == 0 && acked > 0 {
                // SAFETY: the control block.
                // Ordering: relaxed, scope .sys (the first GPU's wave reads it); after the
                // inbox's acquire, so after the importer counted the copies in its own word:
                // the exported tasks were counted here until then.
                unsafe {
                    a::atom_relaxed_sys_add_u64(
                        addr_of_mut!((*self.control).live_here),
                        (-i64::from(acked)) as u64,
                    )
                };
            }
            return got;
        }
        if slot != NONE {
            // SAFETY: a completed export of this GPU, taken by this lane alone.
            ready = unsafe { self.complete_export(slot) };
            if ready != NONE {
                // SAFETY: a live task of this GPU (acquired by the join).
                ready_q = u32::from(unsafe { (*self.header(ready)).queue });
            }
        }
        for q in 0..p.queues {
            let mine = if ready_q == q { ready } else { NONE };
            // SAFETY: every lane, converged; q < queues.
            unsafe { self.push_lanes(GlobalQueues::of_run(), q, mine) };
        }
        got
    }

    /// The courier, every lane (converged): takes up to 32 completed imports from this GPU's
    /// outbox, one a lane, and sends each to the inbox of the GPU it came from (one
    /// reservation and one commit per GPU), then frees their import-table entries; how many.
    unsafe fn forward_completions(&self, p: &Params) -> u32 {
        let outbox = GlobalQueues::outbox_of(p);
        let (mut base, mut got) = (0, 0);
        if self.lane == 0 {
            // SAFETY: the outbox's one queue.
            (base, got) = unsafe { outbox.pop(0, 32) };
        }
        let got = a::shfl_sync_idx_b32(FULL, got, 0);
        if got == 0 {
            return 0;
        }
        let base = a::shfl_sync_idx_b32(FULL, base, 0);
        // Acquire side of the finishing threads' commits (lane 0 acquired `tail`; the
        // barrier orders that before every lane's fence): the results they wrote.
        a::bar_warp_sync(FULL);
        outbox.fence();
        let table = p.imports as *mut u64;
        let (mut g, mut slot, mut e) = (NONE, NONE, NONE);
        if self.lane < got {
            // SAFETY: a claimed position, fenced.
            e = unsafe { outbox.take(0, base.wrapping_add(self.lane)) };
            if e != NONE {
                // SAFETY: an entry below `import_entries` (`finish_root` checked it).
                // Plain: written by the importer before the task was pushed on this GPU
                // (ordered to us through the task's publication, its subtree's joins and the
                // outbox).
                let v = unsafe { table.add(e as usize).read() };
                g = ((v >> 32) as u32).wrapping_sub(1);
                slot = v as u32;
                if v == 0 || g >= p.gpus || g == p.gpu {
                    self.record_error(ERR_PROTOCOL, 0, 0, IMPORT_BASE + e);
                    g = NONE;
                }
            }
        }
        for dest in 0..p.gpus {
            if dest != p.gpu {
                // SAFETY: every lane, converged; dest < gpus.
                unsafe { self.push_inbox(p, dest, if g == dest { slot } else { NONE }) };
            }
        }
        if e != NONE {
            // SAFETY: this lane's entry of the table.
            // Ordering: relaxed, scope .gpu; a free entry for this GPU's courier (the same
            // warp: program order and its barriers order the read above before the reuse).
            unsafe { a::st_relaxed_gpu_u64(table.add(e as usize), 0) };
        }
        got
    }

    /// The courier, every lane (converged): pushes each lane's `slot` (those that are not
    /// [`NONE`]) to the completion inbox of GPU `dest` (another GPU), in one reservation and
    /// one commit.
    unsafe fn push_inbox(&self, p: &Params, dest: u32, mine: u32) {
        let mask = a::vote_sync_ballot_b32(FULL, mine != NONE);
        if mask == 0 {
            return;
        }
        // SAFETY: dest < gpus.
        let inbox = GlobalQueues::inbox_of(unsafe { &peer(p, dest) });
        let mut at = 0;
        if self.lane == 0 {
            // SAFETY: the inbox's one queue.
            at = unsafe { inbox.reserve(0, mask.count_ones(), self.warp, 0) };
        }
        let at = a::shfl_sync_idx_b32(FULL, at, 0);
        if at == NONE {
            return;
        }
        if mine != NONE {
            let rank = (mask & a::lanemask_lt()).count_ones();
            // SAFETY: a reserved position, written by this lane alone.
            unsafe { inbox.write(0, at.wrapping_add(rank), mine) };
        }
        // Release side of the completions (or acknowledgements): every result this warp
        // acquired, this GPU's count of the imports, and the entries, before the commit's
        // `.sys` release that the exporter's courier acquires.
        inbox.fence();
        a::bar_warp_sync(FULL);
        if self.lane == 0 {
            // SAFETY: positions this warp reserved and wrote.
            unsafe { inbox.commit(0, at, mask.count_ones()) };
        }
    }

    /// The courier, every lane (converged): pushes each lane's `slot` (those that are not
    /// [`NONE`]) to queue `q` of `gq` (this GPU's overflow or export queues), in one
    /// reservation and one commit. The tasks' ancestors are marked (they came through another
    /// GPU, were resumed by one, or were spilled), so they may go where any worker takes
    /// them.
    unsafe fn push_lanes(&self, gq: GlobalQueues, q: u32, slot: u32) {
        let mask = a::vote_sync_ballot_b32(FULL, slot != NONE);
        if mask == 0 {
            return;
        }
        let mut at = 0;
        if self.lane == 0 {
            // SAFETY: q < queues.
            at = unsafe { gq.reserve(q, mask.count_ones(), self.warp, 0) };
        }
        let at = a::shfl_sync_idx_b32(FULL, at, 0);
        if at == NONE {
            return;
        }
        if slot != NONE {
            let rank = (mask & a::lanemask_lt()).count_ones();
            // SAFETY: a reserved position, written by this lane alone.
            unsafe { gq.write(q, at.wrapping_add(rank), slot) };
        }
        // Release side of the push: the tasks (and this lane's writes to them), before the
        // commit's release of `tail`.
        gq.fence();
        a::bar_warp_sync(FULL);
        if self.lane == 0 {
            // SAFETY: positions this warp reserved and wrote.
            unsafe { gq.commit(q, at, mask.count_ones()) };
        }
    }

    /// One lane of the courier, after the inbox's acquire: the exported task `slot` (a
    /// placeholder: another GPU ran it) finished. Frees it and completes its parent's join on
    /// the shared path, upwards while a parent whose body had returned loses its last child;
    /// returns the parent that became ready to run, or [`NONE`].
    unsafe fn complete_export(&self, slot: u32) -> u32 {
        // SAFETY: for the whole body, the placeholder and its suspended ancestors are alive (their
        // joins wait for it); the courier is between rounds (its free stack is clamped).
        unsafe {
            let mut parent = (*self.header(slot)).parent;
            self.free_one_wf(slot);
            loop {
                if !is_slot(parent) {
                    finish_root(parent);
                    return NONE;
                }
                let ph: *mut Header = self.header(parent);
                if (*ph).flags & FLAG_SHARED == 0 {
                    // A task that left its warp has marked ancestors (`deque.rs`).
                    self.record_error(ERR_PROTOCOL, (*ph).kind, 0, parent);
                    return NONE;
                }
                // Release side of the shared join (the results this thread acquired).
                a::fence_acq_rel_gpu();
                // Ordering: relaxed, scope .gpu, after the fence (a release pattern); the RMWs
                // on `pending` form a release sequence (`join.rs`).
                let old = a::atom_relaxed_gpu_add_u32(addr_of_mut!((*ph).pending), u32::MAX);
                if old != 1 {
                    return NONE;
                }
                // Acquire side: the other children's results, and the parent's header.
                a::fence_acq_rel_gpu();
                if (*ph).flags & FLAG_DONE != 0 {
                    let next = (*ph).parent;
                    self.free_one_wf(parent);
                    parent = next;
                    continue;
                }
                return parent;
            }
        }
    }

    /// The courier, every lane (converged), when another GPU asked this one for work: moves
    /// up to 32 of the oldest tasks of each overflow queue to the export queue of the same
    /// index; how many.
    unsafe fn export_overflow(&self, p: &Params) -> u32 {
        let gq = GlobalQueues::of_run();
        let ex = own_exports();
        let mut moved = 0;
        for q in 0..p.queues {
            let (mut base, mut got) = (0, 0);
            if self.lane == 0 {
                // SAFETY: q < queues.
                (base, got) = unsafe { gq.pop(q, 32) };
            }
            let got = a::shfl_sync_idx_b32(FULL, got, 0);
            if got == 0 {
                continue;
            }
            let base = a::shfl_sync_idx_b32(FULL, base, 0);
            // Acquire side of the spillers' commits (lane 0 acquired `tail`; the barrier
            // orders that before every lane's fence).
            a::bar_warp_sync(FULL);
            gq.fence();
            let mut slot = NONE;
            if self.lane < got {
                // SAFETY: a claimed position, fenced.
                slot = unsafe { gq.take(q, base.wrapping_add(self.lane)) };
            }
            // SAFETY: every lane, converged; q < queues. The export's `.sys` fence and
            // release publish what this warp acquired.
            unsafe { self.push_lanes(ex, q, slot) };
            if self.lane == 0 {
                // SAFETY: the control block.
                // Ordering: relaxed, scope .gpu; a statistic the host reads after the run.
                unsafe { a::atom_relaxed_gpu_add_u32(addr_of_mut!((*self.control).exported), got) };
            }
            moved += got;
        }
        moved
    }

    /// The courier, every lane (converged), while its GPU is hungry: up to
    /// [`CLAIMS_PER_ROUND`] claims of up to 32 tasks, first from this GPU's own export queues
    /// (moved to its overflow queues as they are), then from the peers' (imported); returns
    /// the tasks moved.
    unsafe fn import_round(&self, p: &Params, cursor: &mut u32, entries: u32, joins: bool) -> u32 {
        let mut moved = 0;
        for _ in 0..CLAIMS_PER_ROUND {
            // A free import-table entry for each lane (this lane's own, from its cursor);
            // detached tasks need none.
            let free = if joins {
                self.free_entry(p, cursor, entries)
            } else {
                0
            };
            let room = a::vote_sync_ballot_b32(FULL, free != NONE);
            let mut got = 0;
            let mut base = 0;
            let mut g = p.gpu;
            let mut q = 0;
            if self.lane == 0 {
                // SAFETY: for the whole block, g < gpus; q < queues.
                unsafe {
                    'find: for k in 0..p.gpus {
                        g = (p.gpu + k) % p.gpus;
                        // Our own exports move without a copy; a peer's take an entry each.
                        let max = if k == 0 { 32 } else { room.count_ones() };
                        if max == 0 {
                            continue;
                        }
                        let ex = exports_of(p, g);
                        for i in 0..p.queues {
                            (base, got) = ex.pop(i, max);
                            if got > 0 {
                                q = i;
                                break 'find;
                            }
                        }
                    }
                }
            }
            let got = a::shfl_sync_idx_b32(FULL, got, 0);
            if got == 0 {
                break;
            }
            let base = a::shfl_sync_idx_b32(FULL, base, 0);
            let g = a::shfl_sync_idx_b32(FULL, g, 0);
            let q = a::shfl_sync_idx_b32(FULL, q, 0);
            // SAFETY: claimed positions of GPU g's export queue q; every lane, converged.
            unsafe { self.move_claimed(p, g, q, base, got, room, free, joins) };
            moved += got;
        }
        moved
    }

    /// One lane of the courier: a free entry of its share of the import table (from
    /// `cursor` on, a bounded look), or [`NONE`].
    fn free_entry(&self, p: &Params, cursor: &mut u32, entries: u32) -> u32 {
        let table = p.imports as *mut u64;
        for _ in 0..8 {
            let e = *cursor;
            *cursor += 32;
            if *cursor >= entries {
                *cursor = self.lane;
            }
            if e >= entries {
                continue;
            }
            // SAFETY: an entry of the table (e < entries).
            // Ordering: relaxed, scope .gpu; cleared by the thread that completes an import
            // (coherence orders that clear after everything the import's subtree did).
            if unsafe { a::ld_relaxed_gpu_u64(table.add(e as usize)) } == 0 {
                return e;
            }
        }
        NONE
    }

    /// The courier, every lane (converged), after lane 0 claimed `[base, base + got)` of GPU
    /// `g`'s export queue `q`: moves the tasks to this GPU's overflow queue `q`, copying each
    /// into a slot of this GPU's pool when `g` is another GPU (lanes with a free entry in
    /// `room`, `free` this lane's). Without `joins`, the copies are counted here before they
    /// are published, and acknowledged to `g` after.
    #[allow(clippy::too_many_arguments)]
    unsafe fn move_claimed(
        &self,
        p: &Params,
        g: u32,
        q: u32,
        base: u32,
        got: u32,
        room: u32,
        free: u32,
        joins: bool,
    ) {
        // SAFETY: g < gpus.
        let ex = unsafe { exports_of(p, g) };
        // Acquire side of the exporters' commits (lane 0 acquired `tail`; the barrier orders
        // that before every lane's fence): the tasks' records.
        a::bar_warp_sync(FULL);
        ex.fence();
        // This lane's task: the rank-th claimed entry, by own export (every lane up to
        // `got`) or by rank among the lanes with a free import entry.
        let rank = if g == p.gpu {
            self.lane
        } else if free != NONE {
            (room & a::lanemask_lt()).count_ones()
        } else {
            NONE
        };
        let mut slot = NONE;
        let mut remote = NONE;
        if rank < got {
            // SAFETY: a claimed position, fenced.
            remote = unsafe { ex.take(q, base.wrapping_add(rank)) };
            if remote != NONE {
                slot = if g == p.gpu {
                    remote
                } else {
                    // SAFETY: GPU g's task `remote`, acquired; this lane's free entry.
                    unsafe { self.import_one(p, g, remote, free, joins) }
                };
            }
        }
        let copies = a::vote_sync_ballot_b32(FULL, slot != NONE).count_ones();
        if !joins && g != p.gpu && self.lane == 0 && copies > 0 {
            // SAFETY: the control block.
            // Ordering: relaxed, scope .sys (the first GPU's wave reads it); before the
            // copies' publication below (program order, then its fence and release), so a
            // worker that finishes one uncounts it after this count; the import count in the
            // high half tells the wave that tasks arrived.
            unsafe {
                a::atom_relaxed_sys_add_u64(
                    addr_of_mut!((*self.control).live_here),
                    (1u64 << 32) + u64::from(copies),
                )
            };
        }
        // A lane whose import failed (an error is recorded) pushes nothing; the run is
        // stopping.
        // SAFETY: every lane, converged; q < queues.
        unsafe { self.push_lanes(GlobalQueues::of_run(), q, slot) };
        if !joins && g != p.gpu {
            // The acknowledgements, after the count above: `g` frees and uncounts its records.
            let copied = if slot != NONE { remote } else { NONE };
            // SAFETY: every lane, converged; g is another GPU of the run.
            unsafe { self.push_inbox(p, g, copied) };
        }
        if self.lane == 0 && g != p.gpu {
            // SAFETY: the control block.
            // Ordering: relaxed, scope .gpu; statistics the host reads after the run.
            unsafe {
                a::atom_relaxed_gpu_add_u32(addr_of_mut!((*self.control).imported), got);
                a::atom_relaxed_gpu_add_u32(addr_of_mut!((*self.control).import_claims), 1);
            }
        }
    }

    /// One lane of the courier: copies GPU `g`'s task `remote` (claimed and acquired) into a
    /// slot of this GPU's pool as an import (with `joins`, parent `IMPORT_BASE + entry`, the
    /// entry recording `(g, remote)`; a detached task has no parent); the local slot, or
    /// [`NONE`] when none was left (an error is recorded).
    unsafe fn import_one(&self, p: &Params, g: u32, remote: u32, entry: u32, joins: bool) -> u32 {
        // SAFETY: for the whole body, GPU g's slot `remote` (acquired by the caller's fence);
        // a fresh local slot; this lane's free table entry.
        unsafe {
            let from = (peer(p, g).slots as *const u8)
                .add(remote as usize * self.slot_bytes)
                .cast::<Header>();
            let local = self.alloc_wf((*from).kind);
            if local == NONE {
                return NONE;
            }
            let to = self.header(local);
            let words = self.slot_bytes / 8;
            let (src, dst) = (from.cast::<u64>(), to.cast::<u64>());
            for x in 4..words {
                dst.add(x).write(src.add(x).read());
            }
            (*to).kind = (*from).kind;
            (*to).state = (*from).state;
            (*to).queue = (*from).queue;
            (*to).pending = 0;
            (*to).parent = if joins { IMPORT_BASE + entry } else { NONE };
            (*to).flags = 0;
            (*to).result_dst = (*from).result_dst;
            if joins {
                // Plain: read by whoever completes the import, after the task's publication
                // here.
                (p.imports as *mut u64)
                    .add(entry as usize)
                    .write((u64::from(g) + 1) << 32 | u64::from(remote));
            }
            local
        }
    }
}

/// The first GPU's courier, lane 0, in a run of a program without joins: whether every GPU's
/// live count is 0 at once, so that no task is left anywhere (the parent module's
/// "Termination without joins"). Two waves read every GPU's [`Control::live_here`]; the
/// answer is yes when every count read is 0 and each word read the same in both waves (its
/// import count unchanged: no task arrived on that GPU between its two reads).
///
/// # Safety
///
/// The run has several GPUs; their control blocks are valid.
unsafe fn every_count_zero(p: &Params) -> bool {
    let c = p.control as *mut Control;
    // SAFETY: for the whole body, this GPU's and the peers' control blocks.
    unsafe {
        // Ordering: relaxed, scope .sys; the words are counts, and the argument is over their
        // coherence orders (module doc of `peer`).
        if a::ld_relaxed_sys_u64(addr_of_mut!((*c).live_here)) as u32 != 0 {
            return false;
        }
        let gpus = (p.gpus as usize).min(MAX_GPUS);
        let word = |g: usize| {
            let pc = peer(p, g as u32).control as *mut Control;
            // Ordering: as above.
            a::ld_relaxed_sys_u64(addr_of_mut!((*pc).live_here))
        };
        let mut first = [0u64; MAX_GPUS];
        for (g, w) in first.iter_mut().enumerate().take(gpus) {
            *w = word(g);
            if *w as u32 != 0 {
                return false;
            }
        }
        // The first wave's reads before the second's (sequentially consistent fence, system
        // scope): each second read sees its word at or after the first read's value.
        a::fence_sc_sys();
        first
            .iter()
            .take(gpus)
            .enumerate()
            .all(|(g, &w)| word(g) == w)
    }
}
