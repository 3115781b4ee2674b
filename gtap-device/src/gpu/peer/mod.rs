//! Work across GPUs: one task tree on the persistent kernels of several GPUs (or of several
//! partitions of one GPU, which run the same code), with work moving between them only
//! through channels in memory every GPU of the run maps, and only through one warp per GPU.
//!
//! Each GPU runs the work-first scheduler on its own pools, deques and overflow queues, with
//! device-scope protocols, exactly as on one GPU: a task that never leaves its GPU pays
//! nothing for the others but one relaxed load of [`Control::hungry`] per batch. No task
//! slot, deque, pool or overflow queue is shared; two atomics of different GPUs are morally
//! strong only at system scope, so every word that GPUs share is accessed at system scope by
//! all of them, and only these words are.
//!
//! # Hierarchical stealing
//!
//! An idle warp steals inside its GPU (random victims, then the overflow queues). Only when
//! that fails does it report itself ([`note_starving`]: a capped count in
//! [`Control::starving`], device scope). The last warp of each GPU's grid is its *courier*
//! ([`courier()`]), which runs no tasks: it is the only warp that reads or writes another GPU's
//! channels, so a GPU whose thousands of warps ran dry sends one request, not thousands of
//! probes across NVLink.
//!
//! # The channels
//!
//! - **Request** (`T` asks `V`): when `T`'s idle warps reported at least [`HUNGRY_REPORTS`]
//!   times in one of its courier's rounds and nothing came for a few rounds, the courier
//!   stores `epoch << 8 | share` into `V`'s [`Control::hungry`] (system scope, one peer at a
//!   time, rotating; `share` grows with the reports); it withdraws the request once `T` has
//!   work again.
//! - **Export** (`V`): every busy warp of `V` reads `hungry` at the start of its batch; a warp
//!   in the share ([`serves`]) that sees a new epoch exports once, at its first release
//!   decision with something to give: the oldest half of its public part ([`export_public`],
//!   claimed as a thief would), else the oldest half of its private part (a spill to `V`'s
//!   *export queue* of that EPAQ queue: `global_queue.rs`, system scope; `overflow.rs` marks
//!   the tasks' ancestors shared). `V`'s courier adds the oldest entries of its overflow
//!   queues (the tasks its warps spilled).
//! - **Import** (`T`'s courier): claims up to 32 entries at a time from a peer's export queue,
//!   and each lane copies one task's record (header and frame) into a slot of `T`'s pool, with
//!   the parent `IMPORT_BASE + i` (entry `i` of `T`'s import table keeps `(V, V's slot)`),
//!   then pushes the copies to `T`'s own overflow queue, where `T`'s idle warps find them.
//!   `V`'s slot stays allocated, a placeholder whose parent waits for it as for any child.
//!   Exports nobody imported are not stranded: a hungry courier takes its own GPU's export
//!   queue back into its overflow queue first.
//! - **Completion**: the copy and its subtree run on `T` like any tasks; the result goes
//!   through its result pointer, an address in `V`'s memory (peer access). When it completes,
//!   the join finds the import marker instead of a slot ([`finish_root`]): the finishing thread
//!   pushes the import-table entry to `T`'s *outbox* (device scope), and `T`'s courier sends
//!   `V`'s slot to `V`'s *completion inbox* (a ring with the global-queue protocol, system
//!   scope), 32 at a time. `V`'s courier claims it, frees the placeholder and completes the
//!   parent's join on the shared path of `join.rs`; a parent made ready goes to `V`'s
//!   overflow queue.
//! - **End**: when the root (on GPU 0) completes, [`finish_root`] stores `done` on every GPU.
//!   A device error stops its own GPU; the host stops the others (`abort`).
//!
//! # Termination without joins
//!
//! Detached tasks have no parent to complete, so an import needs no table entry and no
//! completion; what ends the run is a count. Each GPU counts in [`Control::live_here`] (low
//! half) its live tasks and its exports that no importer has acknowledged yet, with the
//! one-GPU rule (a warp adds what it spawned before publishing it, and subtracts what it
//! finished later), and in the high half its imports:
//!
//! 1. The importing courier adds `1 << 32` plus the copies to its own word, then publishes
//!    the copies to its workers, then pushes the exporter's slots to the exporter's inbox
//!    (an acknowledgement).
//! 2. The exporter's courier frees the acknowledged records and subtracts them from its word.
//! 3. A task is therefore counted by some GPU at every moment (by both while the
//!    acknowledgement travels), and a GPU's live count rises from 0 only through an import,
//!    which changes the word's high half.
//! 4. The first GPU's courier, whenever its own live count is 0, reads every GPU's word
//!    (a wave), a `fence.sc.sys`, and every word again. If every live count read is 0 and
//!    each word reads the same twice, no task existed between the waves (a task would have
//!    been counted on some GPU whose count was 0 at both reads, so it arrived there by an
//!    import in between, which the high half shows), and none can appear from nothing: it
//!    stores `done` on every GPU.
//!
//! `loom-models/src/termination.rs` checks the counting and its three broken variants (no
//! import count, the exporter uncounting first, one wave).
//!
//! # Memory model (the argument in full: `docs/gpu-runtime.md`, "Several GPUs")
//!
//! Export: the exporting warp's tasks were written by its own batches (program order and warp
//! barriers) or acquired by the claim, steal or refill that brought them; a `fence.acq_rel.sys`
//! and the release of the export queue's `tail` (`.sys`) publish them to the courier, which
//! acquires `tail` (`.sys`) and whose lanes fence (`.sys`) before they copy them. Import to
//! local workers: the copies are published on the overflow queue as a spill publishes (`.gpu`
//! fence, release of `tail`). Completion: the result is written (a plain store to the
//! exporter's memory) before the finishing thread's `.gpu` fence and the outbox commit's
//! `.gpu` release, which this GPU's courier acquires; its lanes' `.sys` fences and the inbox
//! commit's `.sys` release publish it to the exporter's courier, which acquires it and fences
//! at system scope, then runs the device-scope shared join. Causality order is transitive
//! across these morally strong pairs, so the parent resumes after its child's result.

use core::ptr::addr_of_mut;

mod courier;

pub(crate) use courier::courier;

use super::global_queue::GlobalQueues;
use super::layout::{
    is_cell, Control, DequeHeader, Params, PeerInfo, ERR_PROTOCOL, IMPORTS_PER_WARP, IMPORT_BASE,
    IMPORT_WARPS, NONE,
};
use super::warp::Warp;
use crate::arch::nvptx as a;

/// Reports of idle warps ([`note_starving`]) in one courier round that make a GPU hungry:
/// a few warps between two steals do not send work across GPUs; a GPU whose warps ran dry
/// reaches it within one round (each idle warp reports every back-off round, at most
/// `Config::idle_max_ns` apart).
pub(super) const HUNGRY_REPORTS: u32 = 16;

/// The report count saturates here: idle warps stop writing the word once it is reached. A
/// request asks a share of the peer's warps in proportion to the reports (all of them at the
/// cap: a GPU that ran dry takes half of a peer's waiting work, steal-half).
pub(super) const REPORTS_CAP: u32 = 64;

/// The running kernel's params (read from memory: every function here is on a cold path).
#[inline(always)]
pub(super) fn run() -> &'static Params {
    // SAFETY: the params of the running kernel (`set_params` ran first); valid for the run.
    unsafe { &*super::params() }
}

/// GPU `g`'s entry of the peer table.
///
/// # Safety
///
/// `g < p.gpus` and the run has several GPUs.
#[inline(always)]
pub(super) unsafe fn peer(p: &Params, g: u32) -> PeerInfo {
    // SAFETY: the host wrote `gpus` entries.
    unsafe { (p.peers as *const PeerInfo).add(g as usize).read() }
}

/// Whether worker `warp` serves the request `word` ([`Control::hungry`]: `epoch << 8 |
/// share`): a request asks `share` 256ths of the GPU's warps, chosen by a hash of the warp
/// index, each to export once per epoch.
#[inline(always)]
#[must_use]
pub(crate) fn serves(word: u32, warp: u32) -> bool {
    (warp.wrapping_mul(2_654_435_761) >> 24) < (word & 0xFF)
}

/// The deque thread of worker `warp`, serving another GPU's request: claims the
/// oldest entries of its own public part of queue `q` (deque `dq`) as a thief would, and
/// exports them to this GPU's export queue `q`; whether it found any.
///
/// # Safety
///
/// The deque thread of a work-first worker between batches; `dq` is its own deque `q`.
#[inline(never)]
pub(crate) unsafe fn export_public(dq: *mut DequeHeader, q: u32, warp: u32) -> bool {
    let p = run();
    let queue_cap = p.queue_cap;
    let ring = (p.deque_rings as *mut u32)
        .wrapping_add((warp * p.queues + q) as usize * queue_cap as usize);
    // SAFETY: for the whole body, a valid deque header; claimed ring entries; a reserved
    // export range.
    unsafe {
        let (head, got) = super::deque::claim_public(dq, false);
        if got == 0 {
            return false;
        }
        let ex = own_exports();
        let base = ex.reserve(q, got, warp, 0);
        if base != NONE {
            for j in 0..got {
                let slot = ring
                    .add((head.wrapping_add(j) & (queue_cap - 1)) as usize)
                    .read();
                ex.write(q, base.wrapping_add(j), slot);
            }
            // Release side of the export: the tasks' records (published to this thread by the
            // release that made them public, acquired by the claim) and the entries, before
            // the commit's `.sys` release of `tail` that couriers acquire.
            ex.fence();
            ex.commit(q, base, got);
            let c = run().control as *mut Control;
            // Ordering: relaxed, scope .gpu; a statistic the host reads after the run.
            a::atom_relaxed_gpu_add_u32(addr_of_mut!((*c).exported), got);
        }
        // Ordering (inside): relaxed store of the head, release of the lock, scope .gpu; the
        // entries are read. (A failed reservation recorded an error: the run is stopping, and
        // the claimed tasks are dropped with it.)
        Warp::unlock_deque(dq, head.wrapping_add(got));
        true
    }
}

/// The join reached a parent that is not a slot (`parent` is [`NONE`], a cell or an import
/// marker, see `layout::CELL_BASE` and `layout::IMPORT_BASE`): the root is done, a child that
/// a lane's clone handed off is (`worker/clone.rs`), or an imported task is.
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
            // Every GPU stops: nothing of the tree is left anywhere (every import's completion
            // was counted in an ancestor's join before the root completed).
            stop_everywhere(p);
            return;
        }
        if is_cell(parent) {
            // A child a lane's clone handed off (one GPU): its lane waits for it.
            crate::gpu::worker::finish_cell(p, parent);
            return;
        }
        let e = parent - IMPORT_BASE;
        if e >= import_entries(p) {
            super::warp::record_error(c, p.error as *mut _, ERR_PROTOCOL, 0, 0, 0, 0, parent);
            return;
        }
        // Release side of the completion: the result (written into the exporter's memory)
        // and everything this thread has seen, before the outbox entry (device scope: the
        // courier, on this GPU, forwards it at system scope).
        let outbox = GlobalQueues::outbox_of(p);
        let pos = outbox.reserve(0, 1, 0, 0);
        if pos == NONE {
            return;
        }
        outbox.write(0, pos, e);
        outbox.fence();
        outbox.commit(0, pos, 1);
    }
}

/// The run is over: stores `done` on this GPU and on every other GPU of the run.
///
/// # Safety
///
/// The run's control blocks (and, with several GPUs, its peer table) are valid.
pub(crate) unsafe fn stop_everywhere(p: &Params) {
    let c = p.control as *mut Control;
    // SAFETY: the control blocks of the run.
    unsafe {
        // Ordering: release, scope .gpu; the root's result (with joins) is written before.
        a::st_release_gpu_u32(addr_of_mut!((*c).done), 1);
        if p.gpus > 1 {
            // Ordering: release, scope .sys; the other GPUs read results only on the host.
            for g in 0..p.gpus {
                if g != p.gpu {
                    let pc = peer(p, g).control as *mut Control;
                    a::st_release_sys_u32(addr_of_mut!((*pc).done), 1);
                }
            }
        }
    }
}

/// Entries of this GPU's import table (each warp's share, for every warp that may import).
#[inline(always)]
pub(crate) fn import_entries(p: &Params) -> u32 {
    IMPORTS_PER_WARP * p.num_warps.min(IMPORT_WARPS)
}

/// This GPU's export queues (a multi-GPU run).
#[inline(never)]
pub(crate) fn own_exports() -> GlobalQueues {
    let p = run();
    // SAFETY: only a multi-GPU run exports (a worker saw a request), so p.gpu < gpus.
    unsafe { exports_of(p, p.gpu) }
}

/// GPU `g`'s export queues, seen from this GPU.
///
/// # Safety
///
/// `g < p.gpus` and the run has several GPUs.
#[inline(always)]
pub(crate) unsafe fn exports_of(p: &Params, g: u32) -> GlobalQueues {
    // SAFETY: forwarded.
    GlobalQueues::exports_of(unsafe { &peer(p, g) })
}

/// An idle warp of a multi-GPU run whose steals and overflow refill found nothing: counts
/// itself in [`Control::starving`] for the courier (a load first, so that a GPU whose warps
/// all ran dry does not turn the word into a hot spot of RMWs).
///
/// # Safety
///
/// The run's control block is valid (any thread).
#[inline(never)]
pub(crate) unsafe fn note_starving() {
    let c = run().control as *mut Control;
    // SAFETY: the control block.
    unsafe {
        // Ordering: relaxed, scope .gpu; a count the courier reads and resets (a hint: no
        // data is published through it).
        if a::ld_relaxed_gpu_u32(addr_of_mut!((*c).starving)) < REPORTS_CAP {
            a::atom_relaxed_gpu_add_u32(addr_of_mut!((*c).starving), 1);
        }
    }
}
