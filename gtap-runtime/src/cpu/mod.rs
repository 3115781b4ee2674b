//! The CPU executor: the same generated state machines as the GPU, on a work-stealing pool of
//! OS threads (`docs/cpu-executor.md`: how a run goes, what a task costs).
//!
//! - `pool.rs`: persistent, parked threads; one broadcast job per run.
//! - `record.rs`: task records (header + frame), the per-worker arenas they come from, and the
//!   frame region of children that run as calls.
//! - `worker.rs`: the worker loop and the join protocol of records.
//! - `worker_state.rs`: what a worker holds during a run, and its bookkeeping (finding a task,
//!   looks at the run, statistics, the native stack's budget).
//! - `context.rs`: the [`Context`] of a running step and children as calls.
//! - `join.rs`: the join of a step that runs as a call, and promotion to records when an idle
//!   worker asks for work.
//! - `seq.rs`: sequential clones, the function bodies as plain calls, for children that no
//!   idle worker needs.
//!
//! Per worker there is one LIFO deque (crossbeam-deque, Chase–Lev) and one arena, each behind
//! a mutex that the worker holds for the whole run (uncontended; it makes the ownership
//! visible to the type system). EPAQ queue hints are validated against `Config::queues` and
//! stored in the record, but the CPU executor keeps a single deque per worker and does not
//! prioritise by them: on a CPU the hint only matters for parity of errors with the GPU.
//!
//! [`Context`]: gtap_device::task::Context

mod context;
mod frames;
mod join;
mod pool;
mod record;
mod seq;
mod worker;
mod worker_state;

use core::mem::MaybeUninit;
use core::sync::atomic::Ordering;
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use crossbeam_deque::{Stealer, Worker};
use crossbeam_utils::CachePadded;
use gtap_device::task::{Program, TaskFn};

use crate::config::Config;
use crate::error::{Error, Result};
use crate::stats::RunStats;
use frames::FrameStack;
use pool::Pool;
use record::{record_bytes, Arena, Header, TaskPtr};
use worker::Run;

/// What one worker owns across runs.
struct Slot {
    deque: Worker<TaskPtr>,
    arena: Arena,
    /// State of the victim-choosing xorshift.
    rng: u64,
    /// Frames of the children that run as calls.
    frames: FrameStack,
}

/// A work-stealing executor with `workers` threads (the calling thread included).
pub(crate) struct Executor {
    pool: Pool,
    slots: Box<[CachePadded<Mutex<Slot>>]>,
    stealers: Box<[Stealer<TaskPtr>]>,
}

impl Executor {
    /// Starts the pool's threads.
    pub(crate) fn new(workers: usize) -> Result<Self> {
        let pool = Pool::new(workers).map_err(|e| Error::InvalidConfig {
            field: "workers",
            value: format!("{workers} (the OS refused a thread: {e})"),
            expected: "a thread count the OS allows",
        })?;
        let mut slots = Vec::with_capacity(workers);
        let mut stealers = Vec::with_capacity(workers);
        for index in 0..workers {
            let deque = Worker::new_lifo();
            stealers.push(deque.stealer());
            let rng = 0x9e37_79b9_7f4a_7c15_u64.wrapping_mul(index as u64 + 1) | 1;
            slots.push(CachePadded::new(Mutex::new(Slot {
                deque,
                arena: Arena::new(),
                rng,
                frames: FrameStack::new(),
            })));
        }
        Ok(Self {
            pool,
            slots: slots.into(),
            stealers: stealers.into(),
        })
    }

    /// Number of workers.
    pub(crate) fn workers(&self) -> usize {
        self.pool.workers()
    }

    /// Runs `entry(args)` to completion (its whole task tree) and returns its result.
    ///
    /// `stride` is the program's frame stride from the probe; `entry`'s kind is in `P::KINDS`
    /// (the runtime checked both).
    pub(crate) fn run<P: Program, T: TaskFn>(
        &mut self,
        _entry: &T,
        args: T::Args,
        stride: usize,
        config: &Config,
        stop: &crate::stop::Stop,
    ) -> Result<(T::Output, RunStats)> {
        if size_of::<T::Args>() > stride {
            return Err(Error::Protocol {
                task: T::NAME,
                detail: "its arguments are larger than the frame it reported",
            });
        }
        let start = Instant::now();
        let share = config.cpu_pool_bytes / self.slots.len();
        self.reset(stride, share);
        let mut result = MaybeUninit::<T::Output>::uninit();
        {
            let mut slot = self.slot(0);
            let root = slot.arena.alloc().ok_or(Error::PoolExhausted {
                limit: "Config::cpu_pool_bytes",
                capacity: config.cpu_pool_bytes as u64,
            })?;
            // SAFETY: a fresh record of `record_bytes(stride)` bytes; the frame holds `stride
            // >= size_of::<T::Args>()` bytes, 16-aligned (checked above), and `result` outlives
            // the run (the broadcast below returns only when every worker is done).
            unsafe {
                root.as_ptr().write(Header::fresh(
                    T::ID,
                    0,
                    core::ptr::null_mut(),
                    result.as_mut_ptr().cast(),
                ));
                TaskPtr(root).frame().cast::<T::Args>().write(args);
            }
            slot.deque.push(TaskPtr(root));
        }
        let run = Run::new(&self.slots, &self.stealers, config, stop);
        // SAFETY: `run` lives on this stack until `broadcast` returns, which is after every
        // worker returned from `work`; `work::<P>` runs tasks of program P only (the root is of
        // P, and P's dispatch only spawns P's kinds); it never unwinds (it catches panics).
        unsafe {
            self.pool
                .broadcast((&raw const run).cast(), worker::work::<P>)
        };

        let mut stats = RunStats {
            backend: "cpu",
            workers: self.workers(),
            // Ordering: Relaxed; the broadcast's mutex ordered the workers' adds before this.
            steps: run.steps.load(Ordering::Relaxed),
            // Ordering: Relaxed; as above.
            steals: run.steals.load(Ordering::Relaxed),
            ..RunStats::default()
        };
        let records: u64 = self
            .slots
            .iter()
            .map(|s| s.lock().map_or(0, |s| s.arena.allocated()))
            .sum();
        // Ordering: Relaxed; as above (twice).
        stats.tasks =
            records - run.cells.load(Ordering::Relaxed) + run.inline.load(Ordering::Relaxed);
        let done = run.done();
        let error = run
            .error
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        // Records of an aborted run are forgotten here, and the deques emptied.
        self.reset(stride, share);
        stats.elapsed = start.elapsed();
        match error {
            Some(error) => Err(error),
            None if !done => Err(Error::Protocol {
                task: T::NAME,
                detail: "the run ended before its root task finished",
            }),
            // SAFETY: the root finished (`done`), and a task writes its result to a non-null
            // `result_dst` before returning `Done` (TaskFn contract).
            None => Ok((unsafe { result.assume_init() }, stats)),
        }
    }

    fn slot(&self, index: usize) -> std::sync::MutexGuard<'_, Slot> {
        self.slots[index]
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Empties every deque and frame region, and resets every arena for records of frames of
    /// `stride` bytes, each with a budget of `share` bytes of records.
    fn reset(&mut self, stride: usize, share: usize) {
        for index in 0..self.slots.len() {
            let mut slot = self.slot(index);
            while slot.deque.pop().is_some() {}
            slot.arena.reset(record_bytes(stride), share);
            slot.frames.reset(stride);
        }
    }
}
