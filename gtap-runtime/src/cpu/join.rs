//! How a step that runs as a call joins its children (`context.rs` runs them): the inline
//! ones one after the other, the records on a *join cell* while the worker helps, and when an
//! idle worker asks for work, the promotion of unstarted inline children to records.
//!
//! # Promotion on request
//!
//! A worker that finds no task (its deque empty, a round of steals failed) asks a random other
//! worker for work: it sets that worker's flag in `Run::wanted` (`worker.rs`,
//! `request_work`), and goes on stealing. Before each inline child starts, a worker reads its
//! own flag (relaxed). When it is set and the worker's deque is empty, the unstarted inline
//! children of the *outermost* join in progress on this worker become records (their frames
//! copied), pushed on its deque where thieves find them: the oldest unstarted children are the
//! largest pieces of work the worker holds. The worker then clears its flag. A worker whose
//! deque already holds work clears the flag without promoting: that work is there for the
//! asker to steal. Until somebody asks, promotion costs one load of a line that only this
//! worker writes, and an answered request costs one promotion, not one per child while
//! anybody anywhere is idle (the hungry count that this replaces made every `task!` of a
//! clone run its child as a task while any worker was idle, and every idle worker's coming
//! and going invalidated the line each spawn read: `docs/benchmarks.md`, "The CPU executor's
//! design, measured").
//!
//! The flag is a hint: whatever a worker reads, it runs its children correctly, and no data
//! travels through it (the promoted records are published by the deque's push, a release, and
//! taken by a pop or steal, an acquire), so every access to it is Relaxed.
//!
//! # Joining records from a call
//!
//! A step that runs as a call cannot suspend: its join must return. The records it waits for
//! (its record children, and the promoted children of a join) have a *join cell* as their
//! parent (`record.rs`). The join waits until the cell's `pending` is zero and runs tasks while
//! it waits: its own deque first (where its children are, unless stolen), then steals. A
//! record's step still suspends for its record children (the worker publishes them when the
//! step returns), so a deep chain of records does not nest calls.
//!
//! # Memory ordering
//!
//! - Inline children: one thread; program order.
//! - Promotion and a call's record children: the worker writes each record (header and frame)
//!   and adds the batch to the cell's `pending` (Relaxed) before pushing them. The push is a
//!   release and the pop or steal an acquire (crossbeam-deque), so whoever runs a child sees
//!   its record, and the count its decrement lowers already includes it.
//! - Completion: a finishing child whose parent is a cell does `fetch_sub(1, AcqRel)` on
//!   `pending` (`worker.rs`, `finish`) and never touches the cell again. Its release publishes
//!   the child's subtree: its result in the joining step's frame, its writes to user data. The
//!   joining worker's Acquire load that reads zero reads the last decrement; every decrement
//!   and increment is an RMW of `pending`, so each decrement's release sequence reaches that
//!   last one and the load synchronises with all of them: every child's writes happen before
//!   the step goes on. Only then does the joining worker free the cell.
//!   `loom-models/src/cpu_join.rs` model-checks this, and rejects a Relaxed decrement.
//! - Promotion onto a live cell: a join with record children promotes onto their cell, whose
//!   count a stolen child may have taken to zero; only this worker waits on the cell, so no
//!   waiter sees that zero, and the increment (an RMW, before the pushes) continues every
//!   earlier decrement's release sequence. `loom-models/src/cpu_promote.rs` model-checks it
//!   with the request flag, and rejects the increment after the push and a Relaxed wait.

use core::sync::atomic::Ordering;

use gtap_device::task::Program;

use super::context::Cx;
use super::record::{Header, TaskPtr};
use super::worker::Idle;
use super::worker_state::WorkerState;

/// A join in progress: its step's inline children are `children[next..end]` (those before
/// `next` started), and the records it waits for have `cell` as their parent.
#[derive(Clone, Copy)]
pub(super) struct Level {
    pub(super) next: usize,
    pub(super) end: usize,
    pub(super) cell: Option<TaskPtr>,
}

impl WorkerState<'_, '_> {
    /// A fresh join cell for `pending` records.
    pub(super) fn new_cell(&mut self, pending: u32) -> Option<TaskPtr> {
        let record = self.arena.alloc()?;
        self.cells += 1;
        // SAFETY: a fresh record, owned by this worker until its children are published.
        unsafe {
            record.as_ptr().write(Header::cell(pending));
        }
        Some(TaskPtr(record))
    }

    /// Whether to promote now: a worker asked this one for work, and it has none on its deque
    /// to give. A request that the deque can answer is cleared here.
    #[inline]
    pub(super) fn should_promote(&self) -> bool {
        // Ordering: Relaxed; a hint (module docs, "Promotion on request").
        self.wanted.load(Ordering::Relaxed) && self.answer_request()
    }

    /// A worker asked this one for work: whether it must expose some. `false` (and the request
    /// cleared) when its deque holds work already, which the asker can steal.
    #[cold]
    #[inline(never)]
    pub(super) fn answer_request(&self) -> bool {
        if self.deque.is_empty() {
            return true;
        }
        // Ordering: Relaxed; a hint (module docs).
        self.wanted.store(false, Ordering::Relaxed);
        false
    }

    /// Turns the unstarted inline children of the outermost join that has any into records
    /// joined on that join's cell, and pushes them on this worker's deque (see the module docs).
    /// Gives up, leaving them inline, when the arena is short.
    pub(super) fn promote_outermost(&mut self) {
        let Some(j) = self.levels.iter().position(|l| l.next < l.end) else {
            return;
        };
        let Level { next, end, cell } = self.levels[j];
        let cell = match cell {
            Some(cell) => cell,
            None => match self.new_cell(0) {
                Some(cell) => {
                    self.levels[j].cell = Some(cell);
                    cell
                }
                None => return,
            },
        };
        let base = self.records.len();
        for i in next..end {
            let Some(record) = self.arena.alloc() else {
                for &r in &self.records[base..] {
                    self.arena.free(r.0);
                }
                self.records.truncate(base);
                return;
            };
            let child = self.children[i];
            // SAFETY: a fresh record, owned by this worker until pushed below; the child's
            // frame holds its arguments and is `frames.stride()` bytes, which fit the
            // record's frame (`record_bytes` rounds the same stride up further).
            unsafe {
                record.as_ptr().write(Header::fresh(
                    child.kind,
                    child.queue,
                    cell.header(),
                    child.result_dst,
                ));
                core::ptr::copy_nonoverlapping(
                    child.frame,
                    TaskPtr(record).frame(),
                    self.frames.stride(),
                );
            }
            self.records.push(TaskPtr(record));
        }
        // SAFETY: the cell lives until its waiter reads zero, which needs these children.
        // Ordering: Relaxed; the pushes below are releases that publish the count with the
        // records (module docs, "Memory ordering").
        unsafe { cell.0.as_ref() }
            .pending
            .fetch_add((end - next) as u32, Ordering::Relaxed);
        for &record in self.records[base..].iter().rev() {
            self.deque.push(record);
        }
        self.records.truncate(base);
        self.levels[j].next = end;
        // Answered: the records are on the deque for the asker to steal.
        // Ordering: Relaxed; a hint (module docs).
        self.wanted.store(false, Ordering::Relaxed);
    }

    /// Waits until every record joined on `cell` finished, running tasks meanwhile; then frees
    /// the cell. Leaves it (and returns) when the run fails.
    pub(super) fn help<P: Program>(&mut self, cell: TaskPtr) {
        let mut idle = Idle::new();
        loop {
            // SAFETY: the cell lives until this worker frees it below.
            // Ordering: Acquire; pairs with the children's AcqRel decrements (module docs).
            if unsafe { cell.0.as_ref() }.pending.load(Ordering::Acquire) == 0 {
                break;
            }
            if self.aborting || self.run.over() {
                self.aborting = true;
                return;
            }
            match self.find_task() {
                Some(task) => {
                    idle.reset();
                    let mut next = Some(task);
                    while let Some(task) = next {
                        next = self.execute::<P>(task);
                    }
                }
                None => {
                    self.request_work();
                    if self.run.stop.armed() {
                        self.run.check_stop();
                    }
                    idle.snooze();
                }
            }
        }
        self.arena.free(cell.0);
    }
}

impl<P: Program> Cx<'_, '_, '_, P> {
    /// Joins the children spawned since the last join, except a record's record children
    /// (they suspend it): runs the inline ones as calls and waits for the records on a cell.
    /// Returns whether the run failed meanwhile.
    pub(super) fn join(&mut self) -> bool {
        let w = &mut *self.w;
        let end = w.children.len();
        let mut cell = None;
        if self.record.is_none() && w.records.len() > self.records_base {
            let count = (w.records.len() - self.records_base) as u32;
            let Some(c) = w.new_cell(count) else {
                let error = w.pool_exhausted();
                w.error.get_or_insert(error);
                w.settle_error();
                return true;
            };
            for &record in &w.records[self.records_base..] {
                // SAFETY: unpublished records of this step, owned by this worker.
                unsafe { (*record.header()).parent = c.header() };
            }
            // The count was set before the pushes (releases) that publish the children.
            for &record in w.records[self.records_base..].iter().rev() {
                w.deque.push(record);
            }
            w.records.truncate(self.records_base);
            cell = Some(c);
        }
        if end > self.children_base || cell.is_some() {
            w.levels.push(Level {
                next: self.children_base,
                end,
                cell,
            });
            let level = w.levels.len() - 1;
            while !w.aborting {
                let i = w.levels[level].next;
                if i >= w.levels[level].end {
                    break;
                }
                w.levels[level].next = i + 1;
                if w.should_promote() {
                    w.promote_outermost();
                }
                let child = w.children[i];
                w.run_inline::<P>(child);
            }
            let level = w.levels.pop().expect("the join's level");
            if let (Some(cell), false) = (level.cell, w.aborting) {
                w.help::<P>(cell);
            }
        }
        w.children.truncate(self.children_base);
        w.frames.release(self.frames_mark);
        w.aborting
    }
}
