//! Watching a running kernel: the stream polled, the progress counters sampled for the
//! watchdog, the stop token and deadline, the abort word; and what the device reported,
//! turned into an [`Error`] (a recorded device error, a fault, a lost context).

use super::*;

/// How long the watcher polls a run without sleeping: the whole of a small run, a negligible
/// part of a long one (one host thread, busy meanwhile).
const SPIN_WAIT: Duration = Duration::from_millis(2);

impl Inner {
    /// Waits for the kernel, polling the progress counters; a hang or a fault becomes an error.
    /// A steered run (`elastic.rs`) also looks at its pause and SM-limit requests.
    pub(super) fn wait(
        &mut self,
        warps: u32,
        stop: &Stop,
        mut steering: Option<(&mut elastic::Steering, &Kernel)>,
    ) -> Result<()> {
        let mut last_sum = 0u64;
        let started = Instant::now();
        let mut last_change = started;
        let mut next_poll = started + Duration::from_millis(10);
        let mut sleep_us = 5;
        loop {
            // SAFETY: a valid stream.
            let r = unsafe { sys::cuStreamQuery(self.stream) };
            if r == OK {
                return Ok(());
            }
            if r != CuResult::CUDA_ERROR_NOT_READY {
                return Err(self.fault(r));
            }
            if let Some(reason) = stop.requested() {
                return Err(self.stop_now(stop.error(reason)));
            }
            if let Some((s, k)) = steering.as_mut() {
                if let Err(e) = s.step(self, k, stop) {
                    return Err(self.stop_now(e));
                }
            }
            let now = Instant::now();
            if now >= next_poll {
                next_poll = now + Duration::from_millis(10);
                let sum = self.progress_sum(warps)?;
                if sum != last_sum {
                    last_sum = sum;
                    last_change = now;
                } else if now - last_change > self.config.watchdog {
                    return Err(self.abort(now - last_change));
                }
            }
            if now - started < SPIN_WAIT {
                // A small run ends within microseconds: a sleep would cost more than the run
                // (Linux wakes a sleeper 50 us late at the least).
                std::hint::spin_loop();
                continue;
            }
            std::thread::sleep(Duration::from_micros(sleep_us));
            sleep_us = (sleep_us * 2).min(if stop.armed() { STOP_POLL_US } else { 200 });
        }
    }

    /// Stops a running kernel through the abort word (a cancellation); returns `error`, or
    /// [`Error::Hang`] when the kernel did not stop within 5 s (the context is then poisoned).
    pub(super) fn stop_now(&mut self, error: Error) -> Error {
        let t0 = Instant::now();
        match self.abort_and_wait() {
            Stopped::Exited => error,
            Stopped::Failed(e) => self.fault(e),
            Stopped::Stuck => Error::Hang {
                after: t0.elapsed(),
            },
        }
    }

    /// Sets the abort word and waits up to 5 s for the kernel to exit; a kernel that does not
    /// (a task loops forever), or whose abort could not be written, poisons the context.
    pub(super) fn abort_and_wait(&mut self) -> Stopped {
        let r = self.request_abort();
        let deadline = Instant::now() + Duration::from_secs(5);
        while r == OK && Instant::now() < deadline {
            // SAFETY: a valid stream.
            match unsafe { sys::cuStreamQuery(self.stream) } {
                // Blocks that rejoined the run (`elastic.rs`) see the same abort word.
                OK => {
                    return match self.sync_rejoins() {
                        OK => Stopped::Exited,
                        e => Stopped::Failed(e),
                    }
                }
                CuResult::CUDA_ERROR_NOT_READY => std::thread::yield_now(),
                e => return Stopped::Failed(e),
            }
        }
        self.poison();
        Stopped::Stuck
    }

    /// Sets the abort word the workers poll (the kernel keeps running until they see it).
    ///
    /// Waits for the run's start event first: the control block is reset on the run stream
    /// before the launch, and an abort written on the watch stream before that reset would be
    /// overwritten (a cancellation 1 ms into a run once went unseen until the run ended).
    pub(super) fn request_abort(&self) -> CuResult {
        let one = 1u32;
        let addr = self.control + core::mem::offset_of!(Control, abort) as u64;
        // SAFETY: the control block is allocated; the watch stream runs beside the kernel; the
        // start event was recorded by the launch.
        unsafe {
            if self.bind().is_err() {
                return CuResult::CUDA_ERROR_INVALID_CONTEXT;
            }
            let r = sys::cuEventSynchronize(self.start);
            if r != OK {
                return r;
            }
            let r = sys::cuMemcpyHtoDAsync_v2(addr, (&raw const one).cast(), 4, self.watch);
            if r == OK {
                sys::cuStreamSynchronize(self.watch)
            } else {
                r
            }
        }
    }

    /// The sum of the per-warp progress counters of a running kernel of `warps` warps.
    pub(super) fn progress_sum(&mut self, warps: u32) -> Result<u64> {
        let w = warps as usize;
        self.progress_host.resize(w, 0);
        let progress = self.pools.as_ref().map_or(0, |p| p.progress);
        // SAFETY: `progress_host` holds `w` u32; the progress region too. The copy runs on the
        // watch stream while the kernel runs on the other.
        unsafe {
            check(
                "cuMemcpyDtoHAsync",
                sys::cuMemcpyDtoHAsync_v2(
                    self.progress_host.as_mut_ptr().cast(),
                    progress,
                    w * 4,
                    self.watch,
                ),
            )?;
            check("cuStreamSynchronize", sys::cuStreamSynchronize(self.watch))?;
        }
        Ok(self.progress_host.iter().map(|&x| u64::from(x)).sum())
    }

    /// Stops a hung kernel through the abort word; returns the error to report.
    pub(super) fn abort(&mut self, after: Duration) -> Error {
        if let Stopped::Failed(_) = self.abort_and_wait() {
            // The stream failed while stopping: the context cannot be trusted.
            self.poison();
        }
        Error::Hang { after }
    }

    /// The error of a failed launch (trap, illegal address): the context is lost.
    pub(super) fn fault(&mut self, r: CuResult) -> Error {
        self.poison();
        // SAFETY: host-mapped memory, valid until drop; the device finished writing it before
        // the trap.
        let rec = unsafe { self.error_host.read_volatile() };
        if rec.code == layout::ERR_PANIC {
            // A panic recorded before the launch failed for another reason.
            return Error::TaskPanicked {
                task: "<a task on the GPU>",
                message: format!(
                    "{}; the launch then failed and the CUDA context is lost: drop every Runtime that uses the GPU, and the next Runtime gets a fresh context",
                    panic_message(&rec)
                ),
            };
        }
        Error::DeviceFault {
            code: r as u32,
            detail: format!(
                "the kernel failed with {r:?}; the CUDA context is lost: drop every Runtime that uses the GPU, and the next Runtime gets a fresh context"
            ),
        }
    }

    /// The error the device recorded (the kernel drained and exited).
    pub(super) fn device_error<P: Program>(&self) -> Error {
        // SAFETY: host-mapped memory; the kernel has exited, so every device write is visible.
        let rec = unsafe { self.error_host.read_volatile() };
        let task = P::name_of(rec.kind);
        let p = self.pools.as_ref();
        let per_worker = if P::HAS_BLOCK {
            "Config::tasks_per_block"
        } else {
            "Config::tasks_per_warp"
        };
        let wf = p.is_some_and(|p| p.wf);
        match rec.code {
            layout::ERR_POOL_EXHAUSTED if wf => Error::PoolExhausted {
                limit: "Config::gpu_pool_bytes",
                capacity: u64::from(rec.limit) * u64::from(p.map_or(0, |p| p.slot_bytes)),
            },
            layout::ERR_POOL_EXHAUSTED => Error::PoolExhausted {
                limit: per_worker,
                capacity: u64::from(rec.limit),
            },
            // Work first: a deque holds `tasks_per_warp` entries (the device reports it), while
            // the pools are sized apart.
            layout::ERR_QUEUE_OVERFLOW if wf => Error::QueueOverflow {
                limit: per_worker,
                capacity: u64::from(rec.limit),
            },
            layout::ERR_QUEUE_OVERFLOW => Error::QueueOverflow {
                limit: per_worker,
                capacity: u64::from(p.map_or(rec.limit, |p| p.n)),
            },
            layout::ERR_INVALID_QUEUE => Error::InvalidQueue {
                task,
                queue: rec.value,
                queues: rec.limit,
            },
            layout::ERR_UNKNOWN_KIND => Error::UnknownKind {
                task,
                kind: rec.kind,
                program: core::any::type_name::<P>(),
            },
            layout::ERR_TOO_MANY_CHILDREN => Error::PoolExhausted {
                limit: "Config::max_children",
                capacity: u64::from(rec.limit),
            },
            layout::ERR_PANIC => Error::TaskPanicked {
                task: P::task_at(&panic_file(&rec), rec.line).unwrap_or("<a task on the GPU>"),
                message: panic_message(&rec),
            },
            0 => Error::Protocol {
                task: "<gpu scheduler>",
                detail: "an error was flagged but not recorded",
            },
            _ => Error::Protocol {
                task,
                detail: "the GPU scheduler found its own state inconsistent",
            },
        }
    }
}

/// A panic's record as the message of [`Error::TaskPanicked`]: `panicked at file:line:column
/// (warp w, lane l)`, the path's start cut where the record is. The GPU records the location
/// only (reading the message would cost the kernels registers, `gtap-device`'s `gpu/mod.rs`).
fn panic_message(rec: &ErrorRecord) -> String {
    let cut = if rec.file_len as usize >= rec.file.len() {
        "..."
    } else {
        ""
    };
    let file = panic_file(rec);
    format!(
        "panicked at {cut}{file}:{}:{} (warp {}, lane {}); the GPU keeps the location only: run on the CPU executor (Backend::Cpu) for the message",
        rec.line, rec.column, rec.warp, rec.lane
    )
}

/// The part of a panic's source path the record holds (its end).
fn panic_file(rec: &ErrorRecord) -> std::borrow::Cow<'_, str> {
    let n = (rec.file_len as usize).min(rec.file.len());
    String::from_utf8_lossy(&rec.file[..n])
}
