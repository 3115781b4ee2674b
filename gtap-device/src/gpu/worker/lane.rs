//! A lane's part of a batch: the step of its task, and (work first) the steps that step leads
//! to, run inline in the same lane: Cilk's work-first rule at the scale of one lane.
//!
//! # Inline execution
//!
//! A step's last child spawned to the batch's queue is *held*: it is written like any child
//! but not put on the ring. When the step returns, the lane runs the held child at once, as
//! the next step of the same lane, without a trip through the batch loop (no warp barrier, no
//! shared-memory bookkeeping, no header load: its kind, state and frame are known). When an
//! inline task finishes and its parent was stepped by this lane in this batch, the lane
//! updates the parent's `pending` itself; if that was the last child, it resumes the parent
//! inline too (if the parent's join goes to the same queue), or completes it if its body had
//! returned. A chain of dependent tasks, or the leftmost path of a divide and conquer, thus
//! costs a few L1/L2 accesses per step instead of a batch per step.
//!
//! # Invariants
//!
//! - **Lane-private tasks.** A task at depth >= 1 (below the batch task in the lane's inline
//!   chain) was spawned by this lane in this batch and never put on a ring, so no other lane or
//!   warp knows it. Its ancestors up to depth 0 were stepped by this lane in this batch, so
//!   their `pending` was set by this lane and their other children are on this warp's ring,
//!   unpublished until the batch ends: nobody else touches those `pending` counters during the
//!   batch, and plain loads and stores in program order suffice (no fence, no atomic).
//! - **The batch task's parent.** The batch task (depth 0) tells its parent itself, and may
//!   resume it, in two cases: the parent's join is owner-only and waits for this child alone
//!   (plain accesses, as above: nobody else may touch that counter), or the join is shared
//!   (marked: a child may finish on any warp). A shared join takes `join.rs`'s device-scope
//!   protocol for a group of one: the lane's own `fence.acq_rel.gpu` releases what it wrote
//!   (its result in the parent's frame), and its acquire RMW on `pending`, if it was the last,
//!   acquires every sibling's. A climb of a stolen subtree's ancestors thus costs a fence and
//!   an RMW a level instead of a batch a level. Any other parent, or a lane out of budget,
//!   goes through the warp's join rounds after the bodies.
//! - **Budget.** A lane runs at most `inline_steps` steps inline per batch, so a batch stays
//!   short (thieves wait for the batch's end to see releases, and the watchdog for its
//!   heartbeat) and the slots it frees fit in its free array (see `MAX_INLINE_STEPS`). A held
//!   child that the budget does not cover goes to the ring after the step, as any child.
//! - **Queues.** Only children spawned to the batch's queue are held, and a parent is resumed
//!   inline only if its join names that queue, so EPAQ's grouping of tasks per queue holds.

use core::marker::PhantomData;

use core::ptr::null_mut;

use super::clone::CallQueue;
use super::ctx::{Ctx, StepLoop};
use crate::gpu::layout::{
    depth_flags, is_slot, task_depth, Header, ERR_INVALID_QUEUE, ERR_PROTOCOL, FLAG_DONE,
    HEADER_BYTES, NONE,
};
use crate::gpu::step::parent_field;
use crate::gpu::warp::Warp;
use crate::task::{Called, KindId, Program, Step, TaskFn};

/// A lane's part of the [`Ctx`] it gives the step it runs (`repr(C)`: see [`Ctx`]).
#[repr(C)]
pub(crate) struct Lane {
    /// The held child's result destination.
    held_dst: *mut u8,
    /// Work-first inline execution: children spawned to this queue are held back (the last
    /// one stays off the ring, for the lane to run next); [`NONE`] holds none.
    hold_q: u32,
    /// The held child of this step ([`NONE`]: none), and its kind.
    held: u32,
    held_kind: u32,
    /// Slots in this lane's free array (work first; see `pool.rs`).
    lane_free: u32,
    /// The work-first scheduler's pools (a constant of the kernel).
    wf: bool,
    /// This step runs children as calls of their clones (`clone.rs`): a constant `false`
    /// in every kernel but the one with clones.
    calls: bool,
    /// The running task's depth bits, and its children's (`FLAG_DEPTH_SHIFT`): constant 0
    /// in every kernel but the one with clones, which keeps depths.
    depth_bits: u16,
    child_flags: u16,
    /// The resume state the step's last wait named (read when it waited for calls alone).
    resume: u32,
    /// Clone calls this lane made in the batch (the run's task count includes them).
    clone_calls: u32,
    /// Children of this step queued to run as calls when it returns (`clone.rs`), and how
    /// many. The queue is a local of `run_lane`, not a field: a field whose address the call
    /// takes would keep the whole context in local memory (every kernel's step then loaded
    /// and stored it there).
    queue: *mut CallQueue,
    queued: u32,
}

// SAFETY: a child's frame is a slot this lane just took from its free array or a pool and
// wrote the header of (`init_child`); `wait` writes the running task's own header.
unsafe impl<P: Program> StepLoop<P> for Lane {
    #[inline(always)]
    unsafe fn spawn_raw(
        ctx: &mut Ctx<'_, P, Self>,
        kind: KindId,
        queue: u32,
        result_dst: *mut u8,
    ) -> *mut u8 {
        let w = ctx.w;
        if w.refuse_spawn(ctx.kind, queue, w.queues, ctx.spawned) {
            return null_mut();
        }
        let l = &mut ctx.ext;
        // SAFETY: the pool and header of the new slot are valid; nobody else sees the slot
        // until the batch publishes it.
        unsafe {
            let slot = if !l.wf {
                w.alloc(kind)
            } else if l.lane_free > 0 {
                let s = w.lane_free_take(l.lane_free);
                l.lane_free -= 1;
                s
            } else {
                w.alloc_wf(kind)
            };
            if slot == NONE {
                return null_mut();
            }
            w.init_child(
                slot,
                kind,
                0,
                parent_field(P::JOINS, ctx.slot),
                result_dst,
                l.child_flags,
            );
            if queue == l.hold_q {
                // Held: the previous held child goes to the ring now (spawn order is kept).
                if l.held != NONE && !w.reserve(queue, l.held, l.held_kind) {
                    return null_mut();
                }
                l.held = slot;
                l.held_kind = kind;
                l.held_dst = result_dst;
            } else if !w.reserve(queue, slot, kind) {
                return null_mut();
            }
            ctx.spawned += 1;
            w.frame(slot)
        }
    }

    #[inline(always)]
    unsafe fn spawn_call<T: TaskFn>(
        ctx: &mut Ctx<'_, P, Self>,
        queue: u32,
        result_dst: *mut T::Output,
        args: T::Args,
    ) -> Called {
        if !ctx.ext.calls || !CallQueue::fits::<T>() || CallQueue::full(ctx.ext.queued) {
            return Called::Declined;
        }
        let w = ctx.w;
        if w.refuse_spawn(ctx.kind, queue, w.queues, ctx.spawned + ctx.ext.queued) {
            return Called::Refused;
        }
        // SAFETY: room and sizes checked above; `result_dst` is valid until the step's wait,
        // and the call runs when the step returns, before anything reads the slot.
        unsafe { (*ctx.ext.queue).push::<T>(ctx.ext.queued, result_dst, args) };
        ctx.ext.queued += 1;
        Called::Ran
    }

    #[inline(always)]
    fn wait(ctx: &mut Ctx<'_, P, Self>, resume_state: u32, queue: u32) -> bool {
        if ctx.ext.queued > 0 {
            // Children to call: the step suspends (its live values saved, as for any
            // join), the lane calls them, and the step goes on at `resume_state`, inline if
            // it spawned no task (`run_lane`).
            ctx.ext.resume = resume_state;
            if ctx.spawned == 0 {
                if queue >= ctx.w.queues {
                    ctx.w
                        .record_error(ERR_INVALID_QUEUE, ctx.kind, ctx.w.queues, queue);
                }
                return true;
            }
        }
        if ctx.spawned == 0 {
            return false;
        }
        let w = ctx.w;
        if queue >= w.queues {
            w.record_error(ERR_INVALID_QUEUE, ctx.kind, w.queues, queue);
        }
        let queue = if queue < w.queues { queue } else { 0 };
        let h = w.header(ctx.slot);
        // SAFETY: the running task's header; published with its children after the step.
        unsafe {
            if ctx.ext.wf {
                // The whole join at once: the step spawned all its children before the
                // `taskwait!`, and returns `Suspended` next.
                w.open_join_local(
                    h,
                    ctx.kind,
                    resume_state,
                    queue,
                    ctx.spawned,
                    false,
                    ctx.ext.depth_bits,
                );
            } else {
                (*h).state = resume_state;
                (*h).queue = queue as u16;
            }
        }
        true
    }
}

/// The header of the held child of `ctx`'s step, as `spawn_raw` wrote it (its parent is
/// `parent` with joins), without reading it back.
#[inline(always)]
fn held_header<P>(ctx: &Ctx<'_, P, Lane>, parent: u32) -> Header
where
    P: Program,
{
    Header {
        kind: ctx.ext.held_kind,
        state: 0,
        queue: 0,
        pending: 0,
        parent: parent_field(P::JOINS, parent),
        flags: ctx.ext.child_flags,
        reserved: 0,
        result_dst: ctx.ext.held_dst as u64,
    }
}

/// What a lane's part of a batch did.
pub(crate) struct LaneOut {
    /// Steps run (the batch task's and the inline ones).
    pub(crate) steps: u32,
    /// Children spawned by all of them.
    pub(crate) spawned: u32,
    /// Programs without joins: tasks finished.
    pub(crate) finished: u32,
    /// A step aborted (an error is recorded).
    pub(crate) aborted: bool,
    /// The finished batch task's slot, freed by the warp after the bodies ([`NONE`]: none).
    pub(crate) to_free: u32,
    /// With joins: the batch task finished, and `notify_parent` must be told.
    pub(crate) notify: bool,
    pub(crate) notify_parent: u32,
    /// Work first: `notify_parent`'s join is marked shared (read when the task finished).
    pub(crate) notify_shared: bool,
    /// Children run as calls of their clones (`clone.rs`), with the calls they made.
    pub(crate) calls: u32,
}

/// Batches of at most this many tasks run inline (a measured choice, `docs/benchmarks.md`).
/// Above it the warp has breadth: a lane that went deep would hold the other lanes back at
/// the batch's end (SIMT), and climbing a tree lane by lane serializes the latency of loads
/// that the join rounds issue for all lanes at once (fib(40) took 40% longer inline).
pub(crate) const INLINE_MAX_TASKS: u32 = 4;

/// Runs the lane's batch task `task` and, work first, up to `budget` more steps it leads to
/// inline (see the module doc); `cur_q` is the batch's queue, `lane_free` the lane's
/// free-array count; `wf` says whether this is the work-first kernel; `clones` whether it is
/// the kernel with clones (it keeps tasks' depths); the children of a task at `call_depth`
/// or deeper run as calls of their clones (`clone.rs`; `u32::MAX`: none this batch). A zero
/// budget (the ablations, or a broad batch) runs one step.
///
/// # Safety
///
/// `task` is a task this warp holds (published and acquired, or kept); the warp runs bodies
/// (no frees in flight); `budget <= MAX_INLINE_STEPS`, and 0 outside the work-first kernel;
/// `clones` only in the work-first kernel of one GPU, for a program with joins, and
/// `call_depth` below `u32::MAX` only with [`crate::gpu::layout::Params::clones`] on.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn run_lane<P: Program>(
    w: &Warp,
    task: u32,
    cur_q: u32,
    wf: bool,
    clones: bool,
    call_depth: u32,
    budget: u32,
    lane_free: &mut u32,
) -> LaneOut {
    let mut out = LaneOut {
        steps: 0,
        spawned: 0,
        finished: 0,
        aborted: false,
        to_free: NONE,
        notify: false,
        notify_parent: NONE,
        notify_shared: false,
        calls: 0,
    };
    let mut queue = CallQueue::EMPTY;
    let mut ctx = Ctx::<'_, P, Lane> {
        w,
        slot: task,
        kind: 0,
        state: 0,
        frame: null_mut(),
        dst: null_mut(),
        spawned: 0,
        ext: Lane {
            wf,
            hold_q: NONE,
            held: NONE,
            held_kind: 0,
            held_dst: null_mut(),
            lane_free: *lane_free,
            calls: false,
            depth_bits: 0,
            child_flags: 0,
            resume: 0,
            clone_calls: 0,
            queue: &raw mut queue,
            queued: 0,
        },
        _program: PhantomData,
    };
    let mut budget = budget;
    // Ancestors of `cur` this lane stepped in this batch (their `pending` is the lane's).
    let mut depth = 0u32;
    let mut cur = task;
    // What the next step needs of `cur`'s header, in registers: read once for the batch task
    // and for a parent resumed here (one round trip for the whole header), made from the
    // spawn's arguments for a held child (no load at all).
    // SAFETY: the caller's task.
    let mut hd = unsafe { w.load_header(w.header(cur)) };
    // SAFETY: for the whole loop, headers and frames of tasks this lane runs (the caller's promise,
    // then lane-private tasks, see the module doc).
    unsafe {
        'lane: loop {
            let h = w.header(cur);
            ctx.slot = cur;
            ctx.kind = hd.kind;
            ctx.state = hd.state;
            ctx.dst = hd.result_dst as *mut u8;
            ctx.frame = h.cast::<u8>().add(HEADER_BYTES as usize);
            ctx.spawned = 0;
            ctx.ext.queued = 0;
            ctx.ext.held = NONE;
            ctx.ext.hold_q = if budget > 0 { cur_q } else { NONE };
            if clones {
                // Depths (`clone.rs`): this task's, kept by its joins; its children's; and
                // whether they are calls.
                let depth = task_depth(hd.flags);
                ctx.ext.depth_bits = depth_flags(depth);
                ctx.ext.child_flags = depth_flags(depth + 1);
                ctx.ext.calls = depth >= call_depth;
            }
            let kind = hd.kind;
            let step = P::dispatch(&mut ctx, kind);
            let spawned = ctx.spawned;
            out.steps += 1;
            out.spawned += spawned;
            if ctx.ext.calls && ctx.ext.queued > 0 && step != Step::Aborted {
                // The step's children that run as calls, before anything else sees the step
                // (one call site for the kernel: `clone::run_calls`).
                let r = super::clone::run_calls::<P>(
                    w.warp,
                    w.lane,
                    w.smem,
                    ctx.ext.queue,
                    ctx.ext.queued,
                    ctx.ext.lane_free,
                );
                ctx.ext.queued = 0;
                ctx.ext.lane_free = r.lane_free;
                ctx.ext.clone_calls += r.calls;
                if step == Step::Suspended && spawned == 0 {
                    // It waited for calls alone: it goes on at once.
                    hd.state = ctx.ext.resume;
                    continue 'lane;
                }
            }
            match step {
                Step::Aborted => {
                    out.aborted = true;
                    break;
                }
                Step::Suspended if !P::JOINS => {
                    w.record_error(ERR_PROTOCOL, kind, 0, 1);
                    out.aborted = true;
                    break;
                }
                Step::Suspended | Step::Done if P::JOINS && spawned > 0 => {
                    // A new join (or, Done, a record kept alive by detached children), owned
                    // by this warp until a child is released (work first), or published with
                    // the children by the batch's fence + add (the ablations).
                    if wf {
                        // `wait` opened a suspension's join (`Lane::wait`); a returned body's
                        // record is never resumed: its state and queue are left at 0.
                        if step == Step::Done {
                            w.open_join_local(h, kind, 0, 0, spawned, true, ctx.ext.depth_bits);
                        }
                    } else {
                        w.open_join(h, spawned, step == Step::Done);
                    }
                }
                Step::Done if P::JOINS => {
                    // Finished: tell the parent. The lane does it itself, and may run the
                    // parent next, when it may settle the parent's join alone: a parent it
                    // stepped in this batch (depth >= 1), an owner-only parent waiting for
                    // this child alone, or a shared parent (the device-scope protocol for a
                    // group of one). Otherwise the warp's join rounds do it after the bodies.
                    let mut fin = cur;
                    let mut parent = hd.parent;
                    loop {
                        let mut shared = false;
                        if depth == 0 {
                            if !(budget > 0 && is_slot(parent) && w.waits_for_one(parent)) {
                                // Read now either way: the join rounds use it too, and the
                                // load's latency hides behind the other lanes' bodies (a mark
                                // changes only between batches, see `join.rs`).
                                shared = wf && is_slot(parent) && w.is_shared(parent);
                                if !(shared && budget > 0) {
                                    out.to_free = fin;
                                    out.notify = true;
                                    out.notify_parent = parent;
                                    out.notify_shared = shared;
                                    break 'lane;
                                }
                            }
                            budget -= 1;
                        } else {
                            depth -= 1;
                        }
                        w.lane_free_put(ctx.ext.lane_free, fin);
                        ctx.ext.lane_free += 1;
                        let ph = w.header(parent);
                        let pd = if shared {
                            // Another warp may hold a sibling: the fence and acquire RMW of
                            // `join.rs`, then, the last child, the parent's header and frame
                            // as its other children left them (both asked for at once).
                            if !w.tell_shared_in_lane(ph) {
                                break 'lane;
                            }
                            w.prefetch_frame(ph);
                            w.load_header(ph)
                        } else {
                            // The whole header at once: the parent's join is the lane's
                            // (plain accesses), and if this was its last child it runs next,
                            // reading its frame (asked for now, so both round trips overlap).
                            w.prefetch_frame(ph);
                            let mut pd = w.load_header(ph);
                            pd.pending -= 1;
                            if pd.pending != 0 {
                                (*ph).pending = pd.pending;
                                break 'lane;
                            }
                            // Its last child: the completed join's counter is not stored
                            // (see `Warp::tell_parent`).
                            pd
                        };
                        if pd.flags & FLAG_DONE != 0 {
                            // Its body had returned: it is complete too.
                            fin = parent;
                            parent = pd.parent;
                            continue;
                        }
                        if u32::from(pd.queue) == cur_q && budget > 0 {
                            budget -= 1;
                            cur = parent;
                            hd = pd;
                            continue 'lane;
                        }
                        // Resumed on its own queue by the batch loop (a plain ring entry of
                        // this warp, like any child of the batch).
                        if !w.reserve(u32::from(pd.queue), parent, pd.kind) {
                            out.aborted = true;
                        }
                        break 'lane;
                    }
                }
                Step::Done => {
                    out.finished += 1;
                    if out.to_free == NONE {
                        out.to_free = cur;
                    } else {
                        w.lane_free_put(ctx.ext.lane_free, cur);
                        ctx.ext.lane_free += 1;
                    }
                }
                // Unreachable: `Suspended` with joins matched above, spawned or not (a
                // suspension without children is the generated code's bug).
                Step::Suspended => {
                    w.record_error(ERR_PROTOCOL, kind, 0, 2);
                    out.aborted = true;
                    break;
                }
            }
            // The two arms that get here (a step that opened a join, or a finished task of a
            // program without joins) run the step's held child next, if it has one.
            if ctx.ext.held == NONE {
                break;
            }
            if spawned > 1 && !w.inline_last_child {
                // Policy: only a lone child runs inline; siblings keep the warp's breadth
                // (see `Config::inline_last_child`).
                if !w.reserve(cur_q, ctx.ext.held, ctx.ext.held_kind) {
                    out.aborted = true;
                }
                break;
            }
            budget -= 1;
            depth += 1;
            hd = held_header(&ctx, cur);
            cur = ctx.ext.held;
        }
    }
    *lane_free = ctx.ext.lane_free;
    out.calls = ctx.ext.clone_calls;
    out
}
