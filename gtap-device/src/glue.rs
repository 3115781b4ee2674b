//! Support functions that `#[gtap::function]`'s generated code calls (re-exported by the facade
//! as `gtap::__private`). Not for direct use: their contracts are those of [`crate::task`].
//!
//! They take marker *values* (`&f`), never marker types, so that a non-task function in
//! `task!` is reported by [`TaskFn`]'s `on_unimplemented` message rather than a "cannot find
//! type" error.

use crate::task::{Arity, Context, TaskFn};

/// Default limit on a task-data struct, in bytes; override per function with
/// `#[gtap::function(max_frame_bytes = N)]`.
pub const DEFAULT_MAX_FRAME_BYTES: usize = 256;

/// Spawns `f(args)` as a child of the running task. Returns `false` when the scheduler refused
/// (error recorded): the step must return `Step::Aborted`.
///
/// # Safety
///
/// `result_dst` is null or points into the running task's frame, at a field of type
/// `T::Output` that stays untouched until the child is joined.
#[inline(always)]
pub unsafe fn spawn<T, const N: usize, C>(
    ctx: &mut C,
    _f: &T,
    queue: u32,
    result_dst: *mut T::Output,
    args: T::Args,
) -> bool
where
    T: Arity<N>,
    C: Context,
{
    // SAFETY: the caller's contract on `result_dst` is the one `spawn_raw` asks for.
    let frame = unsafe { ctx.spawn_raw(T::ID, queue, result_dst.cast()) };
    if frame.is_null() {
        return false;
    }
    // SAFETY: the scheduler returned a fresh, 16-aligned frame of at least this kind's size;
    // the arguments live at offset 0 (the frame struct is #[repr(C)] with `args` first).
    unsafe { frame.cast::<T::Args>().write(args) };
    true
}

/// A null result destination typed for `f`'s output (a discarded result).
#[inline(always)]
#[must_use]
pub fn discard<T: TaskFn>(_f: &T) -> *mut T::Output {
    core::ptr::null_mut()
}

/// The layout of the frame type behind `p`, checked against `LIMIT` at compile time.
#[inline(always)]
#[must_use]
pub fn frame_layout<F, const LIMIT: usize>(_p: *mut F) -> (usize, usize) {
    const {
        assert!(
            core::mem::size_of::<F>() <= LIMIT,
            "the task-data struct of this #[gtap::function] is larger than its limit: keep fewer or smaller locals live across taskwait!(), or raise the limit with #[gtap::function(max_frame_bytes = N)]"
        );
    };
    (core::mem::size_of::<F>(), core::mem::align_of::<F>())
}

/// Writes the running task's result, unless it is discarded.
///
/// # Safety
///
/// `dst` is `ctx.result_dst()` of the running task, cast to its output type.
#[inline(always)]
pub unsafe fn write_result<R: Copy>(dst: *mut R, value: R) {
    if !dst.is_null() {
        // SAFETY: non-null result destinations are valid for a write of R (Context contract).
        unsafe { dst.write(value) };
    }
}

/// A value that can be kept in a task-data struct across a `taskwait!()`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be kept across `taskwait!()`: values live across a join must be `Copy` and own no borrow",
    label = "live across a `taskwait!()`",
    note = "copy what you need out of it before the `taskwait!()`, or recompute it afterwards"
)]
pub trait Spill: Copy + 'static {}
impl<T: Copy + 'static> Spill for T {}

/// Stores a live local into its task-data field before a suspension.
///
/// # Safety
///
/// `field` points into the running task's frame.
#[inline(always)]
pub unsafe fn save<T: Spill>(field: *mut T, value: T) {
    // SAFETY: the caller guarantees `field` is a valid frame field.
    unsafe { field.write(value) };
}

/// A queue hint's value: any unsigned or signed integer; negative or too large values make the
/// spawn fail with an error naming the queue count to raise.
pub trait QueueIndex: Copy {
    /// The index, or `u32::MAX` when it cannot be one.
    fn to_queue(self) -> u32;
}
macro_rules! queue_index {
    ($($t:ty),*) => {$(
        impl QueueIndex for $t {
            #[inline(always)]
            fn to_queue(self) -> u32 {
                u32::try_from(self).unwrap_or(u32::MAX)
            }
        }
    )*};
}
queue_index!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize);

/// The queue index of a `queue = e` hint.
#[inline(always)]
pub fn queue<Q: QueueIndex>(q: Q) -> u32 {
    q.to_queue()
}
