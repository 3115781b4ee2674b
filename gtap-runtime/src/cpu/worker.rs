//! The worker loop of the CPU executor: how the records of one run are scheduled. How a step's
//! children run as calls, and when they become records, is `context.rs`.
//!
//! # Protocol
//!
//! Each worker runs the task its last step left it (`next`: the step's first record child, or
//! the parent its last finish resumed) without a trip through the deque; else pops from its
//! own LIFO deque; else steals a batch from a random victim; else asks a random worker for
//! work (sets its flag in `Run::wanted`) and backs off. Running a record calls `P::dispatch`
//! once (one *step*, which may run many children as calls inside it), under `catch_unwind`;
//! what happens next depends on the step's result and on its *record* children:
//!
//! - `Suspended`: the step called `wait` with record children outstanding, which saved the
//!   resume state. The worker sets `pending` to the number of record children spawned in this
//!   step and then publishes them (keeps the first as `next`, pushes the others on its deque).
//!   Children are never visible before the count is set, so a child cannot finish against a
//!   stale counter.
//! - `Done` with no children in this step: the task *finishes* (below).
//! - `Done` with children (detached ones, spawned after the last `taskwait!`): the task becomes
//!   a zombie (`state = ZOMBIE`), `pending` is set and the children published as above; the
//!   record stays alive until they finish.
//! - `Aborted`, a panic, or an error recorded by the context: the run fails (first error wins),
//!   every worker leaves its loop and drops the tasks on its deque; the arenas are reset after
//!   the run, so nothing leaks and the executor is ready for the next run.
//!
//! *Finishing* a task frees its record and decrements its parent's `pending`. The worker whose
//! decrement reaches zero owns the parent: a suspended parent becomes its `next` task, a
//! zombie parent finishes in turn (a loop up the tree, no recursion), and a join cell is left
//! to the worker that waits on it (context.rs). The root has no parent;
//! when it finishes the whole tree has (a join waits for whole subtrees), so the run is over
//! without any global task counter.
//!
//! # Memory ordering
//!
//! - Publication: a record's fields and frame (arguments) are written before the deque push,
//!   which is a release; the pop or steal that takes it is an acquire (crossbeam-deque).
//! - Joins: each finishing child does `fetch_sub(1, AcqRel)` on the parent's `pending`. The
//!   release publishes the child's subtree (its result in the parent's frame, its writes to
//!   user data); the decrement that reaches zero acquires them all (the RMWs form one release
//!   sequence) before it resumes or finishes the parent. A child that first loads the count
//!   (Acquire) and reads 1 is the last without an RMW: every sibling decremented already, and
//!   the load synchronizes with all of them (`finish`; `docs/cpu-executor.md`, "The last
//!   child's test"; `loom-models/src/cpu_finish.rs`).
//! - End of run: the broadcast returns under the pool's mutex, so the root's result and every
//!   task's writes happen-before the host reads them.

use core::any::Any;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use crossbeam_deque::{Steal, Stealer, Worker};
use crossbeam_utils::{Backoff, CachePadded};
use gtap_device::task::Program;

use super::record::{Arena, TaskPtr, JOIN_CELL, ZOMBIE};
use super::seq::Abort;
use super::worker_state::WorkerState;
use super::Slot;
use crate::config::Config;
use crate::error::Error;
use crate::stop::Stop;

/// `Run::status`: tasks are running.
const RUNNING: u8 = 0;
/// `Run::status`: the root finished; the result is ready.
const DONE: u8 = 1;
/// `Run::status`: a task failed; workers drop what they hold.
const ABORTED: u8 = 2;

/// What the workers of one run share; lives on the host thread's stack for the run.
pub(super) struct Run<'a> {
    pub(super) slots: &'a [CachePadded<Mutex<Slot>>],
    pub(super) stealers: &'a [Stealer<TaskPtr>],
    pub(super) queues: u32,
    pub(super) max_children: u32,
    /// `Config::cpu_pool_bytes`, for the error when an arena's share runs out.
    pub(super) pool_bytes: usize,
    /// [`RUNNING`], [`DONE`] or [`ABORTED`].
    pub(super) status: CachePadded<AtomicU8>,
    /// The first error of the run.
    pub(super) error: Mutex<Option<Error>>,
    /// Whether children may run as calls (`Config::cpu_inline_children`).
    pub(super) inline_children: bool,
    /// One request flag per worker, set by idle workers that ask it for work and cleared by
    /// the worker once it has work on its deque for them (join.rs, "Promotion on request").
    pub(super) wanted: Box<[CachePadded<AtomicBool>]>,
    pub(super) steps: AtomicU64,
    pub(super) steals: AtomicU64,
    /// Children that ran as calls.
    pub(super) inline: AtomicU64,
    /// Join cells allocated: arena records that are not tasks.
    pub(super) cells: AtomicU64,
    /// The run's cancellation token and deadline.
    pub(super) stop: &'a Stop,
}

impl Run<'_> {
    pub(super) fn new<'a>(
        slots: &'a [CachePadded<Mutex<Slot>>],
        stealers: &'a [Stealer<TaskPtr>],
        config: &Config,
        stop: &'a Stop,
    ) -> Run<'a> {
        Run {
            slots,
            stealers,
            queues: config.queues,
            max_children: config.max_children,
            pool_bytes: config.cpu_pool_bytes,
            status: CachePadded::new(AtomicU8::new(RUNNING)),
            error: Mutex::new(None),
            inline_children: config.cpu_inline_children,
            wanted: stealers
                .iter()
                .map(|_| CachePadded::new(AtomicBool::new(false)))
                .collect(),
            steps: AtomicU64::new(0),
            steals: AtomicU64::new(0),
            inline: AtomicU64::new(0),
            cells: AtomicU64::new(0),
            stop,
        }
    }

    /// Aborts the run with [`Error::Cancelled`] when its token or deadline says so.
    pub(super) fn check_stop(&self) {
        if let Some(reason) = self.stop.requested() {
            self.fail(self.stop.error(reason));
        }
    }

    /// Whether the root finished.
    pub(super) fn done(&self) -> bool {
        // Ordering: Acquire; pairs with the Release store in `finish` (the broadcast's mutex
        // orders the result anyway; this keeps the flag self-sufficient).
        self.status.load(Ordering::Acquire) == DONE
    }

    /// Whether the run failed.
    #[inline]
    pub(super) fn failed(&self) -> bool {
        // Ordering: Relaxed; a hint to stop early, checked again through `over`.
        self.status.load(Ordering::Relaxed) == ABORTED
    }

    /// Whether workers should leave their loops.
    #[inline]
    pub(super) fn over(&self) -> bool {
        // Ordering: Acquire; pairs with the Release stores of DONE / ABORTED. Nothing is read
        // through it but the flag itself; Acquire keeps the exit decision ordered after them.
        self.status.load(Ordering::Acquire) != RUNNING
    }

    /// Records `error` (unless an earlier one is there) and aborts the run.
    #[cold]
    pub(super) fn fail(&self, error: Error) {
        let mut slot = self.error.lock().unwrap_or_else(PoisonError::into_inner);
        slot.get_or_insert(error);
        drop(slot);
        // Ordering: Release; pairs with the Acquire in `over`. The error itself is behind the
        // mutex.
        self.status.store(ABORTED, Ordering::Release);
    }
}

/// The pool job of a run: the worker loop for index `index`.
///
/// # Safety
///
/// `data` points to a live `Run` whose tasks all belong to program `P`.
pub(super) unsafe fn work<P: Program>(data: *const (), index: usize) {
    // SAFETY: the caller (the executor's `broadcast`) keeps the `Run` alive until every worker
    // returned.
    let run = unsafe { &*data.cast::<Run<'_>>() };
    let outcome = catch_unwind(AssertUnwindSafe(|| worker_loop::<P>(run, index)));
    if outcome.is_err() {
        // Task panics are caught per step; this is a panic of the executor itself.
        run.fail(Error::Protocol {
            task: "<cpu executor>",
            detail: "the CPU executor panicked outside task code",
        });
    }
}

// ////////////////////////////////////////////////////////////////////////////////////////
// MAIN LOOP
// ////////////////////////////////////////////////////////////////////////////////////////

fn worker_loop<P: Program>(run: &Run<'_>, index: usize) {
    let mut guard = run.slots[index]
        .lock()
        .unwrap_or_else(PoisonError::into_inner);
    let Slot {
        deque,
        arena,
        rng,
        frames,
    } = &mut *guard;
    // The native stack that inline children use is measured from here (context.rs).
    let anchor = 0u8;
    let stack_base = core::hint::black_box(&raw const anchor).addr();
    let mut w = WorkerState::new(run, index, deque, arena, frames, rng, stack_base);
    let mut idle = Idle::new();
    // The task to run next without a trip through the deque: the first child of the last
    // step, or the parent that the last finish resumed.
    let mut next: Option<TaskPtr> = None;
    while !run.over() {
        // Own deque first (LIFO: the most recent child, depth first, as in Cilk), then steal.
        match next.take().or_else(|| w.find_task()) {
            Some(task) => {
                idle.reset();
                next = execute_caught::<P>(&mut w, task);
            }
            None => {
                w.request_work();
                if run.stop.armed() {
                    run.check_stop();
                }
                idle.snooze();
            }
        }
    }
    w.count_clones();
    // Ordering: Relaxed; statistics, read after the broadcast returns (its mutex orders them).
    run.steps.fetch_add(w.steps, Ordering::Relaxed);
    // Ordering: Relaxed; as above.
    run.steals.fetch_add(w.steals, Ordering::Relaxed);
    // Ordering: Relaxed; as above.
    run.inline.fetch_add(w.inline, Ordering::Relaxed);
    // Ordering: Relaxed; as above.
    run.cells.fetch_add(w.cells, Ordering::Relaxed);
    drop(w);
    // Aborted (or done, when the deque is already empty): drop what is left. The records
    // themselves are reclaimed by the arena reset after the run.
    while deque.pop().is_some() {}
}

/// Runs `task` under `catch_unwind`: a panic in its step, or in any step it ran as a call,
/// fails the run with [`Error::TaskPanicked`] naming the innermost running task.
fn execute_caught<P: Program>(w: &mut WorkerState<'_, '_>, task: TaskPtr) -> Option<TaskPtr> {
    match catch_unwind(AssertUnwindSafe(|| w.execute::<P>(task))) {
        Ok(next) => next,
        Err(payload) => {
            // A clone unwinds with `Abort` once the run has failed: nothing to report.
            if !payload.is::<Abort>() {
                let message = panic_message(&*payload);
                w.run.fail(Error::TaskPanicked {
                    task: P::name_of(w.kind),
                    message,
                });
            }
            w.unwound();
            None
        }
    }
}

/// A random worker other than `index` (of `n > 1`): xorshift64, cheap, and good enough to
/// spread thieves and requests over workers.
fn random_other(index: usize, n: usize, rng: &mut u64) -> usize {
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    let k = (*rng % (n as u64 - 1)) as usize;
    if k >= index {
        k + 1
    } else {
        k
    }
}

/// Asks a random other worker for work: sets its request flag unless it is set already (the
/// load first, so that a flag already raised costs its owner no invalidation).
pub(super) fn request_work(run: &Run<'_>, index: usize, rng: &mut u64) {
    let n = run.wanted.len();
    if n == 1 {
        return;
    }
    let flag = &run.wanted[random_other(index, n, rng)];
    // Ordering: Relaxed, both; a hint that publishes nothing: the work it asks for travels
    // through the deque's push (release) and steal (acquire).
    if !flag.load(Ordering::Relaxed) {
        flag.store(true, Ordering::Relaxed);
    }
}

/// Steals a batch from the victims, starting at a random one.
pub(super) fn steal(
    run: &Run<'_>,
    index: usize,
    deque: &Worker<TaskPtr>,
    rng: &mut u64,
) -> Steal<TaskPtr> {
    let n = run.stealers.len();
    if n == 1 {
        return Steal::Empty;
    }
    let start = random_other(index, n, rng);
    let mut outcome = Steal::Empty;
    for k in 0..n {
        let victim = (start + k) % n;
        if victim == index {
            continue;
        }
        match run.stealers[victim].steal_batch_and_pop(deque) {
            Steal::Success(task) => return Steal::Success(task),
            Steal::Retry => outcome = Steal::Retry,
            Steal::Empty => {}
        }
    }
    outcome
}

/// Finishes `task`: frees it and tells its parent, up the tree through zombies. Returns the
/// parent when this was its last child and it waits to resume: this worker runs it next.
#[inline]
pub(super) fn finish(run: &Run<'_>, arena: &mut Arena, task: TaskPtr) -> Option<TaskPtr> {
    let mut task = task;
    loop {
        // SAFETY: this worker owns `task` (it ran it, or its decrement reached zero).
        let parent = unsafe { (*task.header()).parent };
        arena.free(task.0);
        let Some(parent) = NonNull::new(parent) else {
            // The root: the whole tree is done.
            // Ordering: Release; pairs with the Acquire in `over` / `done`.
            run.status.store(DONE, Ordering::Release);
            return None;
        };
        // SAFETY: a parent outlives its children: it is suspended, a zombie or a join cell
        // until `pending` reaches zero, and only the decrement that reaches zero takes it over.
        // Its state was written before this child was published and does not change while the
        // child runs; it is read before the decrement because a cell's waiter may free the cell
        // as soon as the count is zero.
        let parent_state = unsafe { parent.as_ref() }.state;
        if parent_state == JOIN_CELL {
            // SAFETY: as above.
            // Ordering: AcqRel; release publishes this subtree's writes to the cell's waiter,
            // which sees the zero itself (join.rs); nothing here touches the cell again.
            unsafe { parent.as_ref() }
                .pending
                .fetch_sub(1, Ordering::AcqRel);
            return None;
        }
        // SAFETY: as above.
        let pending = unsafe { &parent.as_ref().pending };
        // The last child, known without an RMW: a count of 1 means every sibling has already
        // decremented, so no other thread writes the counter again, and the decrement to 0 is
        // not stored (the parent is resumed or finished next; its next join stores a fresh
        // count, and nobody reads a count in between). A chain's climb thus reads its parent
        // instead of waiting on a locked RMW of a line that left the cache long ago.
        // Ordering: Acquire; reading 1 (written by the last sibling's AcqRel decrement, or the
        // count stored before this child was published) synchronizes with every sibling's
        // decrement, whose release sequence it is in: their subtrees' writes happen before
        // the parent resumes. Otherwise AcqRel, as before: release publishes this subtree's
        // writes, acquire (when reaching zero) collects every sibling's.
        let last =
            pending.load(Ordering::Acquire) == 1 || pending.fetch_sub(1, Ordering::AcqRel) == 1;
        if !last {
            return None;
        }
        if parent_state != ZOMBIE {
            return Some(TaskPtr(parent));
        }
        task = TaskPtr(parent);
    }
}

#[cold]
fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&'static str>() {
        (*s).to_owned()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "<a panic payload that is not a string>".to_owned()
    }
}

/// Back-off of an idle worker: spin (crossbeam's `Backoff`), then yield, then sleep briefly.
pub(super) struct Idle {
    backoff: Backoff,
    rounds: u32,
}

impl Idle {
    /// Yields before sleeping, this many times.
    const YIELDS: u32 = 32;
    /// The sleep of a long-idle worker: bounds how late it notices new work or the run's end.
    const NAP: Duration = Duration::from_micros(50);

    pub(super) fn new() -> Self {
        Self {
            backoff: Backoff::new(),
            rounds: 0,
        }
    }

    pub(super) fn reset(&mut self) {
        self.backoff.reset();
        self.rounds = 0;
    }

    pub(super) fn snooze(&mut self) {
        if !self.backoff.is_completed() {
            self.backoff.snooze();
        } else if self.rounds < Self::YIELDS {
            self.rounds += 1;
            std::thread::yield_now();
        } else {
            std::thread::sleep(Self::NAP);
        }
    }
}
