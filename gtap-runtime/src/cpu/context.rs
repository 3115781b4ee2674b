//! What a step sees on the CPU (the [`Context`]) and how its children run: as calls on the
//! worker's own stack while nobody asks for work, as records on the deques when somebody does.
//!
//! # Children as calls
//!
//! `spawn_raw` gives a child a frame from the worker's [`FrameStack`](super::frames::FrameStack) and notes it as an
//! *inline child*. At the step's `taskwait!()` (`wait`), its inline children run one after the
//! other as nested calls of `Program::dispatch`, each with a context of its own on the same
//! worker, and their children do the same: a subtree that nobody steals runs as a recursion of
//! step functions, with no record, no deque, no atomic and no `catch_unwind` per task. `wait`
//! then returns `false` and the step goes on after its join at once (the generated code saved
//! what survives the join in the frame before calling `wait`, and reads it back).
//!
//! A child is a record instead (from the arena, published on a deque as in the worker loop's
//! protocol) when the frame region is full, when the native stack used since the worker's loop
//! began passed `INLINE_STACK_BYTES` (`worker_state.rs`) (a chain of 10^6 dependent tasks must not become 10^6
//! nested calls), or when `Config::cpu_inline_children` is off. How a call joins records, and
//! how inline children become records when an idle worker asks for work, is `join.rs`, with the
//! memory-model argument.
//!
//! # Errors
//!
//! A refused spawn or a bad queue hint is recorded in [`WorkerState::error`]; the step then
//! returns `Aborted` (or `Suspended`, from `wait`), and the context that ran it fails the run.
//! A worker that sees the run failed while it runs calls (`aborting`) stops starting children,
//! makes each pending `wait` return `true` so that every step on its stack returns at once, and
//! abandons its join cells (children still running elsewhere may decrement them; the arenas
//! are reset only after every worker left the run). A panic unwinds to the worker loop's
//! `catch_unwind`, which names the task from [`WorkerState::kind`], the innermost step that
//! was running.

use core::marker::PhantomData;
use core::sync::atomic::Ordering;

use gtap_device::task::{Context, KindId, Program, Step};

use super::record::{Header, TaskPtr, ZOMBIE};
use super::seq::SeqCx;
use super::worker::finish;
use super::worker_state::WorkerState;
use crate::error::Error;

/// A child that runs as a call: where its frame is and where its result goes.
#[derive(Clone, Copy)]
pub(super) struct Child {
    pub(super) kind: KindId,
    pub(super) queue: u32,
    pub(super) frame: *mut u8,
    pub(super) result_dst: *mut u8,
}

/// Levels of children run as tasks below a record's step (see `WorkerState::expose`). On 16
/// workers, 8 levels took fib(32) from 8.7-9.2 ms to 4.2-4.8 and UTS 1e5 from 4.7-4.8 to
/// 1.7-2.1, 4 levels about half way, and 1-2 workers moved within the machine's noise
/// (`docs/benchmarks.md`, "The CPU executor's design, measured").
pub(super) const EXPOSE_LEVELS: u32 = 8;

impl<'a, 'r> WorkerState<'a, 'r> {
    /// Runs one step of the record `task` (see the worker loop's protocol); returns the task
    /// this worker should run next, if the step made one ready.
    #[inline]
    pub(super) fn execute<P: Program>(&mut self, task: TaskPtr) -> Option<TaskPtr> {
        if self.count_step() {
            return None;
        }
        let header = task.header();
        // SAFETY: this worker owns the record: it popped or stole it, or its decrement of
        // `pending` reached zero (record.rs, "Ownership").
        let (kind, state, result_dst) =
            unsafe { ((*header).kind, (*header).state, (*header).result_dst) };
        let mut cx = Cx::<P>::enter(self, Some(task), task.frame(), state, result_dst, kind);
        // SAFETY: `task` is a live record of kind `kind` of program P whose frame holds the
        // arguments (first entry) or the state its last step saved; `cx` hands out that frame
        // and its result destination (Context contract, upheld by Cx).
        let step = unsafe { P::dispatch(&mut cx, kind) };
        if step == Step::Done && cx.has_children() {
            // Children spawned after the last join: the inline ones run now, the records
            // become detached children (below).
            cx.join();
        }
        let records = cx.records_base;
        cx.leave();
        // The error's test inline, its report out of line: a record step's path (`settle_error`
        // moves the error out, which copies it, so it is called only when there is one).
        let stop = if self.error.is_some() {
            self.settle_error()
        } else {
            self.aborting
        };
        if stop {
            self.records.truncate(records);
            return None;
        }
        let children = (self.records.len() - records) as u32;
        let next = match step {
            Step::Suspended if children == 0 => {
                self.run.fail(Error::Protocol {
                    task: P::name_of(kind),
                    detail: "it suspended with no children to wait for",
                });
                None
            }
            Step::Suspended => {
                // `wait` saved the resume state; join the children of this step.
                // SAFETY: this worker owns the record until the children are published.
                // Ordering: Relaxed; the children's decrements come after their publication
                // (a deque push, a release; or program order for `next`), so they see this.
                unsafe { (*header).pending.store(children, Ordering::Relaxed) };
                self.publish(records)
            }
            Step::Done if children == 0 => finish(self.run, self.arena, task),
            Step::Done => {
                // Detached children: stay alive until they finish, then finish.
                // SAFETY: as above.
                unsafe {
                    (*header).state = ZOMBIE;
                    // Ordering: Relaxed; as for `Suspended`.
                    (*header).pending.store(children, Ordering::Relaxed);
                }
                self.publish(records)
            }
            Step::Aborted => {
                self.run.fail(Error::Protocol {
                    task: P::name_of(kind),
                    detail: "it aborted without recording a cause",
                });
                None
            }
        };
        self.records.truncate(records);
        next
    }

    /// Publishes the record children `records[from..]`: the first is returned, for this
    /// worker to run next (depth first, as a sequential run would); the others are pushed last
    /// first, so that this worker pops them in spawn order and thieves take the later ones.
    #[inline]
    fn publish(&mut self, from: usize) -> Option<TaskPtr> {
        let (&first, rest) = self.records[from..].split_first()?;
        if !rest.is_empty() {
            self.push_all(from + 1);
        }
        Some(first)
    }

    /// Pushes `records[from..]`, last first (the rest of [`WorkerState::publish`]).
    #[inline(never)]
    fn push_all(&mut self, from: usize) {
        for &child in self.records[from..].iter().rev() {
            self.deque.push(child);
        }
    }

    /// Runs the inline child `child` as a call.
    pub(super) fn run_inline<P: Program>(&mut self, child: Child) {
        if self.count_step() {
            return;
        }
        if self.expose == 0 && self.clone_allowed() {
            let seq = SeqCx::<P>::new(self);
            // SAFETY: `child.frame` holds the child's arguments (written by `spawn_task`
            // before its parent's join) and `child.result_dst` is null or its result's slot.
            if unsafe { P::dispatch_seq(seq, child.kind, child.frame, child.result_dst) } {
                self.inline += 1;
                return;
            }
        }
        self.inline += 1;
        let mut cx = Cx::<P>::enter(self, None, child.frame, 0, child.result_dst, child.kind);
        // SAFETY: `child.frame` is a frame of the run's stride holding the child's arguments
        // (written by `spawn_task` before its parent's join), and nothing else uses it until
        // the parent's join ends; `cx` hands out that frame and the child's destination.
        let step = unsafe { P::dispatch(&mut cx, child.kind) };
        match step {
            // Children after its last join (detached) run now: a call returns only when its
            // whole subtree is done.
            Step::Done => {
                if cx.has_children() {
                    cx.join();
                }
            }
            // Only a failure makes a call's `wait` return `true`, or a step return `Aborted`.
            Step::Suspended | Step::Aborted if cx.w.aborting || cx.w.error.is_some() => {}
            Step::Suspended | Step::Aborted => {
                cx.w.run.fail(Error::Protocol {
                    task: P::name_of(child.kind),
                    detail: "it suspended or aborted without a cause while running as a call",
                });
                cx.w.aborting = true;
            }
        }
        cx.leave();
        if self.error.is_some() {
            self.settle_error();
        }
    }
}

/// The [`Context`] of one step on a worker: a record's, or an inline child's.
pub(super) struct Cx<'w, 'a, 'r, P> {
    pub(super) w: &'w mut WorkerState<'a, 'r>,
    /// The running record; `None` for an inline child.
    pub(super) record: Option<TaskPtr>,
    pub(super) frame: *mut u8,
    pub(super) state: u32,
    pub(super) result_dst: *mut u8,
    /// The kind that ran before this step on this worker's stack (restored by `leave`).
    pub(super) outer_kind: KindId,
    /// `WorkerState::expose` before this step (restored by `leave`).
    pub(super) outer_expose: u32,
    /// `children.len()` when this step began: its inline children are above.
    pub(super) children_base: usize,
    /// `records.len()` when this step began: its record children are above.
    pub(super) records_base: usize,
    /// The frame region's top when this step began: its children's frames are above.
    pub(super) frames_mark: usize,
    pub(super) _program: PhantomData<P>,
}

impl<'w, 'a, 'r, P: Program> Cx<'w, 'a, 'r, P> {
    pub(super) fn enter(
        w: &'w mut WorkerState<'a, 'r>,
        record: Option<TaskPtr>,
        frame: *mut u8,
        state: u32,
        result_dst: *mut u8,
        kind: KindId,
    ) -> Self {
        let outer_kind = core::mem::replace(&mut w.kind, kind);
        // A record's step exposes the next levels; an inline child's, one level fewer than
        // its parent's.
        let levels = if record.is_some() {
            EXPOSE_LEVELS
        } else {
            w.expose.saturating_sub(1)
        };
        let outer_expose = core::mem::replace(&mut w.expose, levels);
        let (children_base, records_base) = (w.children.len(), w.records.len());
        let frames_mark = w.frames.mark();
        Self {
            w,
            record,
            frame,
            state,
            result_dst,
            outer_kind,
            outer_expose,
            children_base,
            records_base,
            frames_mark,
            _program: PhantomData,
        }
    }

    /// Ends the step: forgets what its children left (after a failure) and restores the kind
    /// of the step around it. A record's record children stay, for its worker to publish.
    pub(super) fn leave(self) {
        let w = self.w;
        w.children.truncate(self.children_base);
        if self.record.is_none() {
            w.records.truncate(self.records_base);
        }
        w.frames.release(self.frames_mark);
        w.kind = self.outer_kind;
        w.expose = self.outer_expose;
    }

    /// Whether this step spawned children since its last join.
    #[inline]
    pub(super) fn has_children(&self) -> bool {
        self.w.children.len() != self.children_base || self.w.records.len() != self.records_base
    }

    #[cold]
    fn refuse(&mut self, error: Error) -> *mut u8 {
        self.w.error.get_or_insert(error);
        core::ptr::null_mut()
    }
}

// SAFETY: frames handed out are the run's stride (the largest reported layout, rounded to 16)
// and 16-aligned: a record's frame or the frame region's; an inline child's frame is left alone
// until its parent's join ends, and a record is resumed exactly once, by the decrement of
// `pending` that reaches zero (acquiring every child's release); a join returns only when its
// children's writes happen-before it (module docs).
unsafe impl<P: Program> Context for Cx<'_, '_, '_, P> {
    #[inline]
    fn state(&self) -> u32 {
        self.state
    }

    #[inline]
    fn frame(&self) -> *mut u8 {
        self.frame
    }

    #[inline]
    fn result_dst(&self) -> *mut u8 {
        self.result_dst
    }

    // Inlined into every step: the path of a child that runs as a call is a few checks and
    // a bump of the frame region.
    #[inline(always)]
    unsafe fn spawn_raw(&mut self, kind: KindId, queue: u32, result_dst: *mut u8) -> *mut u8 {
        let w = &mut *self.w;
        if w.error.is_some() {
            return core::ptr::null_mut();
        }
        if let Some(error) = w.queue_error::<P>(queue) {
            return self.refuse(error);
        }
        let spawned =
            (w.children.len() - self.children_base) + (w.records.len() - self.records_base);
        if spawned >= w.max_children {
            let capacity = w.max_children as u64;
            return self.refuse(Error::PoolExhausted {
                limit: "Config::max_children",
                capacity,
            });
        }
        if w.inline_children && w.stack_allows_inline() {
            if let Some(frame) = w.frames.alloc() {
                w.children.push(Child {
                    kind,
                    queue,
                    frame,
                    result_dst,
                });
                return frame;
            }
        }
        // SAFETY: forwarded from the caller.
        unsafe { self.spawn_record(kind, queue, result_dst) }
    }

    #[inline]
    fn wait(&mut self, resume_state: u32, queue: u32) -> bool {
        if !self.has_children() {
            return false;
        }
        self.join_children(resume_state, queue)
    }

    fn report_layout(&mut self, _size: usize, _align: usize) {
        // Only called on the probe pass, which uses its own context.
    }

    fn unknown_kind(&mut self, kind: KindId) -> Step {
        self.w.error.get_or_insert(Error::UnknownKind {
            task: P::name_of(kind),
            kind,
            program: core::any::type_name::<P>(),
        });
        Step::Aborted
    }
}

impl<P: Program> Cx<'_, '_, '_, P> {
    /// `spawn_raw` for a child that is a record (see the module docs).
    ///
    /// # Safety
    ///
    /// As for `spawn_raw`.
    #[inline]
    unsafe fn spawn_record(&mut self, kind: KindId, queue: u32, result_dst: *mut u8) -> *mut u8 {
        let w = &mut *self.w;
        let Some(record) = w.arena.alloc() else {
            let error = w.pool_exhausted();
            return self.refuse(error);
        };
        let parent = self
            .record
            .map_or(core::ptr::null_mut(), |r: TaskPtr| r.header());
        // SAFETY: a fresh record of this run's size, owned by this worker until published. A
        // call's record children get their cell as parent when it joins them.
        unsafe {
            record
                .as_ptr()
                .write(Header::fresh(kind, queue, parent, result_dst));
        }
        let child = TaskPtr(record);
        w.records.push(child);
        child.frame()
    }

    /// `wait` with children to join: runs them (see `join`), then tells the step whether to
    /// suspend for its record children.
    fn join_children(&mut self, resume_state: u32, queue: u32) -> bool {
        let w = &mut *self.w;
        if let Some(error) = w.queue_error::<P>(queue) {
            // `wait` cannot refuse; the step returns `Suspended` and its context reports this.
            w.error.get_or_insert(error);
            return true;
        }
        // A record's step whose children are all records has nothing to run here: they
        // suspend it (the common case of a chain past the native stack's budget).
        let joins_here = self.record.is_none() || self.w.children.len() > self.children_base;
        let failed = if joins_here {
            self.join()
        } else {
            self.w.aborting
        };
        if failed {
            return true;
        }
        match self.record {
            Some(task) if self.w.records.len() > self.records_base => {
                // SAFETY: the worker owns the running record while its step runs.
                unsafe {
                    (*task.header()).state = resume_state;
                    (*task.header()).queue = queue;
                }
                true
            }
            _ => false,
        }
    }
}
