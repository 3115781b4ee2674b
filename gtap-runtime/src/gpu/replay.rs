//! A run's stream work: described as a list of operations, queued one call at a time or replayed
//! as a CUDA graph.
//!
//! A one-GPU run queues the same work on its stream every time: the setup's memsets and copies
//! from pinned staging (`launch.rs`, `Inner::prepare`), the kernel between its two timing
//! events, and the readback's copies into pinned memory. Issued one driver call at a time that
//! is about ten calls of a few microseconds of host time each. So the work is described first
//! ([`Ops`]), and a run whose list equals one captured before replays that capture's
//! executable graph with one `cuGraphLaunch` ([`Inner::launch_replayed`]); any other list is
//! captured (stream capture of the very calls [`issue`] makes), instantiated, kept, and
//! launched. Runs on several GPUs and steered runs (pause, SM limits) issue the same
//! operations one by one ([`Inner::queue_setup`], [`Inner::launch`],
//! [`Inner::queue_readback`]), and so does an engine whose driver refused a graph once (a
//! refused capture, instantiation or launch queues nothing, so the run goes on that way).
//!
//! Invariants:
//! - An [`Op`] holds everything a driver call of it would be given (addresses, sizes, values,
//!   the kernel and its launch shape): two equal lists queue the same work. What changes
//!   between runs (the control block's image, the root's arguments, the params) lives in the
//!   pinned memory the copies read when they execute, never in an operation, so a graph
//!   captured by one run is correct for every later run with the same list.
//! - A graph that names freed memory is never launched: the graphs are dropped
//!   ([`Graphs::clear`]) when the pools are freed, and before the next replay after a pinned
//!   region (the staging, the readback) grew, which is a new allocation of a new size; so an
//!   allocation that lands at a freed one's address is never taken for it.
//! - The kernel's timing events are recorded as graph nodes (`CU_EVENT_RECORD_EXTERNAL`), so
//!   the kernel time, the abort's wait for the start and the readback read them as before.
//! - Graphs belong to the engine's context: freed with it, leaked after it is lost.

use std::ffi::c_void;
use std::ptr::{addr_of_mut, null_mut};

use cudarc::driver::sys;
use gtap_device::gpu::layout::{GlobalQueueHeader, WarpStats};
use gtap_device::task::TaskFn;

use super::driver_result::{check, CuResult, OK};
use super::{readback, Inner, Launch};
use crate::error::{Error, Result};

/// One operation of a run's stream work.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Op {
    /// `cuMemsetD32Async(dst, value, words)`.
    Memset { dst: u64, value: u32, words: usize },
    /// `cuMemcpyHtoDAsync` from pinned memory.
    Upload {
        dst: u64,
        src: *const c_void,
        bytes: usize,
    },
    /// `cuMemcpyDtoHAsync` into pinned memory.
    Download {
        dst: *mut c_void,
        src: u64,
        bytes: usize,
    },
    /// The kernel, between the start and end events; its one argument is `params`.
    Kernel {
        func: sys::CUfunction,
        grid: u32,
        block: u32,
        smem: u32,
        params: u64,
        start: sys::CUevent,
        end: sys::CUevent,
    },
}

/// A run's operations, in stream order.
pub(super) type Ops = Vec<Op>;

/// Queues `op` on `s`. `capturing`: the stream is being captured, so the timing events are
/// recorded as graph nodes (external events), not as cross-stream dependencies.
///
/// # Safety
///
/// Every address of `op` is valid for what it names (device regions of those sizes, pinned
/// host memory that stays allocated until the stream passes the operation), and `func` is a
/// kernel whose one parameter is a device pointer.
pub(super) unsafe fn issue(op: &Op, s: sys::CUstream, capturing: bool) -> Result<()> {
    // SAFETY: forwarded from the caller.
    unsafe {
        match *op {
            Op::Memset { dst, value, words } => check(
                "cuMemsetD32Async",
                sys::cuMemsetD32Async(dst, value, words, s),
            ),
            Op::Upload { dst, src, bytes } => check(
                "cuMemcpyHtoDAsync",
                sys::cuMemcpyHtoDAsync_v2(dst, src, bytes, s),
            ),
            Op::Download { dst, src, bytes } => check(
                "cuMemcpyDtoHAsync",
                sys::cuMemcpyDtoHAsync_v2(dst, src, bytes, s),
            ),
            Op::Kernel {
                func,
                grid,
                block,
                smem,
                params,
                start,
                end,
            } => {
                let flags = if capturing {
                    sys::CUevent_record_flags::CU_EVENT_RECORD_EXTERNAL as u32
                } else {
                    sys::CUevent_record_flags::CU_EVENT_RECORD_DEFAULT as u32
                };
                check(
                    "cuEventRecordWithFlags",
                    sys::cuEventRecordWithFlags(start, s, flags),
                )?;
                let mut arg = params;
                let mut kargs = [(&raw mut arg).cast::<c_void>()];
                check(
                    "cuLaunchKernel",
                    sys::cuLaunchKernel(
                        func,
                        grid,
                        1,
                        1,
                        block,
                        1,
                        1,
                        smem,
                        s,
                        kargs.as_mut_ptr(),
                        null_mut(),
                    ),
                )?;
                check(
                    "cuEventRecordWithFlags",
                    sys::cuEventRecordWithFlags(end, s, flags),
                )
            }
        }
    }
}

/// An instantiated capture of one list of operations.
struct Captured {
    ops: Ops,
    graph: sys::CUgraph,
    exec: sys::CUgraphExec,
}

impl Captured {
    /// Destroys the graph and its executable (the context is bound and alive). Launches of it
    /// already queued run to completion (the driver frees it after them).
    fn destroy(self) {
        // SAFETY: handles this engine created, never launched again.
        unsafe {
            let _ = sys::cuGraphExecDestroy(self.exec);
            let _ = sys::cuGraphDestroy(self.graph);
        }
    }
}

/// The executable graphs of an engine, the most recently used first.
#[derive(Default)]
pub(super) struct Graphs {
    kept: Vec<Captured>,
    /// The sizes of the pinned regions the kept graphs name (staging, readback headers,
    /// readback statistics). A region only grows, by a new allocation: a size that changed
    /// means the graphs may name freed memory.
    regions: [usize; 3],
    /// The driver refused a graph (its capture, instantiation or launch): the engine issues
    /// its runs' operations one by one instead.
    pub(super) refused: bool,
}

impl Graphs {
    /// Graphs kept per engine: a program's runs, its runs after a dirty ring's reset, and a
    /// few programs taking turns.
    const KEEP: usize = 8;

    /// Destroys every kept graph (the context is bound and alive).
    pub(super) fn clear(&mut self) {
        self.kept.drain(..).for_each(Captured::destroy);
    }

    /// Forgets the graphs without destroying them (their context is lost).
    pub(super) fn leak(&mut self) {
        self.kept.clear();
    }

    /// Queues `ops` on `s`: replays the graph captured for an equal list, or captures one.
    /// `regions` are the current sizes of the pinned regions the operations name; when they
    /// changed, every kept graph is dropped first.
    ///
    /// # Safety
    ///
    /// As for [`issue`], for every operation of `ops`; `s` is not being captured, and no
    /// other thread queues work on it meanwhile.
    pub(super) unsafe fn queue(
        &mut self,
        ops: &[Op],
        regions: [usize; 3],
        s: sys::CUstream,
    ) -> Result<()> {
        if regions != self.regions {
            self.clear();
            self.regions = regions;
        }
        let exec = match self.kept.iter().position(|c| c.ops == ops) {
            Some(i) => {
                let c = self.kept.remove(i);
                let exec = c.exec;
                self.kept.insert(0, c);
                exec
            }
            // SAFETY: forwarded.
            None => unsafe { self.capture(ops, s)? },
        };
        // SAFETY: an instantiated graph of this context; the caller's contract covers what
        // its nodes read and write.
        check("cuGraphLaunch", unsafe { sys::cuGraphLaunch(exec, s) })
    }

    /// Captures `ops` as issued on `s`, instantiates the graph and keeps it (first).
    ///
    /// # Safety
    ///
    /// As for [`Graphs::queue`].
    unsafe fn capture(&mut self, ops: &[Op], s: sys::CUstream) -> Result<sys::CUgraphExec> {
        // Relaxed: the capture does not forbid other threads' driver calls (another engine,
        // a transfer) while it lasts.
        let mode = sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED;
        // SAFETY: `s` is a valid stream, not being captured.
        check("cuStreamBeginCapture", unsafe {
            sys::cuStreamBeginCapture_v2(s, mode)
        })?;
        let issued = ops
            .iter()
            // SAFETY: forwarded; the calls are recorded, not run.
            .try_for_each(|op| unsafe { issue(op, s, true) });
        let mut graph: sys::CUgraph = null_mut();
        // SAFETY: ends the capture begun above, whatever the calls in between returned.
        let ended = unsafe { sys::cuStreamEndCapture(s, &raw mut graph) };
        if let Err(e) = issued {
            destroy_graph(graph);
            return Err(e);
        }
        check("cuStreamEndCapture", ended)?;
        let mut exec: sys::CUgraphExec = null_mut();
        // SAFETY: a complete graph of this context.
        let made = unsafe { sys::cuGraphInstantiateWithFlags(&raw mut exec, graph, 0) };
        if made != OK {
            destroy_graph(graph);
            return check("cuGraphInstantiate", made).map(|()| null_mut());
        }
        if self.kept.len() == Self::KEEP {
            if let Some(oldest) = self.kept.pop() {
                oldest.destroy();
            }
        }
        self.kept.insert(
            0,
            Captured {
                ops: ops.to_vec(),
                graph,
                exec,
            },
        );
        Ok(exec)
    }
}

/// Destroys a graph a failed capture or instantiation left (null: none).
fn destroy_graph(graph: sys::CUgraph) {
    if !graph.is_null() {
        // SAFETY: a graph of this context that nothing else holds.
        let _: CuResult = unsafe { sys::cuGraphDestroy(graph) };
    }
}

impl Inner {
    /// Queues the prepared setup (`prepare`'s memsets and copies) on the run stream.
    pub(super) fn queue_setup(&mut self, l: &mut Launch) -> Result<()> {
        self.bind()?;
        let s = self.stream;
        // From the first operation on, copies may read the staging.
        self.setup_pending = true;
        for op in l.setup.drain(..) {
            // SAFETY: `prepare` made the operations from live regions of their sizes and
            // pinned staging that is not written again before the stream passes them.
            unsafe { issue(&op, s, false)? };
        }
        self.setup_queued();
        Ok(())
    }

    /// Launches the prepared kernel between the timing events (after its setup).
    pub(super) fn launch(&mut self, l: &Launch) -> Result<()> {
        self.bind()?;
        let op = self.kernel_op(l);
        self.launched();
        // SAFETY: the kernel's params were queued on this stream by the setup; the events are
        // this engine's.
        unsafe { issue(&op, self.stream, false) }
    }

    /// One GPU, not steered: the setup, the timed kernel and the readback queued as one
    /// replayed graph (`replay.rs`), one driver call where they took about ten.
    pub(super) fn launch_replayed<T: TaskFn>(&mut self, l: &mut Launch) -> Result<()> {
        self.bind()?;
        let mut ops = core::mem::take(&mut l.setup);
        ops.push(self.kernel_op(l));
        self.readback_ops::<T>(l, &mut ops)?;
        let regions = [
            self.setup.bytes(),
            self.readback.bytes(),
            self.readback_stats.bytes(),
        ];
        // From here on, copies may read the staging and the kernel may leave its rings dirty.
        self.setup_pending = true;
        self.launched();
        if !self.graphs.refused {
            // SAFETY: every operation names live regions of its sizes (`prepare`, `kernel_op`,
            // `readback_ops`), and a kept graph is replayed only for an equal list; the
            // regions' sizes change only when they are reallocated, and then the graphs naming
            // the old ones are dropped first. The stream is this engine's and not being
            // captured.
            match unsafe { self.graphs.queue(&ops, regions, self.stream) } {
                Ok(()) => ops.clear(),
                Err(e @ (Error::DeviceFault { .. } | Error::ContextLost)) => return Err(e),
                // A driver that refuses to capture, instantiate or launch the graph queued
                // nothing: this engine issues its runs' work call by call from now on.
                Err(_) => self.graphs.refused = true,
            }
        }
        for op in &ops {
            // SAFETY: as above.
            unsafe { issue(op, self.stream, false)? };
        }
        self.setup_queued();
        l.readback_queued = true;
        Ok(())
    }

    /// The kernel's launch, between the run's timing events.
    fn kernel_op(&self, l: &Launch) -> Op {
        let k = l.kernel;
        Op::Kernel {
            func: k.func,
            grid: k.grid,
            block: k.block,
            smem: k.smem,
            params: self.params,
            start: self.start,
            end: self.end,
        }
    }

    /// The setup is on the stream: the parks it reset are clean. (`setup_pending` was set
    /// before its first operation was queued.)
    fn setup_queued(&mut self) {
        if let Some(p) = self.pools.as_mut() {
            p.parks_dirty = false;
        }
    }

    /// The kernel is (about to be) on the stream: the rings it may leave entries in are dirty
    /// until `finish` sees them empty (marked before the launch is queued, so that a failure
    /// half-way leaves them marked: a needless reset costs a memset, a missed one a wrong run).
    fn launched(&mut self) {
        if let Some(p) = self.pools.as_mut() {
            // Until the run is known to have ended with them empty (`finish`).
            p.spill_dirty = p.wf;
            p.gq_dirty = p.wf;
            p.inbox_dirty = p.inbox != 0;
        }
    }

    /// Queues the copies of what the kernel leaves (the run block's headers and the root's
    /// result, the inbox header, the statistics) into pinned memory behind it on the run
    /// stream. A one-GPU run queues them right after its launch, so that they follow the
    /// kernel on the device while the host waits, instead of a round trip after it.
    pub(super) fn queue_readback<T: TaskFn>(&mut self, l: &mut Launch) -> Result<()> {
        if l.readback_queued {
            return Ok(());
        }
        self.bind()?;
        let mut ops = Ops::new();
        self.readback_ops::<T>(l, &mut ops)?;
        for op in &ops {
            // SAFETY: pinned regions of these sizes (`readback_ops`), read only after the
            // stream's synchronization in `finish`; device regions that hold what is copied.
            unsafe { issue(op, self.stream, false)? };
        }
        l.readback_queued = true;
        Ok(())
    }

    /// The readback's copies (see [`Inner::queue_readback`]), reserving their pinned regions.
    fn readback_ops<T: TaskFn>(&mut self, l: &Launch, ops: &mut Ops) -> Result<()> {
        let w = l.warps as usize;
        let hp = self.readback.headers()?;
        let sp = self.readback_stats.stats(w)?;
        let output = if self.gpu_index == 0 {
            size_of::<T::Output>()
        } else {
            0
        };
        // The run block is laid out as `Headers`, so its first `SETUP_BYTES + output` bytes are
        // the headers and the root's result.
        ops.push(Op::Download {
            dst: hp.cast(),
            src: self.run_block,
            bytes: readback::SETUP_BYTES + output,
        });
        if let Some(p) = self.pools.as_ref().filter(|p| p.inbox != 0) {
            // SAFETY: a field address within the headers' region (reserved above), nothing read.
            let inbox = unsafe { addr_of_mut!((*hp).inbox) };
            ops.push(Op::Download {
                dst: inbox.cast(),
                src: p.inbox,
                bytes: size_of::<GlobalQueueHeader>(),
            });
        }
        ops.push(Op::Download {
            dst: sp.cast(),
            src: l.stats_dev,
            bytes: w * size_of::<WarpStats>(),
        });
        Ok(())
    }
}
