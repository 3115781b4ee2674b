//! Work across GPUs: one task tree on the persistent kernels of several GPUs (or of several
//! partitions of one GPU, which run the same code), with work moving between them only
//! through two channels in memory every GPU of the run maps.
//!
//! Each GPU runs the work-first scheduler on its own pools and deques, with device-scope
//! protocols, exactly as on one GPU. Nothing of another GPU is touched on the common path:
//! no task slot, deque or pool is shared, and no device-scope atomic ever meets one of
//! another GPU (two atomics of different GPUs are morally strong only at system scope, so
//! every word that GPUs share is accessed at system scope by all of them).
//!
//! # The channels
//!
//! - **Export** (the victim GPU `V`): `V`'s overflow queues, whose accesses are all at system
//!   scope in a multi-GPU run (`global_queue.rs`). An idle GPU `T` that finds nothing asks
//!   `V` for [`REQUEST_EXPORTS`] exports (`V`'s [`Control::hungry`]). Every busy warp of `V`
//!   reads it at the start of its batch (the multi-GPU kernel only); a warp whose release
//!   decision sees it takes one unit ([`take_request`]) and spills the oldest three quarters
//!   of its private part to its overflow queue (`overflow.rs`, the spill marks them shared).
//!   A warp of `V` whose local steal claims a batch while units are left exports that batch
//!   instead of running it ([`export_stolen`]).
//! - **Import** (`T`, lane 0 of an idle warp, [`peer_work`]): claims up to
//!   [`IMPORTS_PER_WARP`] entries from a peer's overflow queue, copies each task's record
//!   (header and frame) into a slot of its own, with the parent `IMPORT_BASE + i` (`i` an
//!   entry of `T`'s import table, which keeps `(V, V's slot)`), and pushes the copies on its
//!   private part. `V`'s slot stays allocated, a placeholder for the task, whose parent waits
//!   for it as for any child.
//! - **Completion**: the copy and its subtree run on `T` like any task; its result goes
//!   through its result pointer, an address in `V`'s memory (peer access). When it completes,
//!   the join finds the import marker instead of a slot ([`finish_root`]): the finishing thread
//!   fences at system scope and pushes `V`'s slot to `V`'s *completion inbox* (a ring with the
//!   global-queue protocol, system scope). An idle warp of `V` ([`peer_work`]) claims it,
//!   frees the placeholder and completes the parent's join on the shared path of `join.rs`
//!   (the parent is marked shared: its child was released before it was stolen).
//! - **End**: when the root (on GPU 0) completes, [`finish_root`] stores `done` on every GPU.
//!   A device error stops its own GPU; the host stops the others (`abort`).
//!
//! # Memory model (the argument in full: `docs/gpu-runtime.md`, "Several GPUs")
//!
//! Export: the exporter's claim on the local deque (acquire, `.gpu`) orders the tasks' records
//! before it; its `fence.acq_rel.sys` and the release of the overflow queue's `tail` (`.sys`)
//! publish them to the importer, which acquires `tail` (`.sys`) and fences (`.sys`) before it
//! copies them. Completion: the result is written (a plain store to the exporter's memory)
//! before the thread that completes the import fences at system scope and commits the inbox
//! entry with a `.sys` release; the exporter's warp acquires it and fences at system scope,
//! then runs the device-scope shared join. Causality order is transitive across these
//! morally strong pairs, so the parent resumes after its child's result.

use core::ptr::addr_of_mut;

use super::global_queue::GlobalQueues;
use super::layout::{
    is_slot, Control, Header, Params, PeerInfo, ERR_PROTOCOL, FLAG_DONE, FLAG_SHARED,
    IMPORTS_PER_WARP, IMPORT_BASE, IMPORT_WARPS, NONE,
};
use super::warp::Warp;
use crate::arch::nvptx as a;

/// Exports one request asks for: that many warps of the asked GPU export (each three
/// quarters of its private part), so that a GPU whose warps all ran dry is fed by a burst,
/// not one warp's tasks per round trip.
const REQUEST_EXPORTS: u32 = 32;

/// Completions an idle warp takes from the inbox at once.
const INBOX_BATCH: u32 = 32;

/// The running kernel's params (read from memory: every function here is on a cold path).
#[inline(always)]
fn run() -> &'static Params {
    // SAFETY: the params of the running kernel (`set_params` ran first); valid for the run.
    unsafe { &*super::params() }
}

/// GPU `g`'s entry of the peer table.
///
/// # Safety
///
/// `g < p.gpus` and the run has several GPUs.
#[inline(always)]
unsafe fn peer(p: &Params, g: u32) -> PeerInfo {
    // SAFETY: the host wrote `gpus` entries.
    unsafe { (p.peers as *const PeerInfo).add(g as usize).read() }
}

/// Lane 0 of a warp that has just claimed `got` entries from position `head` of a local deque
/// (`ring`, `queue_cap` entries, EPAQ queue `q`), holding that deque's steal lock: when another
/// GPU asked for work, exports the entries to this GPU's overflow queue `q` and returns true
/// (the caller then releases the victim's steal end and runs nothing). False on one GPU.
///
/// # Safety
///
/// As described; the entries are claimed (acquired) by this thread.
#[inline(never)]
pub(crate) unsafe fn export_stolen(
    ring: *mut u32,
    queue_cap: u32,
    q: u32,
    head: u32,
    got: u32,
    warp: u32,
) -> bool {
    let p = run();
    if p.gpus < 2 {
        return false;
    }
    let c = p.control as *mut Control;
    // SAFETY: the control block; claimed ring entries; a reserved overflow range.
    unsafe {
        // One unit of another GPU's request (see `take_request`).
        if !take_request() {
            return false;
        }
        let gq = GlobalQueues::of_run();
        let base = gq.reserve(q, got, warp, 0);
        if base == NONE {
            // Recorded as an error (the ring holds every slot, so only a broken run gets
            // here); the caller runs the batch while the run drains.
            return false;
        }
        for j in 0..got {
            let slot = ring
                .add((head.wrapping_add(j) & (queue_cap - 1)) as usize)
                .read();
            gq.write(q, base.wrapping_add(j), slot);
        }
        // Release side of the export: the tasks' records (acquired by our claim) and the
        // entries, before the commit's `.sys` release of `tail` that importers acquire.
        gq.fence();
        gq.commit(q, base, got);
        // Ordering: relaxed, scope .gpu; a statistic the host reads after the run.
        a::atom_relaxed_gpu_add_u32(addr_of_mut!((*c).exported), got);
    }
    true
}

/// The deque thread of a worker that saw this GPU's [`Control::hungry`] set and has private
/// tasks to export: takes the request (one exporter per request); whether it did.
pub(crate) unsafe fn take_request() -> bool {
    let c = run().control as *mut Control;
    // SAFETY: the control block.
    unsafe {
        loop {
            // Ordering: relaxed, scope .sys; the CAS decides (the export's publication is the
            // overflow queue's commit, at system scope).
            let v = a::ld_relaxed_sys_u32(addr_of_mut!((*c).hungry));
            if v == 0 {
                return false;
            }
            // Ordering: relaxed, scope .sys; one exporter per unit of the request.
            if a::atom_relaxed_sys_cas_u32(addr_of_mut!((*c).hungry), v, v - 1) == v {
                return true;
            }
        }
    }
}

/// The join reached a parent that is not a slot (`parent` is [`NONE`] or an import marker,
/// see `layout::IMPORT_BASE`): the root is done, or an imported task is.
///
/// # Safety
///
/// Called by the thread that completed the task whose parent this is, after the task's result
/// was written (program order, or the shared join's fences).
#[inline(never)]
pub(crate) unsafe fn finish_root(parent: u32) {
    let p = run();
    let c = p.control as *mut Control;
    // SAFETY: the control block, the peer table, the import table.
    unsafe {
        if parent == NONE {
            // Ordering: release, scope .gpu; the root's result is written before.
            a::st_release_gpu_u32(addr_of_mut!((*c).done), 1);
            if p.gpus > 1 {
                // Every GPU stops: nothing of the tree is left anywhere (every import's
                // completion was counted in an ancestor's join before the root completed).
                // Ordering: release, scope .sys; the other GPUs read results only on the host.
                for g in 0..p.gpus {
                    if g != p.gpu {
                        let pc = peer(p, g).control as *mut Control;
                        a::st_release_sys_u32(addr_of_mut!((*pc).done), 1);
                    }
                }
            }
            return;
        }
        let e = (p.imports as *mut u64).add((parent - IMPORT_BASE) as usize);
        // Plain: written by the importer before the task was pushed on this GPU (ordered to
        // us through that task's publication and its subtree's joins).
        let v = e.read();
        // Ordering: relaxed, scope .gpu; the importing warp reuses the entry once it reads 0.
        a::st_relaxed_gpu_u64(e, 0);
        let (g, slot) = (((v >> 32) as u32).wrapping_sub(1), v as u32);
        if v == 0 || g >= p.gpus {
            super::warp::record_error(c, p.error as *mut _, ERR_PROTOCOL, 0, 0, 0, 0, parent);
            return;
        }
        // Release side of the completion: the result (written into GPU g's memory) and
        // everything this thread has seen, before the inbox entry.
        a::fence_acq_rel_sys();
        let inbox = GlobalQueues::inbox_of(&peer(p, g));
        let pos = inbox.reserve(0, 1, 0, 0);
        if pos == NONE {
            return;
        }
        inbox.write(0, pos, slot);
        inbox.fence();
        inbox.commit(0, pos, 1);
    }
}

/// Lane 0 of an idle warp whose steals and overflow refill found nothing (the warp's
/// `smem`, EPAQ queue `q0` first): takes this GPU's completed exports from its inbox, then,
/// if its private part is still empty, imports tasks from another GPU, or asks one for
/// work. Nothing on one GPU.
///
/// # Safety
///
/// Lane 0 of worker `warp` (thread-level, work first), between batches, holding no task.
#[inline(never)]
pub(crate) unsafe fn peer_work(warp: u32, smem: a::SharedWord, q0: u32) {
    let p = run();
    if p.gpus < 2 {
        return;
    }
    let w = Warp::new(p, warp, 0, smem);
    // SAFETY: forwarded; this warp's own words.
    unsafe {
        // The pools' shared words as a batch's end leaves them (allocations below may race
        // the top below zero, which the next call or batch end clamps again).
        w.refill_wf();
        let me = peer(p, p.gpu);
        let inbox = GlobalQueues::inbox_of(&me);
        let (base, got) = inbox.pop(0, INBOX_BATCH);
        if got > 0 {
            // Acquire side of the importers' commits: the results of the exported tasks.
            inbox.fence();
            for j in 0..got {
                let slot = inbox.take(0, base.wrapping_add(j));
                if slot != NONE {
                    w.complete_export(slot);
                }
            }
        }
        if w.private_total() > 0 || warp >= IMPORT_WARPS {
            return;
        }
        w.import(p, q0);
    }
}

impl Warp {
    /// Tasks in this warp's private parts.
    unsafe fn private_total(&self) -> u32 {
        let mut n = 0;
        for q in 0..self.queues {
            // SAFETY: this warp's shared words.
            // Ordering: relaxed, scope .cta; the deque thread's own words.
            n += unsafe { a::ld_shared_u32(self.sm_private(q)) };
        }
        n
    }

    /// Lane 0, between batches: puts the ready task `slot` on this warp's private part of
    /// queue `q`, or on the overflow queue `q` when the ring is half full (it always has room).
    unsafe fn push_ready(&self, q: u32, slot: u32) {
        let sq = self.sm_queue(q);
        let pr = self.sm_private(q);
        // SAFETY: this warp's shared words and ring; the overflow queue q < queues.
        unsafe {
            // Ordering: relaxed, scope .cta; the deque thread's own words.
            let tail = a::ld_shared_u32(sq);
            // Ordering: relaxed, scope .gpu; thieves only raise it, stale is conservative.
            let head = a::ld_relaxed_gpu_u32(addr_of_mut!((*self.deque(self.warp, q)).head));
            if tail.wrapping_sub(head) < self.queue_cap / 2 {
                *self
                    .ring(self.warp, q)
                    .add((tail & (self.queue_cap - 1)) as usize) = slot;
                a::st_shared_u32(sq, tail.wrapping_add(1));
                a::st_shared_u32(pr, a::ld_shared_u32(pr) + 1);
                return;
            }
            // Its ancestors are marked (it came through another GPU, or was resumed by
            // one), so it may go where any worker takes it.
            let gq = GlobalQueues::of_run();
            let pos = gq.reserve(q, 1, self.warp, 0);
            if pos != NONE {
                gq.write(q, pos, slot);
                gq.fence();
                gq.commit(q, pos, 1);
            }
        }
    }

    /// Lane 0 of an idle warp, after the inbox's acquire: the exported task `slot` (a
    /// placeholder: another GPU ran it) finished. Frees it and completes its parent's join on
    /// the shared path, upwards while a parent whose body had returned loses its last child.
    unsafe fn complete_export(&self, slot: u32) {
        // SAFETY: for the whole body, the placeholder and its suspended ancestors are alive (their
        // joins wait for it); this warp is between batches (its free stack is clamped).
        unsafe {
            let mut parent = (*self.header(slot)).parent;
            self.free_one_wf(slot);
            loop {
                if !is_slot(parent) {
                    finish_root(parent);
                    return;
                }
                let ph: *mut Header = self.header(parent);
                if (*ph).flags & FLAG_SHARED == 0 {
                    // A task that left its warp has marked ancestors (`deque.rs`).
                    self.record_error(ERR_PROTOCOL, (*ph).kind, 0, parent);
                    return;
                }
                // Release side of the shared join (the results this thread acquired).
                a::fence_acq_rel_gpu();
                // Ordering: relaxed, scope .gpu, after the fence (a release pattern); the RMWs
                // on `pending` form a release sequence (`join.rs`).
                let old = a::atom_relaxed_gpu_add_u32(addr_of_mut!((*ph).pending), u32::MAX);
                if old != 1 {
                    return;
                }
                // Acquire side: the other children's results, and the parent's header.
                a::fence_acq_rel_gpu();
                if (*ph).flags & FLAG_DONE != 0 {
                    let next = (*ph).parent;
                    self.free_one_wf(parent);
                    parent = next;
                    continue;
                }
                self.push_ready(u32::from((*ph).queue), parent);
                return;
            }
        }
    }

    /// Lane 0 of an idle warp with an empty private part: imports up to
    /// [`IMPORTS_PER_WARP`] tasks (as many as its import-table entries are free) from the
    /// first peer GPU with exported ones, or, finding none, asks one peer to export.
    ///
    /// Its pieces are out of line with scalar arguments ([`import_one`]): the register count
    /// of every function a kernel calls is the kernel's, and this one, inlined whole, made
    /// the multi-GPU kernel's 164.
    unsafe fn import(&self, p: &Params, q0: u32) {
        let table = (p.imports as *mut u64).wrapping_add((self.warp * IMPORTS_PER_WARP) as usize);
        let mut room = 0;
        for j in 0..IMPORTS_PER_WARP {
            // SAFETY: this warp's entries of the import table.
            // Ordering: relaxed, scope .gpu; cleared by the thread that completes an import.
            room += u32::from(unsafe { a::ld_relaxed_gpu_u64(table.add(j as usize)) } == 0);
        }
        if room == 0 {
            return;
        }
        for k in 1..p.gpus {
            let g = (p.gpu + k) % p.gpus;
            // SAFETY: g < gpus; forwarded.
            if unsafe { import_from(self.warp, self.smem, g, q0, room) } {
                return;
            }
        }
        // Nothing exported anywhere: ask one peer (a different one per warp).
        let g = (p.gpu + 1 + self.warp % (p.gpus - 1)) % p.gpus;
        // SAFETY: g < gpus; its control block.
        unsafe {
            let pc = peer(p, g).control as *mut Control;
            // Ordering: relaxed, scope .sys; a request for REQUEST_EXPORTS exports (its
            // exporters count it down; renewed only once it is used up).
            if a::ld_relaxed_sys_u32(addr_of_mut!((*pc).hungry)) == 0 {
                a::st_relaxed_sys_u32(addr_of_mut!((*pc).hungry), REQUEST_EXPORTS);
            }
        }
    }
}

/// Lane 0 of idle worker `warp` (shared words at `smem`): claims up to `room` tasks from GPU
/// `g`'s overflow queues, from EPAQ queue `q0` on, and imports them ([`import_one`]); whether
/// it found any.
///
/// # Safety
///
/// `g` is another GPU of the run; `room` import-table entries of `warp` are free.
#[inline(never)]
unsafe fn import_from(warp: u32, smem: a::SharedWord, g: u32, q0: u32, room: u32) -> bool {
    let p = run();
    // SAFETY: g < gpus.
    let gq = GlobalQueues::of_peer(unsafe { &peer(p, g) });
    for i in 0..p.queues {
        let q = (q0 + i) % p.queues;
        // SAFETY: for the whole block, q < queues (one program: the same count on every GPU); claimed
        // positions of GPU g's queue.
        unsafe {
            let (base, got) = gq.pop(q, room);
            if got == 0 {
                continue;
            }
            // Acquire side of the exporter's commit: the tasks' records.
            gq.fence();
            for n in 0..got {
                let remote = gq.take(q, base.wrapping_add(n));
                if remote == NONE || !import_one(warp, smem, g, q, remote) {
                    return true;
                }
            }
            let c = p.control as *mut Control;
            // Ordering: relaxed, scope .gpu; statistics the host reads after the run.
            a::atom_relaxed_gpu_add_u32(addr_of_mut!((*c).imported), got);
            a::atom_relaxed_gpu_add_u32(addr_of_mut!((*c).import_claims), 1);
            return true;
        }
    }
    false
}

/// Lane 0 of idle worker `warp`: copies GPU `g`'s task `remote` (claimed and acquired) into a
/// slot of this GPU's pool as an import (parent `IMPORT_BASE + i`, entry `i` of the warp's
/// import table recording `(g, remote)`), and pushes it on the warp's private part of queue
/// `q`. False when no slot was left (an error is recorded).
///
/// # Safety
///
/// As described; the warp has a free import-table entry.
#[inline(never)]
unsafe fn import_one(warp: u32, smem: a::SharedWord, g: u32, q: u32, remote: u32) -> bool {
    let p = run();
    let w = Warp::new(p, warp, 0, smem);
    let table = (p.imports as *mut u64).wrapping_add((warp * IMPORTS_PER_WARP) as usize);
    // SAFETY: for the whole body, this warp's table entries; GPU g's slot `remote` (acquired by the
    // caller's fence); a fresh local slot.
    unsafe {
        let mut j = 0;
        // Ordering: relaxed, scope .gpu; cleared by the thread that completes an import.
        while a::ld_relaxed_gpu_u64(table.add(j as usize)) != 0 {
            j += 1;
        }
        let slots = (*(p.peers as *const PeerInfo).add(g as usize)).slots;
        let from = (slots as *const u8)
            .add(remote as usize * w.slot_bytes)
            .cast::<Header>();
        let local = w.alloc_wf((*from).kind);
        if local == NONE {
            return false;
        }
        let to = w.header(local);
        let words = w.slot_bytes / 8;
        let (src, dst) = (from.cast::<u64>(), to.cast::<u64>());
        for x in 4..words {
            dst.add(x).write(src.add(x).read());
        }
        (*to).kind = (*from).kind;
        (*to).state = (*from).state;
        (*to).queue = (*from).queue;
        (*to).pending = 0;
        (*to).parent = IMPORT_BASE + warp * IMPORTS_PER_WARP + j;
        (*to).flags = 0;
        (*to).result_dst = (*from).result_dst;
        // Plain: read by whoever completes the import, after the task's publication here.
        table
            .add(j as usize)
            .write((u64::from(g) + 1) << 32 | u64::from(remote));
        w.push_ready(q, local);
    }
    true
}
