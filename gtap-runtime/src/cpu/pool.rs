//! A pool of parked OS threads that run one broadcast job at a time.
//!
//! [`Pool::broadcast`] hands a type-erased job to every pool thread (indices `1..workers`),
//! runs it on the calling thread as index 0, and returns once every thread has returned from
//! it. Between jobs the threads sleep on a condition variable, so an idle runtime costs no CPU
//! time. The threads live as long as the pool: a run does not pay for thread creation (a
//! spawn-and-join of a thread costs tens of microseconds; see `docs/cpu-executor.md`).
//!
//! # Protocol
//!
//! `Control` (behind one mutex) holds a generation counter, the current job and the number of
//! threads still running it. `broadcast` installs the job, bumps the generation, sets
//! `running` and wakes everyone; each thread runs a generation once, decrements `running` and
//! the last one wakes the broadcaster. The mutex orders everything (no atomics here): whatever
//! a thread did inside the job happens-before `broadcast` returns.

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
}

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
