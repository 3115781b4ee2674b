//! Support functions that `#[gtap::function]`'s generated code calls (re-exported by the facade
//! as `gtap::__private`). Not for direct use: their contracts are those of [`crate::task`].
//!
//! They take marker *values* (`&f`), never marker types, so that a non-task function in
//! `task!` is reported by [`TaskFn`]'s `on_unimplemented` message rather than a "cannot find
//! type" error.

use crate::task::{Arity, Called, Context, TaskFn};

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
    // SAFETY: forwarded.
    unsafe { spawn_task(ctx, _f, queue, result_dst, args) }
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
            "the task-data struct of this #[gtap::function] (its arguments, task results and locals live across taskwait!()) is larger than its limit: raise the limit with #[gtap::function(max_frame_bytes = N)] (and Config::task_data_limit where it runs), or keep fewer or smaller values in it"
        );
    };
    (core::mem::size_of::<F>(), core::mem::align_of::<F>())
}

/// `args` (the running task's [`Context::args`]) as a pointer to the task-data struct behind
/// `frame`: the same type, inferred from the frame (a block-level step reads its arguments
/// through it).
#[inline(always)]
#[must_use]
pub fn args_frame<F>(_frame: *mut F, args: *mut u8) -> *mut F {
    args.cast()
}

/// Where thread `copy.0` of `copy.1` keeps the field at `field` of the task-data struct at
/// `frame`, laid out field by field: the field at offset `o` is an array of `copy.1` elements
/// at `o * copy.1` (see `docs/block-workers.md`, "Frames"). `(0, 1)` is the field itself.
///
/// The slot holds `copy.1` times the struct's size, so every element lies inside it: a field
/// at `o` of size `s` ends at `(o + s) * copy.1` at most, and its elements are aligned because
/// `o` and `s` are multiples of its alignment.
#[inline(always)]
#[must_use]
pub fn thread_field<F, T>(frame: *mut F, field: *mut T, copy: (u32, u32)) -> *mut T {
    let offset = (field as usize).wrapping_sub(frame as usize);
    let (t, n) = (copy.0 as usize, copy.1 as usize);
    field.wrapping_byte_add(offset * (n - 1) + t * core::mem::size_of::<T>())
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

// ---- Helpers for the code `#[gtap::function]` generates (gtap-macros). ----

/// The `?` operator in a task function: `e?` becomes `match branch(e) { Ok(v) => v, Err(r) =>
/// return finish(from_residual(r)) }`, the stable spelling of `core::ops::Try` for the two
/// types `?` is used with, `Option` and `Result`.
#[diagnostic::on_unimplemented(
    message = "the `?` operator in a #[gtap::function] applies to an `Option` or a `Result`, not to `{Self}`",
    label = "not an `Option` or `Result`"
)]
pub trait Branch {
    /// The value `?` yields when it does not return.
    type Output;
    /// What `?` returns with: `Option<Infallible>` or `Result<Infallible, E>`.
    type Residual;
    /// Splits the value into what `?` yields and what it returns.
    ///
    /// # Errors
    ///
    /// The residual (`None`, `Err(e)`) when `?` returns.
    fn branch(self) -> Result<Self::Output, Self::Residual>;
}

impl<T> Branch for Option<T> {
    type Output = T;
    type Residual = Option<core::convert::Infallible>;
    #[inline(always)]
    fn branch(self) -> Result<T, Self::Residual> {
        self.ok_or(None)
    }
}

impl<T, E> Branch for Result<T, E> {
    type Output = T;
    type Residual = Result<core::convert::Infallible, E>;
    #[inline(always)]
    fn branch(self) -> Result<T, Self::Residual> {
        self.map_err(Err)
    }
}

/// The task's result built from what `?` returns with (`None`, or `Err(From::from(e))`).
#[diagnostic::on_unimplemented(
    message = "the `?` operator cannot return `{R}` from a #[gtap::function] that returns `{Self}`",
    label = "this `?` returns early with the wrong kind of value",
    note = "`?` on an `Option` needs a task returning an `Option`, `?` on a `Result<_, E>` one returning `Result<_, F>` with `F: From<E>`"
)]
pub trait FromResidual<R> {
    /// The early-returned value.
    fn from_residual(residual: R) -> Self;
}

impl<T> FromResidual<Option<core::convert::Infallible>> for Option<T> {
    #[inline(always)]
    fn from_residual(_: Option<core::convert::Infallible>) -> Self {
        None
    }
}

impl<T, E, F: From<E>> FromResidual<Result<core::convert::Infallible, E>> for Result<T, F> {
    #[inline(always)]
    fn from_residual(residual: Result<core::convert::Infallible, E>) -> Self {
        match residual {
            Err(e) => Err(From::from(e)),
            Ok(never) => match never {},
        }
    }
}

/// `?`'s split of `value` (see [`Branch`]).
///
/// # Errors
///
/// The residual when `?` returns.
#[inline(always)]
pub fn branch<B: Branch>(value: B) -> Result<B::Output, B::Residual> {
    value.branch()
}

/// The result `?` returns with (see [`FromResidual`]).
#[inline(always)]
pub fn from_residual<T: FromResidual<R>, R>(residual: R) -> T {
    T::from_residual(residual)
}

/// `value`, typed like the zero-sized task-data field `_ty` (the value of a `let` over a
/// construct that contains a join: every resume state reads it with the same type).
#[inline(always)]
#[must_use]
pub fn typed<T>(value: T, _ty: *mut core::marker::PhantomData<T>) -> T {
    value
}

/// The task-data field of a saved local, typed like the local: `spawn` into a place inside it
/// (`counts[i] = task!(..)`) projects through the returned pointer, whose type rustc knows
/// from the local even before the field's generic type is inferred.
#[inline(always)]
#[must_use]
pub fn field_like<T>(field: *mut T, _local: &T) -> *mut T {
    field
}

pub use crate::task::{kind_id, kind_id_mix, kind_of};
use crate::task::{KindId, Step};

/// Checks that a `task!` callee is a task function. Generated before each spawn so that a
/// plain function in `task!` is reported by [`TaskFn`]'s message first.
#[inline(always)]
pub const fn task_fn<T: TaskFn>(_f: &T) {}

/// What a step returns for a resume state it does not know (a corrupted task record): the
/// scheduler is told through [`Context::unknown_kind`] and aborts the run.
#[inline(always)]
pub fn invalid_state<C: Context>(ctx: &mut C) -> Step {
    ctx.unknown_kind(KindId::MAX)
}

/// The running task's result destination, typed: `return e` in a task function becomes
/// `return __gtap_result.finish(e)`.
pub struct ResultSlot<R> {
    dst: *mut R,
}

impl<R> Clone for ResultSlot<R> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<R> Copy for ResultSlot<R> {}

impl<R: Copy> ResultSlot<R> {
    /// Wraps `ctx.result_dst()`.
    ///
    /// # Safety
    ///
    /// `dst` is the running task's `result_dst()`: null, or valid for a write of `R` (the
    /// task's output type) until the task finishes.
    #[inline(always)]
    #[must_use]
    pub unsafe fn new(dst: *mut u8) -> Self {
        ResultSlot { dst: dst.cast() }
    }

    /// Writes the result (unless it is discarded) and returns [`Step::Done`].
    #[inline(always)]
    pub fn finish(self, value: R) -> Step {
        // SAFETY: `new`'s contract: null or valid for a write of `R`.
        unsafe { write_result(self.dst, value) };
        Step::Done
    }
}

/// A [`Context`] for the layout probe only: [`probe_layout`] and [`probe_kind`] run a task
/// function's step with it, which instantiates the step (and its compile-time size check) and
/// reports the task-data struct's layout.
pub struct LayoutProbe {
    layout: Option<(usize, usize)>,
}

// SAFETY: with `PROBE = true` a generated step only calls `report_layout` and returns; the
// other methods are never reached and return values that stop a step that did reach them.
unsafe impl Context for LayoutProbe {
    const PROBE: bool = true;
    fn state(&self) -> u32 {
        0
    }
    fn frame(&self) -> *mut u8 {
        core::ptr::null_mut()
    }
    fn result_dst(&self) -> *mut u8 {
        core::ptr::null_mut()
    }
    unsafe fn spawn_raw(&mut self, _: KindId, _: u32, _: *mut u8) -> *mut u8 {
        core::ptr::null_mut()
    }
    fn wait(&mut self, _: u32, _: u32) -> bool {
        false
    }
    fn report_layout(&mut self, size: usize, align: usize) {
        self.layout = Some((size, align));
    }
    fn unknown_kind(&mut self, _: KindId) -> Step {
        Step::Aborted
    }
}

/// The (size, alignment) of the task-data struct of task function `f`. Instantiating it
/// (building a program that calls it) also evaluates the `max_frame_bytes` check.
#[must_use]
pub fn probe_layout<T: TaskFn>(_f: &T) -> (usize, usize) {
    let mut probe = LayoutProbe { layout: None };
    // SAFETY: a probe pass touches no frame (the `Context::PROBE` protocol).
    let _ = unsafe { T::step(&mut probe) };
    probe.layout.unwrap_or((0, 1))
}

/// The (size, alignment) that kind `kind` of program `P` reports on a probe pass; `None` when
/// its step returns without reporting one, or without `Done`.
#[must_use]
pub fn probe_kind<P: crate::task::Program>(kind: KindId) -> Option<(usize, usize)> {
    let mut probe = LayoutProbe { layout: None };
    // SAFETY: a probe pass touches no frame and no result destination (the `Context::PROBE`
    // protocol); a kind `P` does not know gets `unknown_kind`, which aborts.
    match unsafe { P::dispatch(&mut probe, kind) } {
        Step::Done => probe.layout,
        _ => None,
    }
}

/// Spawns `f(args)` like [`spawn`], but bounded only by [`TaskFn`], so that a plain function in
/// `task!` gets exactly one message ("is not a gtap task function"); the argument count is
/// checked separately by [`arity`].
///
/// # Safety
///
/// As for [`spawn`].
#[inline(always)]
pub unsafe fn spawn_task<T: TaskFn, C: Context>(
    ctx: &mut C,
    _f: &T,
    queue: u32,
    result_dst: *mut T::Output,
    args: T::Args,
) -> bool {
    if T::HAS_SEQ {
        // A child the executor runs at once as a call of its clone (a GPU lane whose warp has
        // enough ready work); its result reaches `result_dst` at the step's next wait.
        // SAFETY: the caller's contract on `result_dst` is the one `spawn_call` asks for.
        match unsafe { ctx.spawn_call::<T>(queue, result_dst, args) } {
            Called::Ran => return true,
            Called::Refused => return false,
            Called::Declined => {}
        }
    }
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

/// `task!(queue = queue, f(args))` in a sequential clone ([`crate::task::TaskFn::seq`]): `f`'s
/// clone at once when the executor allows it, else `f` as a task; its result either way.
#[inline(always)]
pub fn seq_task<T: TaskFn, S: crate::task::SeqContext>(
    cx: &mut S,
    _f: &T,
    queue: u32,
    spawned: &mut u32,
    args: T::Args,
) -> T::Output {
    let clone = cx.seq_spawn(queue, spawned);
    if T::HAS_SEQ && clone {
        cx.seq_call::<T>(args)
    } else {
        cx.run_task::<T>(queue, args)
    }
}

/// A body that ends `let b = task!(f(..)); taskwait!(); TAIL`, with `f` the function itself,
/// in a sequential clone: the spawn and the join's count first, then the child, whose result
/// goes to `tail` (the rest of the body) in each branch, so that the clone's call of itself is
/// the last thing it does before `tail`'s arithmetic: LLVM can then make it a loop, as it does
/// the plain recursion's (`docs/cpu-executor.md`). The order matches the state machine's: the
/// spawn's arguments, then the join's queue, then the child.
#[inline(always)]
pub fn seq_last_task<T: TaskFn, S: crate::task::SeqContext, R>(
    cx: &mut S,
    _f: &T,
    queue: u32,
    spawned: &mut u32,
    args: T::Args,
    wait_queue: u32,
    tail: impl FnOnce(T::Output) -> R,
) -> R {
    let clone = cx.seq_spawn(queue, spawned);
    cx.seq_wait(wait_queue, spawned);
    if !(T::HAS_SEQ && clone) {
        return tail(cx.run_task::<T>(queue, args));
    }
    if !cx.seq_same_kind::<T>() {
        return tail(cx.seq_call::<T>(args));
    }
    tail(T::seq(cx, args))
}

/// `taskwait!(queue = queue)` in a sequential clone: every child already returned; the
/// executor checks the queue.
#[inline(always)]
pub fn seq_wait<S: crate::task::SeqContext>(cx: &mut S, queue: u32, spawned: &mut u32) {
    cx.seq_wait(queue, spawned);
}

/// The end of a sequential clone's body: the executor counts the `spawned` tasks it made after
/// its last `taskwait!()`.
#[inline(always)]
pub fn seq_end<S: crate::task::SeqContext>(cx: &mut S, spawned: u32) {
    cx.seq_end(spawned);
}

/// Implemented for every type when `T` takes `N` arguments; only reached once `T: TaskFn` holds
/// (it bounds `T::Args`), so a plain function is not also reported for its argument count.
pub trait ArgCount<T, const N: usize> {}
impl<T: Arity<N>, const N: usize, A> ArgCount<T, N> for A {}

/// Checks that `task!(f(..))` passes `N` arguments: reported with [`Arity`]'s message.
#[inline(always)]
pub const fn arity<T: TaskFn, const N: usize>(_f: &T)
where
    T::Args: ArgCount<T, N>,
{
}

#[cfg(test)]
mod tests {
    use super::thread_field;

    /// A task-data struct shaped like the generated ones: `args` first, then fields of mixed
    /// sizes and alignments.
    #[repr(C)]
    struct Frame {
        args: (u32, u64, u16),
        a: u8,
        b: u64,
        c: [u32; 3],
        d: u16,
    }

    /// Writes a distinct value into every thread's element of every field of a slot of `n`
    /// copies, then reads them all back: an element outside the slot, misaligned, or shared
    /// by two (field, thread) pairs fails.
    fn round_trip(n: u32) {
        let size = core::mem::size_of::<Frame>();
        let mut slot = vec![0u128; (size * n as usize).div_ceil(16)];
        let base = slot.as_mut_ptr().cast::<Frame>();
        let (start, end) = (base as usize, base as usize + size * n as usize);
        let inside = |p: usize, bytes: usize, align: usize| {
            assert!(
                p >= start && p + bytes <= end,
                "{n} copies: outside the slot"
            );
            assert_eq!(p % align, 0, "{n} copies: misaligned");
        };
        for t in 0..n {
            let v = u64::from(t) + 1;
            // SAFETY: each element was just checked to lie inside `slot`, aligned.
            unsafe {
                let a = thread_field(base, &raw mut (*base).a, (t, n));
                inside(a as usize, 1, 1);
                a.write(v as u8);
                let b = thread_field(base, &raw mut (*base).b, (t, n));
                inside(b as usize, 8, 8);
                b.write(v * 1000);
                let c = thread_field(base, &raw mut (*base).c, (t, n));
                inside(c as usize, 12, 4);
                c.write([v as u32; 3]);
                let d = thread_field(base, &raw mut (*base).d, (t, n));
                inside(d as usize, 2, 2);
                d.write(v as u16 + 7);
            }
        }
        for t in 0..n {
            let v = u64::from(t) + 1;
            // SAFETY: as above.
            unsafe {
                assert_eq!(
                    thread_field(base, &raw mut (*base).a, (t, n)).read(),
                    v as u8
                );
                assert_eq!(
                    thread_field(base, &raw mut (*base).b, (t, n)).read(),
                    v * 1000
                );
                assert_eq!(
                    thread_field(base, &raw mut (*base).c, (t, n)).read(),
                    [v as u32; 3]
                );
                assert_eq!(
                    thread_field(base, &raw mut (*base).d, (t, n)).read(),
                    v as u16 + 7
                );
            }
        }
    }

    #[test]
    fn thread_fields_fill_the_slot_without_overlap() {
        for n in [1, 2, 3, 32, 64, 256] {
            round_trip(n);
        }
    }

    #[test]
    fn one_copy_is_the_struct_and_copy_zero_keeps_args_in_place() {
        let mut f = core::mem::MaybeUninit::<Frame>::uninit();
        let base = f.as_mut_ptr();
        // SAFETY: addresses only.
        unsafe {
            assert_eq!(
                thread_field(base, &raw mut (*base).b, (0, 1)),
                &raw mut (*base).b
            );
            // The spawner writes `args` at offset 0: thread 0's element of it, for any n.
            assert_eq!(
                thread_field(base, &raw mut (*base).args, (0, 64)),
                &raw mut (*base).args
            );
        }
    }
}
