//! Sequential clones on the CPU executor: a child that runs as a call runs its function's
//! clone (`TaskFn::seq`, the body as written with each `task!` a call) instead of its state
//! machine while no idle worker asks its worker for work and the native stack allows, so a
//! subtree that nobody steals costs about what the plain recursion costs.
//!
//! Inside a clone, each `task!` asks [`SeqCx::seq_spawn`]: the queue hint and the spawn count
//! are checked as for any spawn, and the child runs as its own clone again unless a worker
//! asked for work that the deque cannot give, or the stack is deep. Then it runs as a task
//! instead ([`SeqCx::run_task`]): a one-child join of a step that runs as a call (`join.rs`),
//! whose own children are inline children the executor can promote to records for the worker
//! that asked. So parallelism reaches idle workers from inside a clone one level below the
//! `task!` that saw the request.
//!
//! Tasks are counted a join at a time: a clone's `spawned` count (a local of the clone, so a
//! register) is added to the worker's countdown at each `taskwait!()` ([`SeqCx::seq_wait`])
//! and, for the spawns after the last one, when the body returns ([`SeqCx::seq_end`]); the
//! countdown reaching zero makes the worker count the clones as steps and look at the run's
//! stop request and failure. A countdown decremented at every spawn was one chain of
//! read-modify-writes of memory through the whole recursion: fib(32) on one worker 16.3-16.5
//! ms with it, 13.6-14.0 a join at a time (`docs/runs/cpu-clone-count-2core.txt`). Between two
//! looks at the run a worker makes at most `Config::max_children` spawns per join past the
//! countdown.
//!
//! A body that ends with a spawn of its own function and the join (`glue::seq_last_task`) has
//! the join counted before that last child runs, and calls the child's clone directly when the
//! running kind is its own ([`SeqCx::seq_same_kind`]), so that the call is the clone's last
//! and LLVM can make it a loop; the stack probe reads the stack pointer's register for the same
//! reason (`worker_state.rs`). fib(32) on one worker: 12.1-12.3 ms against 13.2-13.4
//! (`docs/runs/cpu-clone-last-spawn-2core.txt`).
//!
//! A clone cannot return early: when the run fails under it (a refused spawn, another
//! worker's panic, a stop request), it unwinds with [`Abort`], which the worker loop's
//! `catch_unwind` recognizes and does not report as a panic. A result that a task child writes
//! lives in the frame region, not on the clone's stack, so that a child still running on
//! another worker after such an unwind writes into memory that outlives it.

use core::marker::PhantomData;
use core::mem::MaybeUninit;
use core::sync::atomic::Ordering;

use gtap_device::task::{Context, Program, SeqContext, TaskFn};

use super::context::Cx;
use super::worker_state::WorkerState;
use crate::error::Error;

/// The payload a clone unwinds with when the run has failed (see the module docs).
pub(super) struct Abort;

/// Unwinds to the worker loop (the run has failed already).
#[cold]
fn abort() -> ! {
    std::panic::resume_unwind(Box::new(Abort))
}

/// The [`SeqContext`] of the clones that run on one worker: the worker's state itself, seen
/// through a type that knows the program. `repr(transparent)`, so that a clone's context is the
/// pointer to the worker's state (not a pointer to a pointer to it, which every field access
/// after a call would have to reload).
#[repr(transparent)]
pub(super) struct SeqCx<'a, 'r, P> {
    w: WorkerState<'a, 'r>,
    _program: PhantomData<fn() -> P>,
}

impl<'a, 'r, P: Program> SeqCx<'a, 'r, P> {
    pub(super) fn new<'w>(w: &'w mut WorkerState<'a, 'r>) -> &'w mut Self {
        // SAFETY: `SeqCx` is `repr(transparent)` over `WorkerState` (its other field is a
        // zero-sized marker), so the pointer is valid for the same borrow.
        unsafe { &mut *core::ptr::from_mut(w).cast::<Self>() }
    }
}

impl<'a, 'r> WorkerState<'a, 'r> {
    /// Whether a child may run as its clone now: no worker asks this one for work that its
    /// deque cannot give (join.rs, "Promotion on request"), and the native stack allows
    /// another level of calls. (Clones run only where children run as calls, so
    /// `cpu_inline_children` needs no test here.)
    #[inline]
    pub(super) fn clone_allowed(&self) -> bool {
        // Ordering: Relaxed; a hint (join.rs).
        (!self.wanted.load(Ordering::Relaxed) || !self.answer_request())
            && self.stack_allows_inline()
    }

    /// Fails the run with `error` and unwinds out of the clones.
    #[cold]
    fn refuse_in_clone(&mut self, error: Error) -> ! {
        self.run.fail(error);
        self.aborting = true;
        abort()
    }
}

impl<P: Program> SeqContext for SeqCx<'_, '_, P> {
    #[inline(always)]
    fn seq_spawn(&mut self, queue: u32, spawned: &mut u32) -> bool {
        let w = &mut self.w;
        if let Some(error) = w.queue_error::<P>(queue) {
            w.refuse_in_clone(error);
        }
        if *spawned as usize >= w.max_children {
            let capacity = w.max_children as u64;
            w.refuse_in_clone(Error::PoolExhausted {
                limit: "Config::max_children",
                capacity,
            });
        }
        *spawned += 1;
        w.clone_allowed()
    }

    fn run_task<T: TaskFn>(&mut self, queue: u32, args: T::Args) -> T::Output {
        let w = &mut self.w;
        w.clone_demoted += 1;
        let mark = w.frames.mark();
        let fits = size_of::<T::Output>() <= w.frames.stride() && align_of::<T::Output>() <= 16;
        // The result's slot: a frame of the region (see the module docs), or a box for an
        // output larger than a frame (leaked if the run fails under it).
        let mut boxed: Option<Box<MaybeUninit<T::Output>>> = None;
        let slot: *mut T::Output = match fits.then(|| w.frames.alloc()).flatten() {
            Some(frame) => frame.cast(),
            None => boxed.insert(Box::new(MaybeUninit::uninit())).as_mut_ptr(),
        };
        let kind = w.kind;
        let mut cx = Cx::<P>::enter(
            w,
            None,
            core::ptr::null_mut(),
            0,
            core::ptr::null_mut(),
            kind,
        );
        // The child and the levels below it run as tasks, for the worker that asked to take.
        cx.w.expose = super::context::EXPOSE_LEVELS + 1;
        // SAFETY: `slot` is valid for a write of the output until the join below returns, and
        // after a failed run it stays allocated (module docs).
        let frame = unsafe { cx.spawn_raw(T::ID, queue, slot.cast()) };
        let failed = if frame.is_null() {
            true
        } else {
            // SAFETY: a fresh frame of the run's stride, which holds the arguments.
            unsafe { frame.cast::<T::Args>().write(args) };
            cx.join()
        };
        cx.leave();
        if failed || self.w.settle_error() {
            core::mem::forget(boxed);
            abort();
        }
        // SAFETY: the join returned without a failure: the child finished and its result's
        // write happens before this read (join.rs, "Memory ordering").
        let out = unsafe { slot.read() };
        self.w.frames.release(mark);
        out
    }

    #[inline(always)]
    fn seq_wait(&mut self, queue: u32, spawned: &mut u32) {
        let w = &mut self.w;
        if let Some(error) = w.queue_error::<P>(queue) {
            w.refuse_in_clone(error);
        }
        let count = core::mem::take(spawned);
        if w.count_clone_spawns(count) {
            abort();
        }
    }

    #[inline(always)]
    fn seq_end(&mut self, spawned: u32) {
        if spawned != 0 && self.w.count_clone_spawns(spawned) {
            abort();
        }
    }

    #[inline(always)]
    fn seq_same_kind<T: TaskFn>(&self) -> bool {
        self.w.kind == T::ID
    }

    #[inline(always)]
    fn seq_call<T: TaskFn>(&mut self, args: T::Args) -> T::Output {
        // Counted by its parent clone's join count (or by `run_inline`, for a clone entered
        // from a call). Every clone and step leaves the kind as it found it, so a recursion of
        // one function (the common case) has nothing to save or restore.
        if self.w.kind == T::ID {
            return T::seq(self, args);
        }
        let outer = core::mem::replace(&mut self.w.kind, T::ID);
        let out = T::seq(self, args);
        self.w.kind = outer;
        out
    }
}
