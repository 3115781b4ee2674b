//! The block-level persistent worker: one worker per thread block, for programs with a
//! `#[gtap::function(block)]` kind (GTaP §4, and past it: mixed granularity).
//!
//! Each block owns two deques (the same per-worker deques, pools and join protocol as the
//! thread-level worker in `thread.rs`, whose [`Warp`] view it reuses with `warp` = the block's
//! index): queue 0 holds thread-level tasks, queue 1 block-level ones. Thread 0 (the leader)
//! does every queue operation; the block then runs, together,
//!
//! - **one block-level task** on all its threads (own queue 1 first, one entry; a steal takes
//!   up to half of a victim's queue 1 and re-publishes the extra entries on its own queue 1),
//! - or else **a batch of thread-level tasks**, one per thread (own queue 0, up to
//!   `block_threads` entries; a steal takes up to half of a victim's queue 0, at most 32).
//!
//! so a thread-level task can spawn a block-level one and join it, and the other way round.
//! After a batch the newest block-level task (a resumed parent first), or else up to a batch of
//! the newest thread-level tasks, is kept to run next; the next batch pops the newest (LIFO).
//!
//! # Work first (the default; `SHARED` and `GLOBAL` select the ablations)
//!
//! The thread-level worker's protocol, with the block as the worker (see `deque.rs`,
//! `join.rs`, `pool.rs` and `docs/gpu-runtime.md`, "Block-level workers, work first"):
//!
//! - **Split deques.** A batch's other new tasks stay in the block's private parts; thread 0
//!   releases the oldest ones when fewer than `release_below` of a queue's are public: every
//!   thread marks their ancestors and fences, then thread 0 adds to `count`.
//! - **Joins.** An unmarked join's `pending` takes block-scope RMWs (all its children run on
//!   this block; block barriers order the rest). A marked one takes the device-scope protocol:
//!   every thread fences before the RMWs when any thread's join is shared (or its parent had
//!   returned); the last child's RMW is an acquire, and the block barrier after the joins
//!   orders what that thread acquired before whichever thread runs the parent.
//! - **Pools.** Each warp of the block allocates from and frees to a pool of its own (the
//!   thread-level pools: no knob, slots migrate with stolen tasks).
//!
//! The shared-deque ablation publishes every batch: a block barrier, a `fence.acq_rel.gpu` on
//! every thread, then thread 0's relaxed add to `count`; its pools are per block.
//!
//! # Invariants
//!
//! - Every thread of the block executes the same sequence of block barriers: the loop's
//!   control values are broadcast through shared memory after a barrier, a block-level body
//!   reaches its barriers uniformly (the macro checks it), and a refused spawn does not end
//!   the body early (it hands out the worker's scratch slot and raises the `failed` word, so
//!   the block drains after the step).
//! - Every thread has read its batch entry before any thread spawns (a barrier): the block's
//!   own entries sit at the tail the batch's spawns push to.
//! - A joining block-level kind's record holds a frame per thread (`block_frame_stride`
//!   bytes each), for the locals each thread keeps across a join. If no step writes its
//!   arguments ([`crate::task::TaskFn::ARGS_READ_ONLY`]: no `mut` parameter kept across a
//!   join), every thread reads copy 0's `args`, as the spawner wrote them, and keeps its
//!   other fields field by field (`Context::copy` = `(t, threads)`, see
//!   `glue::thread_field`), so that a warp's accesses to a field are contiguous. Otherwise
//!   each thread has a whole copy of the struct, and threads `1..` copy copy 0 on first
//!   entry, before anyone runs (a barrier). Non-joining kinds share copy 0 (their frame is
//!   only read). Only thread 0 writes the result.

use core::marker::PhantomData;
use core::ptr::null_mut;

use super::ctx::{Ctx, StepLoop};
use super::{next_idle_ns, push_staged, STOP_CHECK_EVERY};
use crate::arch::nvptx as a;
use crate::gpu::global_queue::GlobalQueues;
use crate::gpu::layout::{
    Params, WarpStats, BLOCK_SMEM_POOL, BLOCK_SMEM_SCHED_BYTES, ERR_PROTOCOL, HEADER_BYTES, NONE,
};
use crate::gpu::overflow::{OVERFLOW_IDLE_NS, SPILL};
use crate::gpu::profile::BlockProf;
use crate::gpu::step::parent_field;
use crate::gpu::warp::{Warp, FULL};
use crate::task::{KindId, Program, Step};

/// Deque of thread-level tasks.
const Q_THREAD: u32 = 0;
/// Deque of block-level tasks.
const Q_BLOCK: u32 = 1;

/// Shared words after the two queues' words (`smem_per_warp(2)` = 64 bytes), as `u32`
/// indices: what thread 0 broadcasts to the block for one batch, and the batch's counters.
mod word {
    /// Entries taken for this batch (0: none, idle).
    pub const GOT: usize = 16;
    /// Their queue (`Q_THREAD` or `Q_BLOCK`).
    pub const QUEUE: usize = 17;
    /// Ring position of the first entry.
    pub const BASE: usize = 18;
    /// The worker whose ring holds them.
    pub const SRC: usize = 19;
    /// Where they came from: `FROM_OWN`, `FROM_VICTIM` (the victim's lock is held until the
    /// entries are read) or `FROM_GLOBAL` (a global queue).
    pub const STOLEN: usize = 20;
    /// 1 when the run is over.
    pub const STOP: usize = 21;
    /// Children spawned by the running block-level task, all threads together.
    pub const SPAWNED: usize = 22;
    /// 1 when a spawn of this batch was refused (an error is recorded), or when thread 0 saw
    /// the run end while the block was busy: the block leaves its loop.
    pub const FAILED: usize = 23;
    /// Tasks kept from the last batch to run next without publishing them (0: none).
    pub const KEPT: usize = 24;
    /// Their queue.
    pub const KEPT_QUEUE: usize = 25;
    /// Ring position of the first, in this worker's own ring of that queue.
    pub const KEPT_BASE: usize = 26;
    /// Global-queue kernel: the first position thread 0 reserved for the batch's push.
    pub const GQ_BASE: usize = 27;
    /// Work first: 1 when a thread's frees or joins of this batch share something
    /// ([`Warp::block_shares`]), so every thread fences first.
    pub const SHARES: usize = 28;
    // 29: free (a shared join's completion needs no block-wide fence: `join.rs`).
    /// Work first: private entries of queue 0 and 1 thread 0 releases after this batch (with
    /// `overflow::SPILL`: spills).
    pub const RELEASE: usize = 30;
    /// Words used.
    pub const END: usize = 32;
}
/// [`word::STOLEN`]: the entries are in this worker's own ring.
const FROM_OWN: u32 = 0;
/// [`word::STOLEN`]: the entries are in a victim's ring, whose steal lock we hold.
const FROM_VICTIM: u32 = 1;
/// [`word::STOLEN`]: the entries are claimed positions of a global queue.
const FROM_GLOBAL: u32 = 2;

const _: () = assert!(word::END * 4 <= BLOCK_SMEM_SCHED_BYTES as usize);
const _: () = assert!(word::GOT * 4 >= crate::gpu::layout::smem_per_warp(2) as usize);

/// What a thread's step sees of its batch.
struct Batch {
    /// Running one block-level task (all threads) rather than thread-level tasks.
    block_mode: bool,
    /// Work first: slots come from the thread's warp's pool (`pool.rs`), not the block's.
    wf: bool,
    /// The worker's scratch slot (a refused spawn's frame).
    scratch: *mut u8,
}

/// A thread's part of the [`Ctx`] it gives the step it runs.
struct Thread<'w> {
    /// This thread's warp's pool view (work first).
    pool: &'w Warp,
    batch: &'w Batch,
    /// The frame whose `args` the step reads ([`Context::args`]): copy 0 for a joining
    /// block-level kind whose arguments are read only, else the thread's frame.
    args: *mut u8,
    /// [`Context::copy`]: `(t, threads)` for a joining block-level kind whose arguments are
    /// read only (its fields per thread, field by field), else `(0, 1)`.
    copy: (u32, u32),
}

impl<P> Ctx<'_, P, Thread<'_>> {
    /// A refused spawn: note it for the block and hand out the scratch slot's frame.
    #[cold]
    fn refused(&self) -> *mut u8 {
        // SAFETY: the shared word of this block.
        // Ordering: relaxed, scope .cta; read after the batch's block barrier.
        unsafe { a::st_shared_u32(self.w.smem.add(word::FAILED), 1) };
        self.ext.batch.scratch.wrapping_add(HEADER_BYTES as usize)
    }
}

// SAFETY: a child's frame is a slot this thread just took from a pool and wrote the header of
// (`init_child`); a refused spawn returns the scratch frame, which is valid for
// `slot_bytes - HEADER_BYTES` bytes; `wait` writes the running task's own header.
unsafe impl<P: Program> StepLoop<P> for Thread<'_> {
    #[inline(always)]
    unsafe fn spawn_raw(
        ctx: &mut Ctx<'_, P, Self>,
        kind: KindId,
        queue: u32,
        result_dst: *mut u8,
    ) -> *mut u8 {
        let w = ctx.w;
        // One EPAQ queue: a task's queue on a block worker is its granularity's.
        if w.refuse_spawn(ctx.kind, queue, 1, ctx.spawned) {
            return ctx.refused();
        }
        let q = if P::is_block(kind) { Q_BLOCK } else { Q_THREAD };
        // SAFETY: the pool and header of the new slot are valid; nobody else sees the slot
        // until the batch publishes it.
        unsafe {
            let slot = if ctx.ext.batch.wf {
                ctx.ext.pool.alloc_wf(kind)
            } else {
                w.alloc(kind)
            };
            if slot == NONE {
                return ctx.refused();
            }
            w.init_child(
                slot,
                kind,
                q,
                parent_field(P::JOINS, ctx.slot),
                result_dst,
                0,
            );
            if !w.reserve(q, slot, kind) {
                return ctx.refused();
            }
            ctx.spawned += 1;
            w.frame(slot)
        }
    }

    #[inline(always)]
    fn args(ctx: &Ctx<'_, P, Self>) -> *mut u8 {
        ctx.ext.args
    }

    #[inline(always)]
    fn copy(ctx: &Ctx<'_, P, Self>) -> (u32, u32) {
        ctx.ext.copy
    }

    #[inline(always)]
    fn wait(ctx: &mut Ctx<'_, P, Self>, resume_state: u32, _queue: u32) -> bool {
        let mine = ctx.spawned > 0;
        let any = if ctx.ext.batch.block_mode {
            // Every thread of a block-level task reaches this wait (the macro's uniformity
            // check): a block barrier that also tells whether any thread spawned.
            a::bar_red_or(mine)
        } else {
            mine
        };
        if !any {
            return false;
        }
        if !ctx.ext.batch.block_mode || a::thread_idx_x() == 0 {
            let h = ctx.w.header(ctx.slot);
            // SAFETY: the running task's header; published with its children after the step.
            unsafe {
                (*h).state = resume_state;
                (*h).queue = if ctx.ext.batch.block_mode {
                    Q_BLOCK as u16
                } else {
                    Q_THREAD as u16
                };
            }
        }
        true
    }
}

/// Reads shared word `i` (after a block barrier).
#[inline(always)]
fn get(w: &Warp, i: usize) -> u32 {
    // SAFETY: i < word::END, inside the block's scheduler words.
    // Ordering: relaxed, scope .cta; written before the block barrier that precedes this read.
    unsafe { a::ld_shared_u32(w.smem.add(i)) }
}

/// Writes shared word `i` (read after the next block barrier).
#[inline(always)]
fn set(w: &Warp, i: usize, v: u32) {
    // SAFETY: as in `get`.
    // Ordering: relaxed, scope .cta; read after the next block barrier.
    unsafe { a::st_shared_u32(w.smem.add(i), v) }
}

/// Thread 0: finds work for the next batch and broadcasts it through the shared words;
/// `idle_ns` is the block's back-off after its last empty rounds.
///
/// # Safety
///
/// Thread 0 of a block-level worker.
#[inline(always)]
unsafe fn acquire<const PROFILE: bool, const GLOBAL: bool>(
    w: &Warp,
    rng: &mut u32,
    threads: u32,
    wf: bool,
    idle_ns: u32,
) {
    if wf {
        // The last batch's flags, read by every thread before the barrier that ended it.
        set(w, word::SHARES, 0);
    }
    let kept = get(w, word::KEPT);
    if kept > 0 {
        if PROFILE {
            // SAFETY: thread 0 owns the block's profile record.
            unsafe { (*BlockProf::rec(w)).kept = kept };
        }
        // The tasks the last batch kept: written by this block, no acquire needed.
        set(w, word::KEPT, 0);
        set(w, word::GOT, kept);
        set(w, word::QUEUE, get(w, word::KEPT_QUEUE));
        set(w, word::BASE, get(w, word::KEPT_BASE));
        set(w, word::SRC, w.warp);
        set(w, word::STOLEN, FROM_OWN);
        set(w, word::STOP, 0);
        return;
    }
    if GLOBAL {
        let gq = GlobalQueues::of_run();
        // SAFETY: thread 0 of the worker; both queues exist.
        let (mut q, (mut base, mut got)) = (Q_BLOCK, unsafe { gq.pop(Q_BLOCK, 1) });
        if got == 0 {
            q = Q_THREAD;
            // SAFETY: as above.
            (base, got) = unsafe { gq.pop(Q_THREAD, threads) };
        }
        set(w, word::GOT, got);
        set(w, word::QUEUE, q);
        set(w, word::BASE, base);
        set(w, word::SRC, w.warp);
        set(w, word::STOLEN, FROM_GLOBAL);
        set(w, word::STOP, u32::from(got == 0 && w.should_stop()));
        return;
    }
    // SAFETY: thread 0 owns the worker's deque operations.
    unsafe {
        let (mut src, mut q, mut stolen) = (w.warp, Q_BLOCK, FROM_OWN);
        let (mut base, mut got) = (0, 0);
        if wf {
            // Work first: the private parts (no atomics), the block-level queue first.
            (base, got) = w.pop_private(Q_BLOCK, 1);
            if got == 0 {
                q = Q_THREAD;
                (base, got) = w.pop_private(Q_THREAD, threads);
            }
        }
        if got == 0 {
            // The public parts (both private parts are empty, so each queue's public
            // entries end at its tail, as `pop_own` expects).
            q = Q_BLOCK;
            (base, got) = w.pop_own(Q_BLOCK, 1);
        }
        if got == 0 {
            q = Q_THREAD;
            (base, got) = w.pop_own(Q_THREAD, threads);
        }
        if got == 0 {
            if PROFILE {
                // SAFETY: thread 0 owns the block's profile record.
                (*BlockProf::rec(w)).steal_attempts += 1;
            }
            // Work first, idle for a few rounds: refills from the overflow queues when no
            // victim had work (`overflow.rs`).
            let (v, sq, head, sg) = w.steal(rng, Q_BLOCK, wf && idle_ns >= OVERFLOW_IDLE_NS, false);
            if sg > 0 {
                (src, q, base, got, stolen) = (v, sq, head, sg, FROM_VICTIM);
            }
        }
        set(w, word::GOT, got);
        set(w, word::QUEUE, q);
        set(w, word::BASE, base);
        set(w, word::SRC, src);
        set(w, word::STOLEN, stolen);
        set(w, word::STOP, u32::from(got == 0 && w.should_stop()));
    }
}

/// Copies copy 0 of a joining block-level task's frame (the arguments the spawner wrote) to
/// this thread's copy, four 16-byte loads in flight at a time (one L2 round trip for frames
/// of up to 64 bytes, instead of one per word).
///
/// # Safety
///
/// `src` and `dst` are 16-aligned, `bytes` (a multiple of 16) apart at least, each valid for
/// `bytes` bytes.
#[inline(always)]
unsafe fn copy_frame(src: *const u8, dst: *mut u8, bytes: usize) {
    let (src, dst) = (src.cast::<u128>(), dst.cast::<u128>());
    let chunks = bytes / 16;
    let mut i = 0;
    while i < chunks {
        // SAFETY: i + k < chunks for every access below.
        unsafe {
            let n = chunks - i;
            let v0 = src.add(i).read();
            let v1 = if n > 1 { src.add(i + 1).read() } else { 0 };
            let v2 = if n > 2 { src.add(i + 2).read() } else { 0 };
            let v3 = if n > 3 { src.add(i + 3).read() } else { 0 };
            dst.add(i).write(v0);
            if n > 1 {
                dst.add(i + 1).write(v1);
            }
            if n > 2 {
                dst.add(i + 2).write(v2);
            }
            if n > 3 {
                dst.add(i + 3).write(v3);
            }
        }
        i += 4;
    }
}

/// The body of `gtap_block_worker_<Program>`: runs the task tree rooted at
/// `params.root_slot` on block-level workers.
///
/// # Safety
///
/// Launched by the host runtime with `params` pointing to a [`Params`] whose regions are
/// allocated and reset as `layout.rs` describes (`queues == 2`, `num_warps` = blocks, a
/// scratch slot per block), a block size that is a multiple of 32,
/// [`crate::gpu::layout::BLOCK_SMEM_BYTES`] of dynamic shared memory, and every block resident.
#[inline(always)]
pub unsafe fn block_worker<
    P: Program,
    const PROFILE: bool,
    const GLOBAL: bool,
    const SHARED: bool,
    const MULTI: bool,
>(
    params: *const Params,
) {
    if MULTI {
        // Block-level programs run on one GPU (the host never launches this entry).
        return;
    }
    // The work-first protocol (private deque parts, block-local joins) unless one of the
    // ablations is asked for.
    let wf = !SHARED && !GLOBAL;
    if !P::HAS_BLOCK {
        // Thread-level programs run on `thread_worker`; this entry is never launched for them.
        return;
    }
    // SAFETY: the caller passes valid params.
    let p = unsafe { &*params };
    let t = a::thread_idx_x();
    let threads = a::block_dim_x();
    let me = a::block_idx_x();
    if me >= p.num_warps {
        return;
    }
    crate::gpu::set_params(params);
    let smem = a::dynamic_smem_word(0);
    let w = Warp::new(p, me, a::lane_id(), smem);
    // Work first: each warp of the block allocates from and frees to a pool of its own (the
    // thread-level worker's, see `pool.rs`), indexed as warp `me * warps + warp_in_block`.
    let warps_per_block = threads / 32;
    let pool_smem = a::dynamic_smem_word(BLOCK_SMEM_POOL + 16 * (t / 32));
    let pool = Warp::new(p, me * warps_per_block + t / 32, a::lane_id(), pool_smem);
    let batch_block = Batch {
        block_mode: true,
        wf,
        scratch: (p.scratch as *mut u8).wrapping_add(me as usize * p.slot_bytes as usize),
    };
    let batch_thread = Batch {
        block_mode: false,
        wf,
        scratch: batch_block.scratch,
    };
    let frame_stride = p.block_frame_stride as usize;
    if t == 0 {
        // SAFETY: this block's shared words.
        unsafe {
            // Ordering: relaxed, scope .cta; published to the block by the barrier below.
            for i in 0..word::END {
                a::st_shared_u32(smem.add(i), 0);
            }
            a::st_shared_u32(smem.add(1), p.tasks_per_warp);
        }
        if PROFILE {
            // SAFETY: thread 0, once, profiled kernel.
            unsafe { BlockProf::init(&w, p, a::globaltimer()) };
        }
    }
    if wf && a::lane_id() == 0 {
        // SAFETY: this warp's pool words; published to its lanes by the barrier below.
        unsafe { pool.init_pool_wf() };
    }
    a::bar_sync();

    // The root starts on block 0: as if stolen from itself, without a lock.
    let mut root_pending = me == 0;
    let mut rng: u32 = (me.wrapping_mul(2_654_435_761) ^ a::globaltimer() as u32) | 1;
    let mut idle_ns: u32 = 0;
    let (mut batches, mut steals, mut steps, mut spawned_total) = (0u32, 0u32, 0u32, 0u32);
    // Profiler state (dead code when !PROFILE).
    let mut prof = BlockProf { written: 0 };

    // The heartbeat word the host watchdog samples, computed once (reading `p.progress` in
    // the loop put a dependent parameter load on the deque thread's path every batch).
    let heartbeat = (p.progress as *mut u32).wrapping_add(me as usize);
    loop {
        // ---- 1. Acquire (thread 0), broadcast. ----
        let mut root_now = false;
        if root_pending {
            root_pending = false;
            root_now = true;
        } else if t == 0 {
            // SAFETY: thread 0 of this worker.
            unsafe { acquire::<PROFILE, GLOBAL>(&w, &mut rng, threads, wf, idle_ns) };
        }
        a::bar_sync();
        let (got, q, base, src, stolen) = if root_now {
            // SAFETY: the root's header, written by the host before the launch.
            let root_block = P::is_block(unsafe { (*w.header(p.root_slot)).kind });
            (
                1,
                if root_block { Q_BLOCK } else { Q_THREAD },
                0,
                me,
                FROM_OWN,
            )
        } else {
            if get(&w, word::STOP) != 0 {
                break;
            }
            (
                get(&w, word::GOT),
                get(&w, word::QUEUE),
                get(&w, word::BASE),
                get(&w, word::SRC),
                get(&w, word::STOLEN),
            )
        };
        if got == 0 {
            // Every thread has read the broadcast words before thread 0 writes the next ones.
            a::bar_sync();
            a::nanosleep(idle_ns);
            idle_ns = next_idle_ns(idle_ns);
            continue;
        }
        idle_ns = 0;
        // Work first: the public counts, for the release decision after the bodies (loaded
        // now so that their latency hides behind them).
        let mut hints = [0u32; 2];
        if wf && t == 0 {
            // SAFETY: thread 0 owns the worker's deque operations.
            hints = unsafe { [w.count_hint(Q_THREAD), w.count_hint(Q_BLOCK)] };
        }
        if PROFILE && t == 0 {
            // SAFETY: thread 0 owns the block's profile record.
            unsafe {
                let r = BlockProf::rec(&w);
                (*r).run_from = a::globaltimer();
                (*r).tasks = if q == Q_BLOCK { 1 } else { got };
                (*r).stolen = if stolen == FROM_VICTIM { got } else { 0 };
            }
        }
        if stolen != FROM_OWN {
            // Acquire side of the victim's (or pusher's) publication: every thread.
            a::fence_acq_rel_gpu();
        }
        let block_mode = q == Q_BLOCK;
        let mut task = NONE;
        if root_now {
            if block_mode || t == 0 {
                task = p.root_slot;
            }
        } else if stolen == FROM_GLOBAL {
            // One block-level task (popped alone), or one thread-level task per thread.
            if t == 0 && block_mode {
                // SAFETY: a claimed position of global queue q.
                let s = unsafe { GlobalQueues::of_run().take(q, base) };
                set(&w, word::GQ_BASE, s);
            } else if !block_mode && t < got {
                // SAFETY: as above.
                task = unsafe { GlobalQueues::of_run().take(q, base.wrapping_add(t)) };
            }
            if block_mode {
                a::bar_sync();
                task = get(&w, word::GQ_BASE);
            }
        } else if block_mode {
            // SAFETY: the claimed entries [base, base + got) of that ring.
            task = unsafe { *w.ring(src, q).add((base & (w.queue_cap - 1)) as usize) };
            if t == 0 && got > 1 {
                // Stolen block-level tasks beyond the first go to this block's own queue 1
                // (published with this batch).
                for i in 1..got {
                    let pos = base.wrapping_add(i) & (w.queue_cap - 1);
                    // SAFETY: as above; `reserve` writes this worker's own ring.
                    unsafe {
                        let s = *w.ring(src, q).add(pos as usize);
                        let _ = w.reserve(Q_BLOCK, s, (*w.header(s)).kind);
                    }
                }
            }
        } else if t < got {
            let pos = base.wrapping_add(t) & (w.queue_cap - 1);
            // SAFETY: the claimed entries of that ring.
            task = unsafe { *w.ring(src, q).add(pos as usize) };
        }
        if stolen == FROM_OWN && !root_now {
            // Every thread has read its entry before any thread spawns: own entries sit at
            // and above the tail, where this batch's spawns push (without this barrier a
            // fast warp's child could overwrite the entry a slow warp has yet to read).
            a::bar_sync();
        }
        if stolen == FROM_VICTIM {
            // Every thread has read its entry: release the victim's steal end.
            a::bar_sync();
            if t == 0 {
                // SAFETY: we hold the victim's lock for this deque.
                unsafe { w.unlock_victim(src, q, base.wrapping_add(got)) };
            }
            steals += 1;
        }

        // ---- 2. Run: one block-level task on every thread, or one thread-level task each.
        let mut to_free = NONE;
        let mut notify = false;
        let mut notify_parent = NONE;
        let mut finished = 0u32;
        let mut aborted = false;
        let mut spawned = 0u32;
        if task != NONE {
            let h = w.header(task);
            // SAFETY: a published task's header and frame, acquired above (own tasks were
            // written by this block and ordered by its barriers and fences).
            unsafe {
                let kind = (*h).kind;
                let state = (*h).state;
                let mut frame = h.cast::<u8>().add(HEADER_BYTES as usize);
                let mut args = frame;
                let mut copy = (0, 1);
                let mut dst = (*h).result_dst as *mut u8;
                if block_mode {
                    if P::kind_joins(kind) {
                        if P::args_read_only(kind) {
                            // Every thread reads copy 0's arguments, which no step writes, and
                            // keeps its fields as element `t` of each (field by field, see
                            // `glue::thread_field`): no copy, no barrier.
                            copy = (t, threads);
                        } else {
                            // A step may write its arguments: each thread its own copy of
                            // the whole struct.
                            let mine = frame.add(t as usize * frame_stride);
                            if state == 0 && t > 0 {
                                copy_frame(frame, mine, frame_stride);
                            }
                            // Copies done before thread 0 writes its own copy.
                            a::bar_sync();
                            frame = mine;
                            args = mine;
                        }
                    }
                    if t != 0 {
                        dst = null_mut();
                    }
                }
                let mut ctx = Ctx::<'_, P, Thread<'_>> {
                    w: &w,
                    slot: task,
                    kind,
                    state,
                    frame,
                    dst,
                    spawned: 0,
                    ext: Thread {
                        args,
                        copy,
                        pool: &pool,
                        batch: if block_mode {
                            &batch_block
                        } else {
                            &batch_thread
                        },
                    },
                    _program: PhantomData,
                };
                let step = P::dispatch(&mut ctx, kind);
                spawned = ctx.spawned;
                steps += 1;
                if (block_mode || PROFILE) && spawned > 0 {
                    // Ordering: relaxed, scope .cta; read by thread 0 after the barrier.
                    a::atom_shared_add_u32(w.smem.add(word::SPAWNED), spawned);
                }
                match step {
                    Step::Done => finished = 1,
                    Step::Suspended if !P::JOINS => {
                        w.record_error(ERR_PROTOCOL, kind, 0, 1);
                        aborted = true;
                    }
                    Step::Suspended => {}
                    Step::Aborted => aborted = true,
                }
                if !block_mode && P::JOINS {
                    match step {
                        // A new join (or, done, a record that detached children keep alive),
                        // owned by this block until a child is released.
                        Step::Suspended | Step::Done if spawned > 0 => {
                            w.open_join(h, spawned, step == Step::Done);
                        }
                        Step::Done => {
                            to_free = task;
                            notify = true;
                            notify_parent = (*h).parent;
                        }
                        Step::Suspended | Step::Aborted => {}
                    }
                } else if !block_mode && step == Step::Done {
                    to_free = task;
                }
                if wf && (!block_mode || t == 0) {
                    // Whether this batch shares something (for a block-level task that
                    // returned, before thread 0 knows whether detached children keep it:
                    // at worst a needless fence).
                    let tell = if block_mode {
                        P::JOINS && step == Step::Done
                    } else {
                        notify
                    };
                    if w.block_shares(tell, (*h).parent) {
                        set(&w, word::SHARES, 1);
                    }
                }
            }
        }
        spawned_total = spawned_total.wrapping_add(spawned);
        // Release side: every thread's frame, header and ring writes, then the fence. A
        // thread that aborted (an error is recorded), or that panicked and exited (the panic
        // handler, `gpu/mod.rs`: the barrier counts only the threads that arrived), ends the
        // block's run.
        let any_aborted = a::bar_red_popc(!aborted) != threads;
        if PROFILE && t == 0 {
            // SAFETY: thread 0 owns the block's profile record; SPAWNED is complete after
            // the barrier.
            unsafe {
                let r = BlockProf::rec(&w);
                (*r).run_to = a::globaltimer();
                (*r).spawned = get(&w, word::SPAWNED);
            }
            if !block_mode {
                set(&w, word::SPAWNED, 0);
            }
        }
        if block_mode && t == 0 && task != NONE {
            // The block-level task's bookkeeping, for the whole block.
            let all = get(&w, word::SPAWNED);
            set(&w, word::SPAWNED, 0);
            let h = w.header(task);
            // SAFETY: the running task's header.
            unsafe {
                if P::JOINS && all > 0 {
                    // A new join, or (finished) a record detached children keep alive.
                    w.open_join(h, all, finished == 1);
                } else if finished == 1 {
                    to_free = task;
                    notify = P::JOINS;
                    notify_parent = (*h).parent;
                }
            }
            spawned = all;
        } else if block_mode {
            spawned = 0;
            finished = 0;
        }
        if !wf || get(&w, word::SHARES) != 0 {
            // Release side of what the batch shares (every batch, for the ablation): the
            // threads' results before the joins' device-scope RMWs, the slots' contents
            // before they go back to other workers' pools.
            a::fence_acq_rel_gpu();
        }
        if any_aborted || get(&w, word::FAILED) != 0 {
            break;
        }
        if wf {
            // Whoever finishes a task keeps its slot (see `pool.rs`): no fence.
            // SAFETY: finished tasks' slots; every warp is converged here.
            unsafe { pool.free_batch_wf(to_free) };
        } else {
            // SAFETY: finished tasks' slots, after the fence (see `pool.rs`).
            unsafe { w.free_warp(to_free) };
        }
        let mut reenqueued = false;
        if P::JOINS && notify {
            if wf {
                // SAFETY: the finished task's parent, after the fence when it is shared; this
                // warp's pool after its frees (see `join.rs`).
                reenqueued = unsafe { w.complete_block_wf(&pool, notify_parent) };
            } else {
                // SAFETY: as above.
                reenqueued = unsafe { w.complete(notify_parent) };
            }
        }
        let resumed = if PROFILE {
            a::bar_red_popc(reenqueued)
        } else {
            u32::from(a::bar_red_or(reenqueued))
        };
        if !wf && resumed != 0 {
            // The shared deque: re-enqueued parents' ring entries, before thread 0 publishes
            // them. (Work first needs no fence here: the thread that completed a shared join
            // acquired with its decrement, and the block barrier above orders memory among
            // the block's threads, so whichever thread runs the parent sees what it saw;
            // `join.rs`.)
            a::fence_acq_rel_gpu();
        }
        if wf && a::lane_id() == 0 {
            // SAFETY: this warp's pool words, between its frees and the next bodies.
            unsafe { pool.refill_wf() };
        }

        // ---- 3. Publish the new tasks, keeping the newest to run next. ----
        if !P::JOINS {
            // Live-task count, as in `thread.rs`: the block's spawns minus its finished tasks.
            let s = a::redux_sync_add_u32(FULL, spawned);
            let f = a::redux_sync_add_u32(FULL, finished);
            if a::lane_id() == 0 && s != f {
                // Raised before the new tasks are published (below, after the barrier), so
                // the count is 0 only when none is left.
                // SAFETY: the control block is valid.
                unsafe { w.flush_live::<false>(s.wrapping_sub(f) as i32) };
            }
            a::bar_sync();
        }
        if t == 0 {
            // SAFETY: thread 0 owns the worker's shared words and deque headers.
            unsafe {
                // Keep the newest block-level task (a resumed parent when there is one: it was
                // reserved last), or else up to a batch of the newest thread-level tasks, to
                // run next without a round trip through the deque (GTaP keeps one task).
                // Ordering: relaxed, scope .cta; written by threads before the barriers.
                let generated_block = a::ld_shared_u32(w.sm_queue(Q_BLOCK).add(2));
                let generated_thread = a::ld_shared_u32(w.sm_queue(Q_THREAD).add(2));
                let (kq, keep) = if generated_block > 0 {
                    (Q_BLOCK, 1)
                } else {
                    (Q_THREAD, generated_thread.min(threads))
                };
                for q in [Q_THREAD, Q_BLOCK] {
                    // Ordering: relaxed, scope .cta; written by threads before the barriers.
                    let g = a::ld_shared_u32(w.sm_queue(q).add(2));
                    if g == 0 {
                        continue;
                    }
                    let keeps = q == kq && keep > 0;
                    let kept_from = w.publish_new::<GLOBAL>(q, g, keeps, keep, wf);
                    if keeps {
                        set(&w, word::KEPT, keep);
                        set(&w, word::KEPT_QUEUE, q);
                        set(&w, word::KEPT_BASE, kept_from);
                    }
                }
                if wf {
                    // A release, or (a ring at least half full) a spill (`overflow.rs`).
                    for q in [Q_THREAD, Q_BLOCK] {
                        let r = w.release_amount(q, true, q, hints[q as usize], false);
                        set(&w, word::RELEASE + q as usize, r);
                    }
                }
                batches += 1;
                // Ordering: relaxed, scope .gpu; a heartbeat the host watchdog samples.
                a::st_relaxed_gpu_u32(heartbeat, batches);
                if batches % STOP_CHECK_EVERY == 0 && w.should_stop() {
                    set(&w, word::FAILED, 1);
                }
                if PROFILE {
                    (*BlockProf::rec(&w)).joins = resumed;
                    prof.finish(&w, a::globaltimer());
                }
            }
        }
        // The next iteration's first barrier orders these publications before its reads;
        // a stop noticed while busy ends the loop there.
        a::bar_sync();
        if get(&w, word::FAILED) != 0 {
            break;
        }
        if GLOBAL {
            // SAFETY: thread 0 staged the batch's publication above.
            unsafe { push_staged::<true>(&w, t, threads, w.smem.add(word::GQ_BASE)) };
        }
        if wf {
            let mut release = [get(&w, word::RELEASE), get(&w, word::RELEASE + 1)];
            for q in [Q_THREAD, Q_BLOCK] {
                let r = release[q as usize];
                if r & SPILL != 0 {
                    // SAFETY: thread 0's plan for this batch (see `overflow.rs`).
                    unsafe { w.spill_private(q, r & !SPILL, t, threads, true) };
                    release[q as usize] = 0;
                }
            }
            if release != [0, 0] {
                // SAFETY: thread 0 chose at most the private count of each queue; the
                // private words are read here and written by thread 0 after the barrier.
                unsafe {
                    for q in [Q_THREAD, Q_BLOCK] {
                        let r = release[q as usize];
                        w.mark_released(q, w.oldest_private(q), r, t, threads);
                    }
                }
                // Release side of the publication: every thread's marks, and the tasks'
                // headers, frames and ring entries written by this block's earlier batches.
                a::fence_acq_rel_gpu();
                a::bar_sync();
                if t == 0 {
                    for q in [Q_THREAD, Q_BLOCK] {
                        if release[q as usize] > 0 {
                            // SAFETY: thread 0, after every thread's fence.
                            unsafe { w.publish_released(q, release[q as usize]) };
                        }
                    }
                }
            }
        }
    }

    if PROFILE && t == 0 {
        // SAFETY: thread 0 owns the block's profile region and count.
        unsafe { prof.close(&w, p) };
    }

    // ---- Exit: per-worker counters for the host (the shared words are free now). ----
    if t == 0 {
        set(&w, word::GOT, 0);
        set(&w, word::QUEUE, 0);
    }
    a::bar_sync();
    let steps = a::redux_sync_add_u32(FULL, steps);
    let spawned = a::redux_sync_add_u32(FULL, spawned_total);
    if a::lane_id() == 0 {
        // SAFETY: the block's shared words.
        // Ordering: relaxed, scope .cta; summed by thread 0 after the barrier.
        unsafe {
            a::atom_shared_add_u32(w.smem.add(word::GOT), steps);
            a::atom_shared_add_u32(w.smem.add(word::QUEUE), spawned);
        }
    }
    a::bar_sync();
    if t == 0 {
        let st = (p.stats as *mut WarpStats).wrapping_add(me as usize);
        // SAFETY: this worker's stats entry.
        unsafe {
            st.write(WarpStats {
                steps: get(&w, word::GOT),
                spawned: get(&w, word::QUEUE),
                steals,
                batches,
            })
        };
    }
}
