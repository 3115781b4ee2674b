//! What one worker holds while it takes part in a run ([`WorkerState`]) and the bookkeeping
//! around its steps: finding a task, the periodic looks at the run (its stop request and
//! whether another worker failed it), the statistics, and the native stack's budget for
//! children that run as calls.
//!
//! # Invariants
//!
//! - `children`, `records` and `levels` are stacks that mirror the steps on this worker's
//!   native stack: a step's children and records lie above the lengths `Cx::enter` noted and
//!   are truncated back when it leaves; each join pushes its level and pops it when it ends.
//!   An entry is read only by the step that made it or by one nested inside it (promotion,
//!   `join.rs`, takes the outer joins' unstarted children).
//! - `kind` is the innermost running step's kind; every step and clone restores the kind it
//!   found, so a panic is reported against the task that was running.
//! - `clone_left` is in `1..=CLONE_CHECK_EVERY` between joins: each join of a clone takes its
//!   spawn count off it (`count_clone_spawns`), and a count that takes it to zero or below
//!   calls `clone_checkpoint` at once, which counts `CLONE_CHECK_EVERY - clone_left` spawns and
//!   restores it.
//! - Once `aborting` is set it stays set for the rest of the run on this worker.

use core::sync::atomic::AtomicBool;

use crossbeam_deque::{Steal, Worker};
use gtap_device::task::{KindId, Program};

use super::context::Child;
use super::frames::FrameStack;
use super::join::Level;
use super::record::{Arena, TaskPtr};
use super::worker::{request_work, steal, Run};
use crate::error::Error;
use crate::stop::CPU_CHECK_EVERY;

/// Native stack that nested inline children may use below the worker loop's frame; past it,
/// children are records. A generated step with its join takes a few hundred bytes a level, so
/// this allows several hundred levels and keeps well inside a 2 MiB thread stack.
pub(super) const INLINE_STACK_BYTES: usize = 256 * 1024;

/// Spawns in sequential clones between two looks at the run ([`WorkerState::clone_checkpoint`]),
/// as often as the state machines look ([`CPU_CHECK_EVERY`] steps).
pub(super) const CLONE_CHECK_EVERY: i64 = CPU_CHECK_EVERY as i64;

/// What one worker holds while it takes part in a run.
pub(super) struct WorkerState<'a, 'r> {
    pub(super) run: &'a Run<'r>,
    pub(super) index: usize,
    pub(super) deque: &'a Worker<TaskPtr>,
    pub(super) arena: &'a mut Arena,
    pub(super) frames: &'a mut FrameStack,
    pub(super) rng: &'a mut u64,
    /// Inline children of the steps on this worker's stack, outermost first.
    pub(super) children: Vec<Child>,
    /// Joins in progress on this worker's stack, outermost first.
    pub(super) levels: Vec<Level>,
    /// Record children of the steps on this worker's stack, not yet published.
    pub(super) records: Vec<TaskPtr>,
    /// An error recorded by the running step, reported when it returns.
    pub(super) error: Option<Error>,
    /// The run failed: return from every step on this worker's stack.
    pub(super) aborting: bool,
    /// The kind of the innermost running step, to name it when it panics.
    pub(super) kind: KindId,
    /// The address [`INLINE_STACK_BYTES`] below a local of the worker loop: the native stack
    /// used is measured from that local, and a frame at an address less than
    /// `2 * INLINE_STACK_BYTES` above this one is within the budget (one subtraction and one
    /// comparison a check).
    pub(super) stack_low: usize,
    /// Sequential clones' spawns left before the next look at the run (its stop request and
    /// failure) and the next addition to `steps` and `inline`, taken off a join at a time
    /// (`WorkerState::count_clone_spawns`); zero or less means the count is due.
    pub(super) clone_left: i64,
    /// Spawns in clones that ran their child as a task (`SeqCx::run_task`): the clones' count
    /// counted them as children run as clones, and the task counts itself.
    pub(super) clone_demoted: u64,
    /// This worker's request flag in `Run::wanted`: set when an idle worker asks it for work
    /// (join.rs, "Promotion on request").
    pub(super) wanted: &'a AtomicBool,
    /// Levels of children below the running step that still run as tasks (state machines
    /// whose unstarted children can be promoted), not as clones: [`EXPOSE_LEVELS`](super::context::EXPOSE_LEVELS) below a
    /// record's step and below a task a clone exposed for a worker that asked, so that a thief
    /// finds the pieces near the top of what it took, not the ones a level below where the
    /// owner happened to be.
    pub(super) expose: u32,
    /// The run's `Config::queues`, `max_children` and `cpu_inline_children`, at hand for
    /// `spawn_raw`.
    pub(super) queues: u32,
    pub(super) max_children: usize,
    pub(super) inline_children: bool,
    pub(super) steps: u64,
    pub(super) steals: u64,
    /// Children run as calls.
    pub(super) inline: u64,
    /// Join cells allocated (arena records that are not tasks).
    pub(super) cells: u64,
}

impl<'a, 'r> WorkerState<'a, 'r> {
    pub(super) fn new(
        run: &'a Run<'r>,
        index: usize,
        deque: &'a Worker<TaskPtr>,
        arena: &'a mut Arena,
        frames: &'a mut FrameStack,
        rng: &'a mut u64,
        stack_base: usize,
    ) -> Self {
        Self {
            run,
            index,
            deque,
            arena,
            frames,
            rng,
            children: Vec::with_capacity(256),
            levels: Vec::with_capacity(64),
            records: Vec::with_capacity(64),
            error: None,
            aborting: false,
            kind: 0,
            stack_low: stack_base.wrapping_sub(INLINE_STACK_BYTES),
            clone_left: CLONE_CHECK_EVERY,
            clone_demoted: 0,
            wanted: &run.wanted[index],
            expose: 0,
            queues: run.queues,
            max_children: run.max_children as usize,
            inline_children: run.inline_children,
            steps: 0,
            steals: 0,
            inline: 0,
            cells: 0,
        }
    }

    /// Found no task: asks a random other worker for work (join.rs, "Promotion on request").
    pub(super) fn request_work(&mut self) {
        request_work(self.run, self.index, self.rng);
    }

    /// The next task from this worker's deque, else stolen from another's.
    pub(super) fn find_task(&mut self) -> Option<TaskPtr> {
        if let Some(task) = self.deque.pop() {
            return Some(task);
        }
        loop {
            match steal(self.run, self.index, self.deque, self.rng) {
                Steal::Success(task) => {
                    self.steals += 1;
                    return Some(task);
                }
                // A victim's deque changed under us: try again at once.
                Steal::Retry => {}
                Steal::Empty => return None,
            }
        }
    }

    /// Counts a step; every [`CPU_CHECK_EVERY`] steps, looks at the run's stop request and
    /// whether another worker failed it. Returns whether this worker must stop.
    #[inline]
    pub(super) fn count_step(&mut self) -> bool {
        self.steps += 1;
        if self.steps.is_multiple_of(CPU_CHECK_EVERY) {
            return self.look_at_run();
        }
        self.aborting
    }

    /// Looks at the run's stop request and whether another worker failed it; returns whether
    /// this worker must stop (`count_step` and `clone_checkpoint`, every few hundred steps).
    #[inline]
    fn look_at_run(&mut self) -> bool {
        if self.run.stop.armed() {
            self.run.check_stop();
        }
        if self.run.failed() {
            self.aborting = true;
        }
        self.aborting
    }

    /// Takes `spawned` spawns of a sequential clone's join off the countdown; when it runs
    /// out, [`WorkerState::clone_checkpoint`]. Returns whether this worker must stop.
    #[inline(always)]
    pub(super) fn count_clone_spawns(&mut self, spawned: u32) -> bool {
        self.clone_left -= i64::from(spawned);
        self.clone_left <= 0 && self.clone_checkpoint()
    }

    /// Every [`CLONE_CHECK_EVERY`] spawns in sequential clones or a little more (`seq.rs`,
    /// counted a join at a time): counts them as steps and as children run as calls, looks at
    /// the run's stop request and failure, and returns whether this worker must stop.
    #[cold]
    #[inline(never)]
    pub(super) fn clone_checkpoint(&mut self) -> bool {
        let spawns = (CLONE_CHECK_EVERY - self.clone_left) as u64;
        self.clone_left = CLONE_CHECK_EVERY;
        self.steps += spawns;
        self.inline += spawns;
        self.look_at_run()
    }

    /// Adds the clones' spawns since the last [`WorkerState::clone_checkpoint`] to `steps`
    /// and `inline`, less those that ran as tasks (once, when the worker leaves the run,
    /// before its statistics are read).
    pub(super) fn count_clones(&mut self) {
        let done = (CLONE_CHECK_EVERY - self.clone_left) as u64;
        self.steps += done;
        self.inline += done - self.clone_demoted;
        self.clone_left = CLONE_CHECK_EVERY;
        self.clone_demoted = 0;
    }

    /// The error for the running step's queue hint `queue` when the run has no such queue.
    /// Queue 0 always exists, so a constant 0 hint (the common case) folds the check away.
    #[inline(always)]
    pub(super) fn queue_error<P: Program>(&self, queue: u32) -> Option<Error> {
        (queue != 0 && queue >= self.queues).then(|| Error::InvalidQueue {
            task: P::name_of(self.kind),
            queue,
            queues: self.queues,
        })
    }

    /// Fails the run with the error the last step recorded, if any; returns whether this
    /// worker must stop.
    #[inline(never)]
    pub(super) fn settle_error(&mut self) -> bool {
        if let Some(error) = self.error.take() {
            self.run.fail(error);
            self.aborting = true;
        }
        self.aborting
    }

    /// After a panic unwound every step on this worker's stack: forget their children, joins
    /// and frames (the run has failed; the arenas are reset after it).
    pub(super) fn unwound(&mut self) {
        self.children.clear();
        self.levels.clear();
        self.records.clear();
        self.frames.release(0);
        self.error = None;
        self.aborting = true;
        self.expose = 0;
    }

    /// Whether a child spawned here may run as a call: the native stack used since the worker
    /// loop is below [`INLINE_STACK_BYTES`].
    #[inline]
    pub(super) fn stack_allows_inline(&self) -> bool {
        // The stack pointer of the step or clone that spawns (this is inlined into it), read
        // from the register: a local's address would make the clone keep a local whose
        // address escapes, which stops LLVM from turning its last self-call into a loop.
        let here = gtap_device::arch::stack_pointer();
        // `|here - base| < INLINE_STACK_BYTES`, as one range test.
        here.wrapping_sub(self.stack_low) < 2 * INLINE_STACK_BYTES
    }

    /// The error for an arena that ran out.
    pub(super) fn pool_exhausted(&self) -> Error {
        Error::PoolExhausted {
            limit: "Config::cpu_pool_bytes",
            capacity: self.run.pool_bytes as u64,
        }
    }
}
