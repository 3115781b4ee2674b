//! The host side of leaving and rejoining a run (`gtap-device`'s `gpu/park.rs`): pause and
//! resume, and elastic workers that follow an [`SmLimit`](crate::SmLimit).
//!
//! # What the host does
//!
//! - **Asking**: the host writes [`Control::resize`] on the watch stream while the kernel
//!   runs (after the run's start event, like the abort word): `1 + b` asks blocks `b..` to
//!   leave, `1` every block (a pause), 0 nothing.
//! - **Shrinking** to `b` blocks: write `1 + b`, then wait until the device's counters say
//!   the leaving warps have parked (`parks - joins` reaches the warps of blocks `b..`);
//!   only then does the host consider a grow (so it never launches a warp index that is
//!   still running; the flag of the park record keeps even a mistaken launch correct: a
//!   rejoining warp waits for its record, or exits when its block is asked to stay away).
//! - **Growing** from `b` to `c` blocks: write `1 + c` (0 for the whole grid), then launch
//!   blocks `b..c` as a kernel of their own on a rejoin stream, with a params copy whose
//!   `block_base` is `b` and `resume` is 1. Each rejoin slot (a stream and a params copy) is
//!   reused only once its last kernel has exited, so a copy is never rewritten under blocks
//!   that have not started yet; with every slot busy the grow waits for the next poll.
//! - **Pausing**: write `1`; every kernel exits once its warps have parked. The run is paused
//!   when the root did not finish, no error was recorded, and every warp is parked.
//! - **Resuming**: launch the whole grid with `resume` set and `resize` at the current
//!   limit; warps of blocks above it exit at once, leaving their records for a later grow.
//!
//! The rest of a run (pools, deques, the control block's other words, the statistics) stays
//! in device memory between the segments of a paused run; only [`Inner::prepare`] resets
//! it, and a [`Paused`](crate::Paused) handle borrows the runtime, so nothing can call it
//! meanwhile.
//!
//! [`Control::resize`]: gtap_device::gpu::layout::Control::resize

use std::ffi::c_void;
use std::ptr::null_mut;
use std::time::{Duration, Instant};

use cudarc::driver::sys;
use gtap_device::gpu::layout::{Control, Params};
use gtap_device::task::{Program, TaskFn};

use super::{check, htod, CuResult, Inner, Kernel, Launch, OK};
use crate::error::{Error, Result};
use crate::stats::RunStats;
use crate::stop::Stop;

/// Rejoin slots per runtime: grows in flight at once (a slot is busy until its kernel's
/// blocks have all left again, or the run ends).
const REJOIN_SLOTS: usize = 32;
/// How often the watcher reads the park counters while a shrink is under way.
const PARK_POLL: Duration = Duration::from_micros(200);

/// How one segment of a run ended.
pub(crate) enum Segment<O> {
    /// The root finished.
    Done(O, RunStats),
    /// Every warp left for a pause; the statistics so far.
    Paused(RunStats),
}

/// A stream and a params copy for kernels of rejoining blocks.
pub(super) struct RejoinSlot {
    pub(super) stream: sys::CUstream,
    pub(super) params: u64,
}

/// What a paused run needs to go on (kept in [`Inner`] between the segments).
#[derive(Clone, Copy)]
pub(super) struct PausedRun {
    pub(super) kernel: Kernel,
    pub(super) warps: u32,
    pub(super) stats_dev: u64,
    /// The segments so far: kernel time, wall time, pauses, resizes.
    pub(super) kernel_time: Duration,
    pub(super) wall: Duration,
    pub(super) pauses: u32,
    pub(super) resizes: u32,
    /// The program and entry of the run (a resume of another is refused).
    pub(super) program: &'static str,
    pub(super) entry: u32,
}

/// The watcher's view of a steered run: the blocks present, and a shrink under way.
pub(super) struct Steering {
    grid: u32,
    per_sm: u32,
    warps_per_block: u32,
    /// Blocks `0..running` run (or are asked to); the others are parked.
    running: u32,
    /// A shrink to this many blocks, waiting for its parks.
    leaving: Option<u32>,
    next_poll: Instant,
    pausing: bool,
    /// Shrinks and grows carried out.
    pub(super) resizes: u32,
}

impl Steering {
    /// A run of `kernel`'s grid whose blocks `0..running` are (about to be) present and the
    /// others parked, or (`leaving`) asked to leave.
    fn new(k: &Kernel, running: u32, leaving: Option<u32>) -> Self {
        Self {
            grid: k.grid,
            per_sm: k.per_sm.max(1),
            warps_per_block: k.workers_per_block,
            running,
            leaving,
            next_poll: Instant::now(),
            pausing: false,
            resizes: 0,
        }
    }

    /// The steering of a run of kernel `k` that starts fresh now: every block launched, and
    /// (with an SM limit below the grid) the blocks above it asked to leave at once; with the
    /// `resize` word to write before the launch (0: none).
    pub(super) fn at_start(k: &Kernel, stop: &Stop) -> (Self, u32) {
        let mut s = Self::new(k, k.grid, None);
        let want = s.wanted(stop);
        if want < k.grid {
            s.leaving = Some(want);
        }
        let word = s.word(want);
        (s, word)
    }

    /// The blocks the limit allows now (at least one).
    fn wanted(&self, stop: &Stop) -> u32 {
        match stop.sms.as_ref().and_then(crate::SmLimit::get) {
            Some(sms) => sms.saturating_mul(self.per_sm).clamp(1, self.grid),
            None => self.grid,
        }
    }

    /// The `resize` word that keeps blocks `0..blocks`.
    fn word(&self, blocks: u32) -> u32 {
        if blocks >= self.grid {
            0
        } else {
            1 + blocks
        }
    }

    /// One look at the requests, between two polls of the run stream.
    pub(super) fn step(&mut self, inner: &mut Inner, k: &Kernel, stop: &Stop) -> Result<()> {
        if self.pausing {
            return Ok(());
        }
        if stop.pause.as_ref().is_some_and(crate::PauseToken::take) {
            self.pausing = true;
            return inner.write_resize(1);
        }
        if let Some(target) = self.leaving {
            let now = Instant::now();
            if now < self.next_poll {
                return Ok(());
            }
            self.next_poll = now + PARK_POLL;
            let (parks, joins) = inner.park_counts()?;
            let away = (self.grid - target) * self.warps_per_block;
            if parks.wrapping_sub(joins) >= away {
                self.running = target;
                self.leaving = None;
                self.resizes += 1;
            }
            return Ok(());
        }
        let want = self.wanted(stop);
        if want < self.running {
            inner.write_resize(self.word(want))?;
            self.leaving = Some(want);
            self.next_poll = Instant::now() + PARK_POLL;
        } else if want > self.running {
            // With every rejoin slot busy, the grow waits for the next look.
            if let Some(slot) = inner.idle_rejoin_slot()? {
                inner.write_resize(self.word(want))?;
                inner.launch_rejoin(k, slot, self.running, want - self.running)?;
                self.running = want;
                self.resizes += 1;
            }
        }
        Ok(())
    }
}

impl Inner {
    /// Writes the `resize` word of the running kernel (after its start event, on the watch
    /// stream; see `request_abort` for why it waits for the start).
    pub(super) fn write_resize(&self, value: u32) -> Result<()> {
        let addr = self.control + core::mem::offset_of!(Control, resize) as u64;
        self.bind()?;
        // SAFETY: the control block is allocated; the watch stream runs beside the kernel;
        // the start event was recorded by the launch; `value` outlives the synchronous wait.
        unsafe {
            check("cuEventSynchronize", sys::cuEventSynchronize(self.start))?;
            check(
                "cuMemcpyHtoDAsync",
                sys::cuMemcpyHtoDAsync_v2(addr, (&raw const value).cast(), 4, self.watch),
            )?;
            check("cuStreamSynchronize", sys::cuStreamSynchronize(self.watch))
        }
    }

    /// Queues the `resize` word on the run stream, before a launch (after the control
    /// block's reset, which `prepare` queued there).
    pub(super) fn queue_resize(&self, word: u32) -> Result<()> {
        let addr = self.control + core::mem::offset_of!(Control, resize) as u64;
        // SAFETY: the control block is allocated; the pageable source is staged before the
        // call returns.
        check("cuMemcpyHtoDAsync", unsafe {
            sys::cuMemcpyHtoDAsync_v2(addr, (&raw const word).cast(), 4, self.stream)
        })
    }

    /// The device's `parks` and `joins` counters (read on the watch stream while it runs).
    pub(super) fn park_counts(&self) -> Result<(u32, u32)> {
        let addr = self.control + core::mem::offset_of!(Control, parks) as u64;
        let mut both = [0u32; 2];
        // SAFETY: `parks` and `joins` are adjacent u32 of the control block; `both` outlives
        // the synchronous wait.
        unsafe {
            check(
                "cuMemcpyDtoHAsync",
                sys::cuMemcpyDtoHAsync_v2(both.as_mut_ptr().cast(), addr, 8, self.watch),
            )?;
            check("cuStreamSynchronize", sys::cuStreamSynchronize(self.watch))?;
        }
        Ok((both[0], both[1]))
    }

    /// The index of a rejoin slot whose stream is idle, creating one when all are busy and
    /// fewer than [`REJOIN_SLOTS`] exist.
    fn idle_rejoin_slot(&mut self) -> Result<Option<usize>> {
        for (i, s) in self.rejoin.iter().enumerate() {
            // SAFETY: a valid stream.
            match unsafe { sys::cuStreamQuery(s.stream) } {
                OK => return Ok(Some(i)),
                CuResult::CUDA_ERROR_NOT_READY => {}
                e => return Err(self.fault(e)),
            }
        }
        if self.rejoin.len() >= REJOIN_SLOTS {
            return Ok(None);
        }
        let mut stream = null_mut();
        let flags = sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32;
        // SAFETY: an out-pointer; the context is bound.
        check("cuStreamCreate", unsafe {
            sys::cuStreamCreate(&raw mut stream, flags)
        })?;
        let params = match super::dev_alloc(size_of::<Params>()) {
            Ok(p) => p,
            Err(e) => {
                // SAFETY: created just above, unused.
                unsafe { sys::cuStreamDestroy_v2(stream) };
                return Err(e);
            }
        };
        self.rejoin.push(RejoinSlot { stream, params });
        Ok(Some(self.rejoin.len() - 1))
    }

    /// Launches blocks `first..first + blocks` of kernel `k` on rejoin slot `i` (idle) to take
    /// their parked states up again, beside the running kernel.
    fn launch_rejoin(&mut self, k: &Kernel, i: usize, first: u32, blocks: u32) -> Result<()> {
        let params = Params {
            block_base: first,
            resume: 1,
            ..self.run_params
        };
        let slot = &self.rejoin[i];
        // SAFETY: the slot's params copy holds one Params, and its stream is idle (no kernel
        // reads the copy any more); the launch reads it after the copy on the same stream.
        unsafe {
            htod(slot.params, &params, slot.stream)?;
            let mut arg = slot.params;
            let mut kargs = [(&raw mut arg).cast::<c_void>()];
            check(
                "cuLaunchKernel",
                sys::cuLaunchKernel(
                    k.func,
                    blocks,
                    1,
                    1,
                    k.block,
                    1,
                    1,
                    k.smem,
                    slot.stream,
                    kargs.as_mut_ptr(),
                    null_mut(),
                ),
            )?;
        }
        Ok(())
    }

    /// Waits for every rejoin kernel (they exit once the run is over or paused).
    pub(super) fn wait_rejoins(&mut self) -> Result<()> {
        match self.sync_rejoins() {
            OK => Ok(()),
            e => Err(self.fault(e)),
        }
    }

    /// [`Inner::wait_rejoins`], the driver's answer: the first stream's error, else `OK`.
    pub(super) fn sync_rejoins(&self) -> CuResult {
        for s in &self.rejoin {
            // SAFETY: a valid stream.
            let r = unsafe { sys::cuStreamSynchronize(s.stream) };
            if r != OK {
                return r;
            }
        }
        OK
    }

    /// Frees the rejoin slots (the context is bound and nothing runs on them).
    pub(super) fn free_rejoins(&mut self) {
        for s in self.rejoin.drain(..) {
            // SAFETY: created by `idle_rejoin_slot`, idle.
            unsafe {
                let _ = sys::cuMemFree_v2(s.params);
                let _ = sys::cuStreamDestroy_v2(s.stream);
            }
        }
    }

    /// After the kernels of a steered segment exited: the run's result, its pause, or its
    /// error.
    pub(super) fn end_segment<P: Program, T: TaskFn>(
        &mut self,
        launch: Launch,
        steering: &Steering,
        t0: Instant,
    ) -> Result<Segment<T::Output>> {
        self.wait_rejoins()?;
        let k = launch.kernel;
        let (warps, stats_dev) = (launch.warps, launch.stats_dev);
        let end = self.finish::<P, T>(launch)?;
        let mut run = self.paused.take().unwrap_or(PausedRun {
            kernel: k,
            warps,
            stats_dev,
            kernel_time: Duration::ZERO,
            wall: Duration::ZERO,
            pauses: 0,
            resizes: 0,
            program: core::any::type_name::<P>(),
            entry: T::ID,
        });
        run.kernel_time += end.stats.kernel_time.unwrap_or_default();
        run.wall += t0.elapsed();
        run.resizes += steering.resizes;
        let mut stats = end.stats;
        stats.kernel_time = Some(run.kernel_time);
        stats.elapsed = run.wall;
        stats.resizes = run.resizes;
        stats.pauses = run.pauses;
        stats.rejoins = u64::from(end.control.joins);
        stats.gpus = 1;
        if let Some(out) = end.output {
            return Ok(Segment::Done(out, stats));
        }
        let parked = end.control.parks.wrapping_sub(end.control.joins);
        if end.control.done == 0 && parked == warps {
            run.pauses += 1;
            stats.pauses = run.pauses;
            self.paused = Some(run);
            return Ok(Segment::Paused(stats));
        }
        Err(Error::Protocol {
            task: T::NAME,
            detail: "the GPU workers exited before the root task finished",
        })
    }

    /// Launches a paused run again (the whole grid, from the park records) and watches it.
    pub(super) fn resume<P: Program, T: TaskFn>(
        &mut self,
        stop: &Stop,
    ) -> Result<Segment<T::Output>> {
        let t0 = Instant::now();
        if self.lost() {
            return Err(Error::ContextLost);
        }
        self.bind()?;
        let Some(run) = self.paused else {
            return Err(Error::Unsupported {
                what: "Paused::resume",
                reason: "this runtime holds no paused run (a later run or an error ended it)",
            });
        };
        if run.program != core::any::type_name::<P>() || run.entry != T::ID {
            return Err(Error::Unsupported {
                what: "Paused::resume",
                reason: "the paused run is of another program or entry",
            });
        }
        if let Some(reason) = stop.requested() {
            return Err(stop.error(reason));
        }
        let k = run.kernel;
        let mut steering = Steering::new(&k, k.grid, None);
        let want = steering.wanted(stop);
        steering.running = want;
        // The run's params (nothing but a new run's `prepare` rewrites them), launched to
        // take the parked states up.
        self.run_params = Params {
            resume: 1,
            block_base: 0,
            ..self.run_params
        };
        // SAFETY: the params region holds one Params; the source outlives the staged copy.
        unsafe { htod(self.params, &self.run_params, self.stream)? };
        self.params_on_device = Some(self.run_params);
        self.queue_resize(steering.word(want))?;
        let launch = Launch {
            kernel: k,
            warps: run.warps,
            stats_dev: run.stats_dev,
            profile: super::ProfileRegion::new(run.warps as usize, 0)?,
            setup: super::Ops::new(),
            readback_queued: false,
        };
        self.launch(&launch)?;
        self.wait(launch.warps, stop, Some((&mut steering, &k)))?;
        self.end_segment::<P, T>(launch, &steering, t0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kernel(grid: u32, per_sm: u32) -> Kernel {
        Kernel {
            func: null_mut(),
            grid,
            smem: 0,
            block: 32,
            workers_per_block: 1,
            per_sm,
            local_bytes: 0,
            clones: false,
        }
    }

    #[test]
    fn the_limit_becomes_blocks() {
        let k = kernel(132 * 16, 16);
        let limit = crate::SmLimit::new();
        let stop = Stop::new(&crate::RunOptions {
            sms: Some(limit.clone()),
            ..crate::RunOptions::default()
        });
        let (s, word) = Steering::at_start(&k, &stop);
        assert_eq!((s.wanted(&stop), word, s.leaving), (k.grid, 0, None));
        limit.set(Some(66));
        let (s, word) = Steering::at_start(&k, &stop);
        assert_eq!(
            (s.wanted(&stop), word, s.leaving),
            (66 * 16, 1 + 66 * 16, Some(66 * 16))
        );
        limit.set(Some(1000));
        assert_eq!(s.wanted(&stop), k.grid);
        limit.set(Some(0));
        assert_eq!(s.wanted(&stop), 16);
    }
}
