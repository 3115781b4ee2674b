//! A pool of parked OS threads that run one broadcast job at a time.
//!
//! [`Pool::broadcast`] hands a type-erased job to every pool thread (indices `1..workers`),
//! runs it on the calling thread as index 0, and returns once every thread has returned from
//! it. Between jobs the threads sleep on a condition variable, so an idle runtime costs no CPU
//! time. The threads live as long as the pool: a run does not pay for thread creation. On the
//! 2-core build VM a one-task run took about 5 us with the persistent pool (with the spinning
//! below; about 100 us without it) against 300 to 800 us with a fresh pool per run, which is
//! what scoped threads per run would cost (`examples/cpu_overhead.rs`).
//!
//! # Protocol
//!
//! `Control` (behind one mutex) holds a generation counter, the current job and the number of
//! threads still running it. `broadcast` installs the job, bumps the generation, sets
//! `running` and wakes everyone; each thread runs a generation once, decrements `running` and
//! the last one wakes the broadcaster. The mutex orders everything: whatever a thread did
//! inside the job happens-before `broadcast` returns.
//!
//! To save futex round trips between back-to-back runs, a thread that finished a job yields
//! for a while, watching `Shared::hint` (a copy of the generation), before it parks, and the
//! broadcaster yields while watching `Shared::running_hint` before it waits on `finished`.
//! The hints only decide when to take the mutex; every decision is re-checked under it.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

/// A job: `work(data, index)` is called once per worker index.
#[derive(Clone, Copy)]
struct Job {
    data: *const (),
    work: unsafe fn(*const (), usize),
}

// SAFETY: `broadcast`'s caller guarantees `data` may be used from every worker thread until
// `broadcast` returns (see its safety section).
unsafe impl Send for Job {}

struct Control {
    generation: u64,
    job: Option<Job>,
    running: usize,
    shutdown: bool,
}

struct Shared {
    control: Mutex<Control>,
    /// Signalled when a new generation starts or on shutdown.
    start: Condvar,
    /// Signalled when `running` drops to zero.
    finished: Condvar,
    /// `Control::generation`, readable without the lock (a hint for spinning threads).
    hint: AtomicU64,
    /// `Control::running`, readable without the lock (a hint for the broadcaster).
    running_hint: AtomicUsize,
}

/// How many `yield_now`s a thread spends watching a hint before it blocks.
const SPIN_YIELDS: u32 = 200;

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Control> {
        // Nothing panics while holding the lock, but never let a poisoned lock wedge a pool.
        self.control.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The thread pool; `workers - 1` threads plus the broadcasting thread.
pub(crate) struct Pool {
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
}

impl Pool {
    /// Starts `workers - 1` parked threads.
    pub(crate) fn new(workers: usize) -> std::io::Result<Self> {
        let shared = Arc::new(Shared {
            control: Mutex::new(Control {
                generation: 0,
                job: None,
                running: 0,
                shutdown: false,
            }),
            start: Condvar::new(),
            finished: Condvar::new(),
            hint: AtomicU64::new(0),
            running_hint: AtomicUsize::new(0),
        });
        let mut pool = Self {
            shared,
            threads: Vec::with_capacity(workers.saturating_sub(1)),
        };
        for index in 1..workers {
            let shared = Arc::clone(&pool.shared);
            let handle = std::thread::Builder::new()
                .name(format!("gtap-worker-{index}"))
                .spawn(move || thread_main(&shared, index))?;
            pool.threads.push(handle);
        }
        Ok(pool)
    }

    /// Number of workers, the broadcasting thread included.
    pub(crate) fn workers(&self) -> usize {
        self.threads.len() + 1
    }

    /// Runs `work(data, i)` for every worker index `i`, index 0 on the calling thread, and
    /// returns when all have returned.
    ///
    /// # Safety
    ///
    /// `data` must stay valid for `work` on every worker thread until this returns, and `work`
    /// must be safe to call concurrently with the indices `0..workers()`. `work` must not
    /// unwind (a pool thread aborts the process if it does).
    pub(crate) unsafe fn broadcast(&self, data: *const (), work: unsafe fn(*const (), usize)) {
        /// Waits for the pool threads even if the calling thread's `work` unwinds, so that
        /// `data` outlives every use.
        struct WaitAll<'a>(&'a Shared);
        impl Drop for WaitAll<'_> {
            fn drop(&mut self) {
                for _ in 0..SPIN_YIELDS {
                    // Ordering: Acquire; a hint only (the mutex below orders the data).
                    if self.0.running_hint.load(Ordering::Acquire) == 0 {
                        break;
                    }
                    std::thread::yield_now();
                }
                let mut control = self.0.lock();
                while control.running > 0 {
                    control = self
                        .0
                        .finished
                        .wait(control)
                        .unwrap_or_else(PoisonError::into_inner);
                }
                control.job = None;
            }
        }

        {
            let mut control = self.shared.lock();
            debug_assert!(control.running == 0 && control.job.is_none());
            control.job = Some(Job { data, work });
            control.generation += 1;
            control.running = self.threads.len();
            // Ordering: Relaxed; hints, published by the unlock below for lock takers, and
            // read by spinners only to decide when to take the lock.
            self.shared
                .running_hint
                .store(control.running, Ordering::Relaxed);
            // Ordering: Release; as above (Release so a spinner sees `running_hint` too).
            self.shared
                .hint
                .store(control.generation, Ordering::Release);
        }
        self.shared.start.notify_all();
        let _wait = WaitAll(&self.shared);
        // SAFETY: forwarded from the caller.
        unsafe { work(data, 0) };
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.lock().shutdown = true;
        self.shared.start.notify_all();
        for handle in self.threads.drain(..) {
            // A pool thread never unwinds (it aborts instead), so join only fails if the OS
            // does; there is nothing left to clean up in that case.
            let _ = handle.join();
        }
    }
}

fn thread_main(shared: &Shared, index: usize) {
    let mut seen = 0u64;
    loop {
        for _ in 0..SPIN_YIELDS {
            // Ordering: Acquire; a hint only (the lock below re-checks the generation).
            if shared.hint.load(Ordering::Acquire) != seen {
                break;
            }
            std::thread::yield_now();
        }
        let job = {
            let mut control = shared.lock();
            while control.generation == seen && !control.shutdown {
                control = shared
                    .start
                    .wait(control)
                    .unwrap_or_else(PoisonError::into_inner);
            }
            if control.shutdown {
                return;
            }
            seen = control.generation;
            control.job.expect("a new generation always carries a job")
        };
        let outcome = std::panic::catch_unwind(|| {
            // SAFETY: `broadcast` keeps `data` alive until every thread has decremented
            // `running` below, and `work` accepts concurrent calls (its caller's contract).
            unsafe { (job.work)(job.data, index) }
        });
        if outcome.is_err() {
            // The job's contract is not to unwind; the broadcaster would wait forever.
            eprintln!("gtap: a CPU worker unwound out of the scheduler; aborting");
            std::process::abort();
        }
        let mut control = shared.lock();
        control.running -= 1;
        // Ordering: Release; a hint for the broadcaster, which re-checks under the lock.
        shared
            .running_hint
            .store(control.running, Ordering::Release);
        if control.running == 0 {
            shared.finished.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    unsafe fn add(data: *const (), index: usize) {
        // SAFETY: `data` is the `AtomicUsize` of the test below.
        let counter = unsafe { &*data.cast::<AtomicUsize>() };
        // Ordering: Relaxed; the broadcast's mutex orders it before the final read.
        counter.fetch_add(index + 1, Ordering::Relaxed);
    }

    #[test]
    fn smoke() {
        for workers in [1, 2, 5] {
            let pool = Pool::new(workers).unwrap();
            for round in 1..=50 {
                let counter = AtomicUsize::new(0);
                // SAFETY: `counter` outlives the broadcast; `add` only does an atomic add.
                unsafe { pool.broadcast((&raw const counter).cast(), add) };
                // Ordering: Relaxed; `broadcast` returned, so every add happened-before.
                assert_eq!(
                    counter.load(Ordering::Relaxed),
                    workers * (workers + 1) / 2,
                    "{round}"
                );
            }
        }
    }
}
