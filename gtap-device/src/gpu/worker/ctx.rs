//! The [`Context`] a worker gives the step it runs, written once for both loops: what a step
//! reads of its task (resume state, frame, result destination) and the errors it reports are
//! the same on a lane (`lane.rs`) and on a block's thread (`block.rs`). What each loop does
//! its own way, where a child goes and how a join is announced, is its [`StepLoop`].

use core::marker::PhantomData;

use crate::gpu::layout::ERR_UNKNOWN_KIND;
use crate::gpu::warp::Warp;
use crate::task::{Called, Context, KindId, Program, Step, TaskFn};

/// The [`Context`] of one running step; `L` is the loop's own part.
///
/// `repr(C)`, in this order: the fields lie as they did in the two structs this one replaced,
/// so a lane's loop-carried values come out of LLVM's scalar replacement in the same order
/// and the kernels' PTX is unchanged (a layout of rustc's choosing reorders their moves).
#[repr(C)]
pub(super) struct Ctx<'w, P, L> {
    pub(super) w: &'w Warp,
    /// The running task's frame, and where its result goes (null: discarded).
    pub(super) frame: *mut u8,
    pub(super) dst: *mut u8,
    /// The running task's slot, kind and resume state.
    pub(super) slot: u32,
    pub(super) kind: u32,
    pub(super) state: u32,
    /// Children spawned by this step.
    pub(super) spawned: u32,
    /// What the loop keeps for its [`StepLoop`] methods.
    pub(super) ext: L,
    pub(super) _program: PhantomData<P>,
}

/// What a worker loop does its own way in a step's [`Context`].
///
/// # Safety
///
/// `spawn_raw` and `wait` keep [`Context::spawn_raw`]'s and [`Context::wait`]'s contracts for
/// the running task `ctx.slot`.
pub(super) unsafe trait StepLoop<P>: Sized {
    /// [`Context::spawn_raw`] for the step `ctx` runs.
    ///
    /// # Safety
    ///
    /// As for [`Context::spawn_raw`].
    unsafe fn spawn_raw(
        ctx: &mut Ctx<'_, P, Self>,
        kind: KindId,
        queue: u32,
        result_dst: *mut u8,
    ) -> *mut u8;

    /// [`Context::wait`] for the step `ctx` runs.
    fn wait(ctx: &mut Ctx<'_, P, Self>, resume_state: u32, queue: u32) -> bool;

    /// [`Context::spawn_call`] for the step `ctx` runs: declined, unless the loop runs
    /// children as calls.
    ///
    /// # Safety
    ///
    /// As for [`Context::spawn_call`].
    #[inline(always)]
    unsafe fn spawn_call<T: TaskFn>(
        ctx: &mut Ctx<'_, P, Self>,
        queue: u32,
        result_dst: *mut T::Output,
        args: T::Args,
    ) -> Called {
        let _ = (ctx, queue, result_dst, args);
        Called::Declined
    }

    /// [`Context::args`] for the step `ctx` runs: its frame, unless the loop says otherwise.
    #[inline(always)]
    fn args(ctx: &Ctx<'_, P, Self>) -> *mut u8 {
        ctx.frame
    }

    /// [`Context::copy`] for the step `ctx` runs: one copy, unless the loop says otherwise.
    #[inline(always)]
    fn copy(_ctx: &Ctx<'_, P, Self>) -> (u32, u32) {
        (0, 1)
    }
}

// SAFETY: `frame` is the running task's frame, in a 16-aligned slot of at least every kind's
// layout (the host sizes slots from the probe pass; `block.rs` gives a joining block-level
// kind a frame per thread: a whole copy, or its element of each field as `copy` says, and
// `args` the copy whose arguments it reads); a suspended task is resumed once, by its last
// child, after the acquire pattern of `join.rs`; `spawn_raw` and `wait` are the loop's
// ([`StepLoop`]'s contract).
unsafe impl<P: Program, L: StepLoop<P>> Context for Ctx<'_, P, L> {
    #[inline(always)]
    fn state(&self) -> u32 {
        self.state
    }

    #[inline(always)]
    fn frame(&self) -> *mut u8 {
        self.frame
    }

    #[inline(always)]
    fn args(&self) -> *mut u8 {
        L::args(self)
    }

    #[inline(always)]
    fn copy(&self) -> (u32, u32) {
        L::copy(self)
    }

    #[inline(always)]
    fn result_dst(&self) -> *mut u8 {
        self.dst
    }

    #[inline(always)]
    unsafe fn spawn_raw(&mut self, kind: KindId, queue: u32, result_dst: *mut u8) -> *mut u8 {
        // SAFETY: the caller's promise, passed on.
        unsafe { L::spawn_raw(self, kind, queue, result_dst) }
    }

    #[inline(always)]
    fn wait(&mut self, resume_state: u32, queue: u32) -> bool {
        L::wait(self, resume_state, queue)
    }

    #[inline(always)]
    unsafe fn spawn_call<T: TaskFn>(
        &mut self,
        queue: u32,
        result_dst: *mut T::Output,
        args: T::Args,
    ) -> Called {
        // SAFETY: the caller's promise, passed on.
        unsafe { L::spawn_call::<T>(self, queue, result_dst, args) }
    }

    fn report_layout(&mut self, _size: usize, _align: usize) {}

    #[cold]
    fn unknown_kind(&mut self, kind: KindId) -> Step {
        self.w.record_error(ERR_UNKNOWN_KIND, kind, 0, 0);
        Step::Aborted
    }
}
