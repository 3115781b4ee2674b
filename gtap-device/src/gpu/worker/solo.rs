//! A clone's child past the stack's floor (`clone.rs`): the child and its whole subtree run
//! as records of this lane alone, stepped one after the other by a loop that does not nest.
//! The lane's stack stays where it is however deep the subtree goes (a chain of a million
//! dependent tasks reached from a clone costs records, not frames), and its state machines
//! suspend and resume as they would on a warp.
//!
//! # Invariants
//!
//! - **Lane-private.** Every record here was allocated and written by this lane and is never
//!   put on a ring: no other thread can name it, so headers, frames and `pending` counters
//!   are read and written with plain accesses in program order; results go to the parent's
//!   frame, or for the subtree's root to this lane's local memory.
//! - **Ready list.** Records ready to step are linked through their headers' `reserved` word
//!   (LIFO: the subtree is walked depth first, as a call would walk it). A child is linked
//!   when its parent's step spawns it, which is before the parent returns to this loop, so a
//!   child never runs before its arguments are written.
//! - **Joins.** A step that suspends sets its `pending` to its children; a finished child
//!   lowers it, and the last one links the parent again (or, if its body had returned with
//!   detached children, completes it and goes on to its parent). The root is never told: the
//!   loop ends when it completes.
//! - **Slots.** Records come from the lane's free array, refilled [`LANE_CHUNK`](crate::gpu::pool::LANE_CHUNK) fresh
//!   slots at a time from the arena, and go back to it, half of a full array moving to the
//!   spill ring at once (`pool.rs`); when the subtree is done the array holds no more than
//!   it did before, or [`LANE_FREE_KEEP`], so the batch's inline budget still fits.
//! - **Stops.** Every [`clone::LOOK_EVERY`] steps the lane looks at the run and leaves on a
//!   stop, as in a clone; a step that aborts (a recorded error) makes it leave too.

use core::marker::PhantomData;
use core::mem::MaybeUninit;
use core::ptr::null_mut;

use super::clone::{self, CallsOut};
use crate::arch::nvptx as a;
use crate::gpu::layout::{
    ERR_INVALID_QUEUE, ERR_PROTOCOL, ERR_UNKNOWN_KIND, FLAG_DONE, LANE_FREE_KEEP, NONE,
};
use crate::gpu::warp::{stop_requested, Warp};
use crate::task::{Context, KindId, Program, Step, TaskFn};

/// The [`Context`] of a step run here.
struct Solo<'w, P> {
    w: &'w Warp,
    slot: u32,
    kind: u32,
    state: u32,
    frame: *mut u8,
    dst: *mut u8,
    /// Children this step spawned.
    spawned: u32,
    /// The ready list's first record ([`NONE`]: empty).
    ready: u32,
    /// This lane's free-array count.
    lane_free: u32,
    /// Records spawned below the root (the run's task count; the root was counted as the
    /// clone's `task!`).
    made: u32,
    _program: PhantomData<P>,
}

// SAFETY: frames are slots this lane allocated and wrote (see the module doc); a suspended
// record is linked again once, by its last child, after every child's result was written
// (program order).
unsafe impl<P: Program> Context for Solo<'_, P> {
    #[inline(always)]
    fn state(&self) -> u32 {
        self.state
    }

    #[inline(always)]
    fn frame(&self) -> *mut u8 {
        self.frame
    }

    #[inline(always)]
    fn result_dst(&self) -> *mut u8 {
        self.dst
    }

    #[inline(always)]
    unsafe fn spawn_raw(&mut self, kind: KindId, queue: u32, result_dst: *mut u8) -> *mut u8 {
        let w = self.w;
        if w.refuse_spawn(self.kind, queue, w.queues, self.spawned) {
            return null_mut();
        }
        // SAFETY: the warp runs bodies; a fresh slot nobody else can name.
        unsafe {
            let slot = w.alloc_lane_chunk(kind, &mut self.lane_free);
            if slot == NONE {
                return null_mut();
            }
            w.init_child(slot, kind, queue, self.slot, result_dst, 0);
            (*w.header(slot)).reserved = self.ready;
            self.ready = slot;
            self.spawned += 1;
            self.made += 1;
            w.frame(slot)
        }
    }

    #[inline(always)]
    fn wait(&mut self, resume_state: u32, queue: u32) -> bool {
        let w = self.w;
        if queue >= w.queues {
            w.record_error(ERR_INVALID_QUEUE, self.kind, w.queues, queue);
        }
        if self.spawned == 0 {
            return false;
        }
        // SAFETY: this lane's record (module doc).
        unsafe {
            let h = w.header(self.slot);
            (*h).state = resume_state;
            (*h).pending = self.spawned;
        }
        true
    }

    fn report_layout(&mut self, _size: usize, _align: usize) {}

    #[cold]
    fn unknown_kind(&mut self, kind: KindId) -> Step {
        self.w.record_error(ERR_UNKNOWN_KIND, kind, 0, 0);
        Step::Aborted
    }
}

/// Runs `T(args)` and its subtree as records of this lane (see the module doc) and returns
/// its result; adds the records it spawned below `T` to `calls`.
///
/// # Safety
///
/// The warp runs bodies; `*lane_free` is this lane's free-array count.
#[inline(always)]
pub(crate) unsafe fn run<P: Program, T: TaskFn>(
    w: &Warp,
    queue: u32,
    args: T::Args,
    lane_free: &mut u32,
    calls: &mut u32,
) -> T::Output {
    let mut out = MaybeUninit::<T::Output>::uninit();
    // SAFETY: the warp runs bodies; a fresh slot nobody else can name.
    unsafe {
        let entry = *lane_free;
        let root = w.alloc_lane_chunk(T::ID, lane_free);
        if root == NONE {
            a::exit();
        }
        w.init_child(root, T::ID, queue, NONE, out.as_mut_ptr().cast(), 0);
        w.frame(root).cast::<T::Args>().write(args);
        let r = run_records::<P>(w, root, *lane_free);
        // The batch's inline steps after the calls count on the array's room as it was.
        let mut left = r.lane_free;
        w.spill_lane_frees(&mut left, entry.max(LANE_FREE_KEEP));
        *lane_free = left;
        *calls += r.calls;
        out.assume_init()
    }
}

/// The loop of [`run`] from the record `root` (written, its parent [`NONE`]); one per
/// program, not per kind: it steps every kind of `P`, and a copy per kind made the kernels of
/// programs with many kinds ten times slower to compile. Returns the lane's free-array count
/// and the records spawned.
///
/// # Safety
///
/// As for [`run`]; `root` is this lane's record.
#[inline(never)]
unsafe fn run_records<P: Program>(w: &Warp, root: u32, lane_free: u32) -> CallsOut {
    let mut cx = Solo::<P> {
        w,
        slot: NONE,
        kind: 0,
        state: 0,
        frame: null_mut(),
        dst: null_mut(),
        spawned: 0,
        ready: root,
        lane_free,
        made: 0,
        _program: PhantomData,
    };
    // SAFETY: for the whole loop, this lane's records (module doc).
    unsafe {
        (*w.header(root)).reserved = NONE;
        let mut steps = 0u32;
        while cx.ready != NONE {
            let slot = cx.ready;
            let h = w.header(slot);
            let hd = w.load_header(h);
            cx.ready = hd.reserved;
            cx.slot = slot;
            cx.kind = hd.kind;
            cx.state = hd.state;
            cx.frame = w.frame(slot);
            cx.dst = hd.result_dst as *mut u8;
            cx.spawned = 0;
            steps += 1;
            if steps % clone::LOOK_EVERY == 0 && stop_requested(w.control) {
                a::exit();
            }
            match P::dispatch_outlined(&mut cx, hd.kind) {
                Step::Aborted => a::exit(),
                Step::Suspended => {
                    if cx.spawned == 0 {
                        w.record_error(ERR_PROTOCOL, hd.kind, 0, 3);
                        a::exit();
                    }
                }
                Step::Done if cx.spawned > 0 => {
                    // Its record lives on for its detached children.
                    (*h).flags |= FLAG_DONE;
                    (*h).pending = cx.spawned;
                }
                Step::Done => {
                    // Finished: tell the parents up the chain that it completes.
                    let mut fin = slot;
                    loop {
                        let parent = (*w.header(fin)).parent;
                        w.free_lane_chunk(fin, &mut cx.lane_free);
                        if parent == NONE {
                            break;
                        }
                        let ph = w.header(parent);
                        let left = (*ph).pending - 1;
                        (*ph).pending = left;
                        if left != 0 {
                            break;
                        }
                        if (*ph).flags & FLAG_DONE == 0 {
                            // Its join completed: it resumes.
                            (*ph).reserved = cx.ready;
                            cx.ready = parent;
                            break;
                        }
                        fin = parent;
                    }
                }
            }
        }
        CallsOut {
            lane_free: cx.lane_free,
            calls: cx.made,
        }
    }
}
