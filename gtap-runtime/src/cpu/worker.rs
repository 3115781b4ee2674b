//! The worker loop of the CPU executor and its [`Context`]: how one run executes.
//!
//! # Protocol
//!
//! Each worker runs the task its last step left it (`next`: the step's first child, or the
//! parent its last finish resumed) without a trip through the deque; else pops from its own
//! LIFO deque; else steals a batch from a random victim; else backs off. Running a task calls
//! `P::dispatch` once (one *step*), under `catch_unwind`; what happens next depends on the
//! step's result:
//!
//! - `Suspended`: the step called `wait` with children outstanding, which saved the resume
//!   state. The worker sets `pending` to the number of children spawned in this step and then
//!   publishes them (keeps the first as `next`, pushes the others on its deque). Children are
//!   never visible before the count is set, so a child cannot finish against a stale counter.
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
//! zombie parent finishes in turn (a loop up the tree, no recursion). The root has no parent;
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
//!   sequence) before it resumes or finishes the parent.
//! - End of run: the broadcast returns under the pool's mutex, so the root's result and every
//!   task's writes happen-before the host reads them.

use crate::stop::{Stop, CPU_CHECK_EVERY};
use core::any::Any;
use core::marker::PhantomData;
use core::ptr::NonNull;
use core::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use crossbeam_deque::{Steal, Stealer, Worker};
use crossbeam_utils::{Backoff, CachePadded};
use gtap_device::task::{Context, KindId, Program, Step};

use super::record::{Arena, Header, TaskPtr, ZOMBIE};
use super::Slot;
use crate::config::Config;
use crate::error::Error;

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
    pub(super) steps: AtomicU64,
    pub(super) steals: AtomicU64,
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
            steps: AtomicU64::new(0),
            steals: AtomicU64::new(0),
            stop,
        }
    }

    /// Aborts the run with [`Error::Cancelled`] when its token or deadline says so.
    fn check_stop(&self) {
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

    /// Whether workers should leave their loops.
    #[inline]
    fn over(&self) -> bool {
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
    let Slot { deque, arena, rng } = &mut *guard;
    let mut ctx = WorkerCtx::<P> {
        cur: TaskPtr(NonNull::dangling()),
        spawned: Vec::with_capacity(run.max_children.min(64) as usize),
        arena,
        error: None,
        queues: run.queues,
        max_children: run.max_children,
        pool_bytes: run.pool_bytes,
        _program: PhantomData,
    };
    let mut idle = Idle::new();
    let (mut steps, mut steals) = (0u64, 0u64);
    let armed = run.stop.armed();
    // The task to run next without a trip through the deque: the first child of the last
    // step, or the parent that the last finish resumed.
    let mut next: Option<TaskPtr> = None;
    while !run.over() {
        // Own deque first (LIFO: the most recent child, depth first, as in Cilk).
        let task = match next.take().or_else(|| deque.pop()) {
            Some(task) => Some(task),
            None => match steal(run, index, deque, rng) {
                Steal::Success(task) => {
                    steals += 1;
                    Some(task)
                }
                // A victim's deque changed under us: try again at once.
                Steal::Retry => continue,
                Steal::Empty => None,
            },
        };
        match task {
            Some(task) => {
                idle.reset();
                steps += 1;
                if armed && steps.is_multiple_of(CPU_CHECK_EVERY) {
                    run.check_stop();
                }
                next = execute::<P>(run, &mut ctx, deque, task);
            }
            None => {
                if armed {
                    run.check_stop();
                }
                idle.snooze();
            }
        }
    }
    // Aborted (or done, when the deque is already empty): drop what is left. The records
    // themselves are reclaimed by the arena reset after the run.
    while deque.pop().is_some() {}
    // Ordering: Relaxed; statistics, read after the broadcast returns (its mutex orders them).
    run.steps.fetch_add(steps, Ordering::Relaxed);
    // Ordering: Relaxed; as above.
    run.steals.fetch_add(steals, Ordering::Relaxed);
}

/// Steals a batch from the victims, starting at a random one.
fn steal(run: &Run<'_>, index: usize, deque: &Worker<TaskPtr>, rng: &mut u64) -> Steal<TaskPtr> {
    let n = run.stealers.len();
    if n == 1 {
        return Steal::Empty;
    }
    // xorshift64: cheap, and good enough to spread thieves over victims.
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    let start = (*rng % n as u64) as usize;
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

/// Runs one step of `task` and does what its result asks for (see the module docs); returns
/// the task this worker should run next, if its step made one ready.
fn execute<P: Program>(
    run: &Run<'_>,
    ctx: &mut WorkerCtx<'_, P>,
    deque: &Worker<TaskPtr>,
    task: TaskPtr,
) -> Option<TaskPtr> {
    let header = task.header();
    ctx.cur = task;
    ctx.spawned.clear();
    // SAFETY: this worker owns the popped record (record.rs, "Ownership").
    let kind = unsafe { (*header).kind };
    let step = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: `task` is a live record of kind `kind` of program P whose frame holds the
        // arguments (first entry) or the state the step saved; `ctx` hands out that frame and
        // its result destination (Context contract, upheld by WorkerCtx).
        unsafe { P::dispatch(ctx, kind) }
    }));
    let step = match step {
        Ok(step) => step,
        Err(payload) => {
            let message = panic_message(&*payload);
            run.fail(Error::TaskPanicked {
                task: P::name_of(kind),
                message,
            });
            return None;
        }
    };
    if let Some(error) = ctx.error.take() {
        run.fail(error);
        return None;
    }
    let children = ctx.spawned.len() as u32;
    match step {
        Step::Suspended if children == 0 => {
            run.fail(Error::Protocol {
                task: P::name_of(kind),
                detail: "it suspended with no children to wait for",
            });
            None
        }
        Step::Suspended => {
            // `wait` saved the resume state; join the children of this step.
            // SAFETY: this worker owns the record until the children are published below.
            // Ordering: Relaxed; the children's decrements come after their publication (a
            // deque push, a release; or program order for `next`), so they see this store.
            unsafe { (*header).pending.store(children, Ordering::Relaxed) };
            publish(deque, &ctx.spawned)
        }
        Step::Done if children == 0 => finish(run, ctx.arena, task),
        Step::Done => {
            // Detached children: stay alive until they finish, then finish (see `finish`).
            // SAFETY: as above.
            unsafe {
                (*header).state = ZOMBIE;
                // Ordering: Relaxed; as for `Suspended`.
                (*header).pending.store(children, Ordering::Relaxed);
            }
            publish(deque, &ctx.spawned)
        }
        Step::Aborted => {
            run.fail(Error::Protocol {
                task: P::name_of(kind),
                detail: "it aborted without recording a cause",
            });
            None
        }
    }
}

/// Publishes the children of a step: the first is returned, for this worker to run next
/// (depth first, as a sequential run would); the others are pushed last first, so that this
/// worker pops them in spawn order and thieves take the later ones.
#[inline]
fn publish(deque: &Worker<TaskPtr>, children: &[TaskPtr]) -> Option<TaskPtr> {
    let (&first, rest) = children.split_first()?;
    for &child in rest.iter().rev() {
        deque.push(child);
    }
    Some(first)
}

/// Finishes `task`: frees it and tells its parent, up the tree through zombies. Returns the
/// parent when this was its last child and it waits to resume: this worker runs it next.
#[inline]
fn finish(run: &Run<'_>, arena: &mut Arena, task: TaskPtr) -> Option<TaskPtr> {
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
        // SAFETY: a parent outlives its children: it is suspended or a zombie until `pending`
        // reaches zero, and only the decrement that reaches zero takes it over.
        // Ordering: AcqRel; release publishes this subtree's writes, acquire (when reaching
        // zero) collects every sibling's (see the module docs).
        let last = unsafe { parent.as_ref() }
            .pending
            .fetch_sub(1, Ordering::AcqRel)
            == 1;
        if !last {
            return None;
        }
        // SAFETY: the decrement to zero made this worker the owner of the parent; its state
        // was written before this child was published.
        if unsafe { parent.as_ref() }.state != ZOMBIE {
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
struct Idle {
    backoff: Backoff,
    rounds: u32,
}

impl Idle {
    /// Yields before sleeping, this many times.
    const YIELDS: u32 = 32;
    /// The sleep of a long-idle worker: bounds how late it notices new work or the run's end.
    const NAP: Duration = Duration::from_micros(50);

    fn new() -> Self {
        Self {
            backoff: Backoff::new(),
            rounds: 0,
        }
    }

    fn reset(&mut self) {
        self.backoff.reset();
        self.rounds = 0;
    }

    fn snooze(&mut self) {
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

// ////////////////////////////////////////////////////////////////////////////////////////
// CONTEXT
// ////////////////////////////////////////////////////////////////////////////////////////

/// The [`Context`] a worker hands to the step it runs.
struct WorkerCtx<'a, P> {
    /// The running task.
    cur: TaskPtr,
    /// Children spawned by this step, published when it returns.
    spawned: Vec<TaskPtr>,
    arena: &'a mut Arena,
    /// An error recorded by this step (the step then returns `Aborted`, or `Suspended` after
    /// a bad `wait` queue).
    error: Option<Error>,
    queues: u32,
    max_children: u32,
    pool_bytes: usize,
    _program: PhantomData<P>,
}

impl<P: Program> WorkerCtx<'_, P> {
    fn header(&self) -> *mut Header {
        self.cur.header()
    }

    fn task_name(&self) -> &'static str {
        // SAFETY: the worker owns the running record while its step runs.
        P::name_of(unsafe { (*self.header()).kind })
    }

    #[cold]
    fn refuse(&mut self, error: Error) -> *mut u8 {
        self.error.get_or_insert(error);
        core::ptr::null_mut()
    }
}

// SAFETY: frames handed out are `stride` bytes (the largest reported layout, rounded to 16) at
// a 16-aligned offset of 64-aligned records; a suspended task is pushed back exactly once, by
// the decrement of `pending` that reaches zero, which acquires every child's release.
unsafe impl<P: Program> Context for WorkerCtx<'_, P> {
    #[inline]
    fn state(&self) -> u32 {
        // SAFETY: the worker owns the running record while its step runs.
        unsafe { (*self.header()).state }
    }

    #[inline]
    fn frame(&self) -> *mut u8 {
        self.cur.frame()
    }

    #[inline]
    fn result_dst(&self) -> *mut u8 {
        // SAFETY: as above.
        unsafe { (*self.header()).result_dst }
    }

    #[inline]
    unsafe fn spawn_raw(&mut self, kind: KindId, queue: u32, result_dst: *mut u8) -> *mut u8 {
        if self.error.is_some() {
            return core::ptr::null_mut();
        }
        if queue >= self.queues {
            let task = self.task_name();
            return self.refuse(Error::InvalidQueue {
                task,
                queue,
                queues: self.queues,
            });
        }
        if self.spawned.len() >= self.max_children as usize {
            return self.refuse(Error::PoolExhausted {
                limit: "Config::max_children",
                capacity: u64::from(self.max_children),
            });
        }
        let Some(record) = self.arena.alloc() else {
            return self.refuse(Error::PoolExhausted {
                limit: "Config::cpu_pool_bytes",
                capacity: self.pool_bytes as u64,
            });
        };
        // SAFETY: a fresh record of this run's size, owned by this worker until published.
        unsafe {
            record.as_ptr().write(Header {
                kind,
                state: 0,
                queue,
                pending: core::sync::atomic::AtomicU32::new(0),
                parent: self.header(),
                result_dst,
            });
        }
        let child = TaskPtr(record);
        self.spawned.push(child);
        child.frame()
    }

    #[inline]
    fn wait(&mut self, resume_state: u32, queue: u32) -> bool {
        if self.spawned.is_empty() {
            return false;
        }
        if queue >= self.queues {
            // `wait` cannot refuse; the executor sees the error when the step returns.
            let task = self.task_name();
            self.error.get_or_insert(Error::InvalidQueue {
                task,
                queue,
                queues: self.queues,
            });
        }
        // SAFETY: the worker owns the running record while its step runs.
        unsafe {
            (*self.header()).state = resume_state;
            (*self.header()).queue = queue;
        }
        true
    }

    fn report_layout(&mut self, _size: usize, _align: usize) {
        // Only called on the probe pass, which uses its own context.
    }

    fn unknown_kind(&mut self, kind: KindId) -> Step {
        self.error.get_or_insert(Error::UnknownKind {
            task: P::name_of(kind),
            kind,
            program: core::any::type_name::<P>(),
        });
        Step::Aborted
    }
}
