//! The GPU backend: loads a program's PTX, sizes and launches the persistent kernel that
//! `gtap::kernel!` emits (`gtap_thread_worker_<Program>`), watches it, and turns what the
//! device reports into [`Error`]s.
//!
//! # Lifecycle of a run
//!
//! 1. The kernel for `P` is looked up once; its grid is the occupancy query's blocks per SM
//!    times the SM count (every block resident: a persistent grid that is not co-resident can
//!    deadlock, so a `Config::grid` above that is an error, never a hang).
//! 2. The pools (`gtap_device::gpu::layout`) are allocated once per shape (warps, slot size,
//!    queues) and reset with a few memsets on the run stream; the root slot (header and
//!    arguments) and the params are copied after them, then the kernel is launched between two
//!    timing events.
//! 3. The host polls the stream; every 10 ms it copies the per-warp progress counters on a
//!    second stream (the kernel is still running). No change for `Config::watchdog` sets the
//!    abort word the workers poll, and the run fails with [`Error::Hang`].
//! 4. After the kernel: the control block says whether the root finished or an error was
//!    recorded (the error record is in host-mapped memory, so it survives a trap). An illegal
//!    address (or a kernel that will not stop) loses the CUDA context, and with today's
//!    drivers the process's use of every GPU: that run fails with [`Error::DeviceFault`],
//!    later ones, and new runtimes, with [`Error::ContextLost`] (`contexts.rs`).
//!
//! All driver calls go through `cudarc::driver::sys` with the context bound to the calling
//! thread; `cudarc`'s `CudaContext` owns the primary context.
//!
//! # Layout
//!
//! A run, top down: [`GpuBackend::run`] (here) → `Inner::run` (`launch.rs`), which prepares
//! the kernel (`kernel.rs`), the pools (`pools.rs`), the params and the root slot, launches,
//! waits (`watch.rs`: the watchdog, stops and faults, the device's errors) and reads back the
//! result, the statistics and the profile (`profile_region.rs`, `readback.rs`). Here: the
//! types they share (`Inner`, the kernel's shape) and the runtime's creation and drop; the
//! pools' shapes are in `pools.rs`, what a driver call's result means in `driver_result.rs`,
//! the contexts a fault loses in `contexts.rs`. Several GPUs: `multi.rs`; pause, resume and
//! the SM limit: `elastic.rs`; data: `transfer.rs`, `staging.rs`, `pipeline.rs`; the register
//! cap: `regcap.rs`.

mod contexts;
mod driver_result;
mod elastic;
mod kernel;
mod launch;
mod multi;
mod pipeline;
mod pools;
mod profile_region;
mod readback;
mod regcap;
mod replay;
mod replicas;
mod staging;
mod transfer;
mod watch;

pub(crate) use elastic::Segment;
pub(crate) use replicas::Replica;
pub(crate) use transfer::DeviceBuffer;

use kernel::load_module;
use pools::{auto_tasks_per_block, dev_alloc, free_pools, gq_rings, imports_bytes, slot_bytes};
use profile_region::ProfileRegion;
use replay::{Op, Ops};

use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::mem::size_of;
use std::ptr::null_mut;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::probe;
use crate::profile::{Profile, WarpTrace};
use crate::stop::Stop;
use cudarc::driver::{sys, CudaContext};
use gtap_device::gpu::layout::{
    self, BatchRecord, Cell, Control, DequeHeader, ErrorRecord, GlobalQueueHeader, Header, Params,
    PeerInfo, SpillHeader, WarpStats, CELL_BASE, HEADER_BYTES, IMPORTS_PER_WARP, IMPORT_WARPS,
    LANE_FREE_CAP, MAX_INLINE_STEPS, NONE, PARK_WORDS,
};
use gtap_device::task::{Program, TaskFn};

use crate::{
    config::{Config, Scheduler, MAX_GPUS},
    error::{Error, Result},
    stats::{HostPhases, RunStats},
};

pub(crate) use driver_result::available;
use driver_result::{check, cudarc_error, driver, is_sticky, CuResult, OK};

/// A kernel of one program, with its launch shape.
#[derive(Clone, Copy)]
struct Kernel {
    func: sys::CUfunction,
    grid: u32,
    smem: u32,
    /// Threads per block.
    block: u32,
    /// Workers per block: warps (thread-level workers) or 1 (block-level workers).
    workers_per_block: u32,
    /// Blocks per SM (the occupancy query's): an SM's worth of the grid.
    per_sm: u32,
    /// Bytes of local memory a thread of the kernel uses for its own frame (its stack's
    /// start; sequential clones get the rest of `Config::stack_bytes`, `launch.rs`).
    local_bytes: u32,
    /// The kernel's lanes may run children as calls of their clones ([`Variant::Clones`]).
    clones: bool,
}

/// Which instantiation of a worker loop a run launches.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Variant {
    /// The work-stealing scheduler.
    Plain,
    /// The work-stealing scheduler with the batch profiler.
    Profiled,
    /// The global-queue ablation ([`Scheduler::GlobalQueue`]).
    GlobalQueue,
    /// The shared-deque ablation ([`Scheduler::SharedDeque`]).
    Shared,
    /// The shared-deque ablation with the batch profiler.
    SharedProfiled,
    /// The work-first scheduler with the multi-GPU channels (`gtap-device`'s `gpu/peer`): a
    /// kernel of its own, so that one-GPU kernels carry none of its code (its calls alone
    /// raised fib's registers from 106 to 164).
    Multi,
    /// The work-first scheduler whose lanes run children as calls of their sequential clones
    /// ([`Config::gpu_clones`], thread-level programs): a kernel of its own, since the call in
    /// its loop raised fib's registers from 128 to 242.
    Clones,
}

impl Variant {
    /// Runs that pause or follow an SM limit use [`Self::Plain`]: its warps can leave a run
    /// and rejoin it (`gtap-device`'s `park.rs`), and `check_steerable` admits only the
    /// default scheduler without the profiler.
    fn of(config: &Config, multi: bool) -> Self {
        if multi {
            Self::Multi
        } else if config.scheduler == Scheduler::GlobalQueue {
            Self::GlobalQueue
        } else if config.scheduler == Scheduler::SharedDeque {
            if config.profile_records > 0 {
                Self::SharedProfiled
            } else {
                Self::Shared
            }
        } else if config.profile_records > 0 {
            Self::Profiled
        } else if config.gpu_clones {
            Self::Clones
        } else {
            Self::Plain
        }
    }

    /// Whether the kernel records batches.
    fn profiled(self) -> bool {
        matches!(self, Self::Profiled | Self::SharedProfiled)
    }

    /// The entry's name prefix: `gtap_{thread,block}_worker{,_profiled,_gq,_shared,
    /// _shared_profiled,_multi}_`, or `gtap_thread_worker_clones_`.
    fn prefix(self, block_level: bool) -> String {
        let level = if block_level { "block" } else { "thread" };
        let suffix = match self {
            Self::Plain => "",
            Self::Profiled => "_profiled",
            Self::GlobalQueue => "_gq",
            Self::Shared => "_shared",
            Self::SharedProfiled => "_shared_profiled",
            Self::Multi => "_multi",
            Self::Clones => "_clones",
        };
        format!("gtap_{level}_worker{suffix}_")
    }
}

/// Which part of a run one GPU plays.
#[derive(Clone, Copy)]
struct Part {
    /// GPUs of the run.
    gpus: u32,
    /// This one's index (0 holds the root).
    gpu: u32,
    /// The task record size of a run on several GPUs, the same on each (couriers copy
    /// records between GPUs by it: `multi::shared_record_bytes`); 0 on one GPU, where the
    /// engine chooses.
    record_bytes: u32,
}

impl Part {
    /// A run on one GPU.
    const ONE: Self = Self {
        gpus: 1,
        gpu: 0,
        record_bytes: 0,
    };
}

/// A prepared (then launched) kernel of one GPU, until [`Inner::finish`].
struct Launch {
    kernel: Kernel,
    warps: u32,
    stats_dev: u64,
    profile: ProfileRegion,
    /// The setup's work, until it is queued (`Inner::queue_setup`, or replayed with the
    /// launch: `replay.rs`).
    setup: Ops,
    /// The readback's copies are queued behind the kernel (`Inner::queue_readback`).
    readback_queued: bool,
}

/// How a kernel ended after [`Inner::abort_and_wait`].
enum Stopped {
    /// It saw the abort word and exited.
    Exited,
    /// Its stream failed (a fault) while it stopped.
    Failed(CuResult),
    /// It did not exit within 5 s, or the abort could not be written (the context is
    /// poisoned).
    Stuck,
}

/// What one GPU's kernel left.
struct Finished<O> {
    /// The root's result (on the GPU that holds the root, when it finished).
    output: Option<O>,
    stats: RunStats,
    /// The control block as the kernel left it.
    control: Control,
}

use pools::{PoolShape, Pools, WF_BLOCK_QUEUE_ENTRIES, WF_INITIAL_SLOTS, WF_STACK_CAP};

/// The state of a runtime on one GPU (boxed in [`GpuBackend`]).
struct Inner {
    ctx: Arc<CudaContext>,
    config: Config,
    module: sys::CUmodule,
    /// The module's PTX, for the kernels recompiled with a register cap (`regcap.rs`).
    ptx: &'static str,
    /// Those recompiled modules, one per capped kernel.
    capped: Vec<sys::CUmodule>,
    stream: sys::CUstream,
    watch: sys::CUstream,
    start: sys::CUevent,
    end: sys::CUevent,
    sm_count: u32,
    /// Keyed by program and variant.
    kernels: HashMap<(&'static str, Variant), Kernel>,
    pools: Option<Pools>,
    /// Fixed-size regions: the params, and the run block: a [`readback::Headers`] that holds
    /// the control block, the work-first spill header, the queue headers and the root's
    /// result (4 KiB), so that a run's setup and readback each move them in one copy.
    params: u64,
    run_block: u64,
    /// The control block and the root's result, in the run block.
    control: u64,
    root_result: u64,
    /// The params as last copied to `params` (a run whose params are the same copies none).
    params_on_device: Option<Params>,
    /// Pinned memory a run's setup is staged in (`readback.rs`).
    setup: readback::Pinned,
    /// Copies from `setup` may still be queued: the next setup waits for the stream first.
    setup_pending: bool,
    /// The host-mapped error record and its device address.
    error_host: *mut ErrorRecord,
    error_dev: u64,
    /// Pinned host buffer for progress snapshots (grown on demand).
    progress_host: Vec<u32>,

    poisoned: bool,
    /// The CUDA device ordinal.
    ordinal: u32,
    /// This GPU's index in a multi-GPU run (0: the root's, and the one of a one-GPU run).
    gpu_index: u32,
    /// Partitions of this device that run at once ([`crate::Devices::Partitions`]; 1 otherwise):
    /// the grid is the occupancy query's divided by it, so that all are co-resident.
    share: u32,
    /// The peer table of a multi-GPU run (`MAX_GPUS` [`PeerInfo`]).
    peers: u64,
    /// `Params::replica_offset`: where this GPU's copy of a replicated table is, relative to
    /// the first GPU's (`replicas.rs`).
    replica_offset: u64,
    /// The params of the last prepared run (a resume and rejoining blocks copy them).
    run_params: Params,
    /// The paused run this runtime holds (`elastic.rs`); a new run abandons it.
    paused: Option<elastic::PausedRun>,
    /// Streams and params copies for kernels of blocks that rejoin a running run.
    rejoin: Vec<elastic::RejoinSlot>,
    /// Pinned memory the run's readback lands in (`readback.rs`): the headers and root
    /// result, and the per-warp statistics.
    readback: readback::Pinned,
    readback_stats: readback::Pinned,
    /// A one-GPU run's stream work as replayed graphs (`replay.rs`).
    graphs: replay::Graphs,
    /// This engine's use of the device's primary context (`contexts.rs`). Last: dropped after
    /// `ctx`, so that a lost context is reset once nothing of this engine holds it.
    context_use: contexts::Use,
}

// SAFETY: the raw handles are plain driver handles, valid from any thread once the context is
// bound (every method binds it first); the mapped record is only accessed by the thread that
// holds `&mut self` or `&self` during a call.
unsafe impl Send for Inner {}
// SAFETY: `&Inner` only reads immutable handles and flags (user data moves through
// `transfer::Transfers`, beside it); everything mutable (runs, pools, the mapped error record,
// the progress buffer) is reached only through `&mut self`.
unsafe impl Sync for Inner {}

const ROOT_RESULT_BYTES: usize = 4096;
/// The watcher's longest sleep between two looks at a run that may be cancelled (µs).
const STOP_POLL_US: u64 = 50;

impl Inner {
    fn new(
        config: &Config,
        ptx: &'static str,
        ordinal: u32,
        gpu_index: u32,
        share: u32,
    ) -> Result<Self> {
        if !available() {
            return Err(Error::NoGpu {
                reason: "no CUDA driver or no CUDA device".into(),
            });
        }
        if ptx.is_empty() {
            return Err(Error::NoGpu {
                reason: "the PTX module is empty".into(),
            });
        }
        let context_use = contexts::Use::enter(ordinal)?;
        let ctx = CudaContext::new(ordinal as usize)
            .map_err(|e| cudarc_error("creating the CUDA context", e))?;
        ctx.bind_to_thread()
            .map_err(|e| cudarc_error("binding the CUDA context", e))?;
        ctx.set_limit(
            sys::CUlimit::CU_LIMIT_STACK_SIZE,
            config.stack_bytes as usize,
        )
        .map_err(|e| cudarc_error("setting the stack size", e))?;
        let sm_count = ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(|e| cudarc_error("reading the SM count", e))? as u32;
        let module = load_module(ptx, config.max_registers)?;
        let mut me = Self {
            ctx,
            config: config.clone(),
            module,
            ptx,
            capped: Vec::new(),
            stream: null_mut(),
            watch: null_mut(),
            start: null_mut(),
            end: null_mut(),
            sm_count,
            kernels: HashMap::new(),
            pools: None,
            params: 0,
            run_block: 0,
            control: 0,
            root_result: 0,
            params_on_device: None,
            setup: readback::Pinned::default(),
            setup_pending: false,
            error_host: null_mut(),
            error_dev: 0,
            progress_host: Vec::new(),
            poisoned: false,
            ordinal,
            gpu_index,
            share,
            peers: 0,
            replica_offset: 0,
            run_params: Params::default(),
            paused: None,
            rejoin: Vec::new(),
            readback: readback::Pinned::default(),
            readback_stats: readback::Pinned::default(),
            graphs: replay::Graphs::default(),
            context_use,
        };
        let flags = sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32;
        // SAFETY: out-pointers to fields of `me`; the context is bound.
        unsafe {
            check(
                "cuStreamCreate",
                sys::cuStreamCreate(&raw mut me.stream, flags),
            )?;
            check(
                "cuStreamCreate",
                sys::cuStreamCreate(&raw mut me.watch, flags),
            )?;
            let ev = sys::CUevent_flags::CU_EVENT_DEFAULT as u32;
            check("cuEventCreate", sys::cuEventCreate(&raw mut me.start, ev))?;
            check("cuEventCreate", sys::cuEventCreate(&raw mut me.end, ev))?;
            let mut host: *mut c_void = null_mut();
            let f = sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_PORTABLE;
            check(
                "cuMemHostAlloc",
                sys::cuMemHostAlloc(&raw mut host, size_of::<ErrorRecord>(), f),
            )?;
            me.error_host = host.cast();
            me.error_host.write_volatile(ErrorRecord::default());
            check(
                "cuMemHostGetDevicePointer",
                sys::cuMemHostGetDevicePointer_v2(&raw mut me.error_dev, host, 0),
            )?;
        }
        me.params = dev_alloc(size_of::<Params>())?;
        me.run_block = dev_alloc(size_of::<readback::Headers>())?;
        me.control = me.run_block + core::mem::offset_of!(readback::Headers, control) as u64;
        me.root_result = me.run_block + core::mem::offset_of!(readback::Headers, root) as u64;
        me.peers = dev_alloc(MAX_GPUS * size_of::<PeerInfo>())?;
        Ok(me)
    }

    /// Whether the context is unusable: a fault this engine saw, or one another engine on the
    /// same device saw (`contexts.rs`).
    fn lost(&self) -> bool {
        self.poisoned || !self.context_use.current()
    }

    /// Marks the context lost after a fault or a kernel that would not stop, for this engine
    /// and every other on the device.
    fn poison(&mut self) {
        self.poisoned = true;
        self.context_use.lose();
    }

    fn bind(&self) -> Result<()> {
        self.ctx
            .bind_to_thread()
            .map_err(|e| cudarc_error("binding the CUDA context", e))
    }
}

impl Drop for Inner {
    fn drop(&mut self) {
        // After a fault the context is gone: every call would fail, and after its reset a
        // handle made in it is stale; leak instead (the reset reclaims it all).
        if self.lost() || self.bind().is_err() {
            self.graphs.leak();
            std::mem::forget(std::mem::take(&mut self.readback));
            std::mem::forget(std::mem::take(&mut self.readback_stats));
            std::mem::forget(std::mem::take(&mut self.setup));
            return;
        }
        self.graphs.clear();
        self.free_rejoins();
        if let Some(p) = self.pools.take() {
            free_pools(&p);
        }
        // SAFETY: handles created in `new` (null ones are skipped by the driver or here).
        unsafe {
            for d in [self.params, self.run_block, self.peers] {
                if d != 0 {
                    let _ = sys::cuMemFree_v2(d);
                }
            }
            if !self.error_host.is_null() {
                let _ = sys::cuMemFreeHost(self.error_host.cast());
            }
            for e in [self.start, self.end] {
                if !e.is_null() {
                    let _ = sys::cuEventDestroy_v2(e);
                }
            }
            for s in [self.stream, self.watch] {
                if !s.is_null() {
                    let _ = sys::cuStreamDestroy_v2(s);
                }
            }
            let _ = sys::cuModuleUnload(self.module);
            for &m in &self.capped {
                let _ = sys::cuModuleUnload(m);
            }
        }
    }
}

/// A runtime on one GPU, or on several (`Config::devices`).
pub(crate) struct GpuBackend {
    /// The first GPU: the root's, the buffers', the only one of a one-GPU runtime.
    inner: Box<Inner>,
    /// The other GPUs (or partitions) of a multi-GPU runtime.
    others: Vec<Inner>,
    /// User data's copies. Declared after `inner`, so dropped after it: it holds the context
    /// for the frees of its staging memory.
    transfers: transfer::Transfers,
    /// The address range of the tables every GPU holds a copy of (`Runtime::replicate`).
    replicas: Arc<replicas::ReplicaSpace>,
}

impl GpuBackend {
    pub(crate) fn new(config: &Config, ptx: &'static str) -> Result<Self> {
        let (ordinals, share) = multi::ordinals(&config.devices)?;
        let mut inner = Box::new(Inner::new(config, ptx, ordinals[0], 0, share)?);
        let mut others = Vec::new();
        for (i, &d) in ordinals.iter().enumerate().skip(1) {
            others.push(Inner::new(config, ptx, d, i as u32, share)?);
        }
        multi::enable_peer_access(&inner, &others)?;
        inner.bind()?;
        let transfers = transfer::Transfers::new(
            inner.ctx.clone(),
            inner.context_use.token(),
            config.transfer,
        )?;
        let devices: Vec<sys::CUdevice> = std::iter::once(&*inner)
            .chain(&others)
            .map(|i| i.ctx.cu_device())
            .collect();
        let replicas = Arc::new(replicas::ReplicaSpace::new(
            inner.ctx.clone(),
            inner.context_use.token(),
            &devices,
        )?);
        for i in std::iter::once(&mut *inner).chain(&mut others) {
            i.replica_offset = replicas.offset_of(i.ctx.cu_device());
        }
        Ok(Self {
            inner,
            others,
            transfers,
            replicas,
        })
    }

    pub(crate) fn run<P: Program, T: TaskFn>(
        &mut self,
        entry: &T,
        args: T::Args,
        stride: usize,
        stop: &Stop,
    ) -> Result<Segment<T::Output>> {
        if stop.steered() {
            self.check_steerable::<P>()?;
        }
        // Only thread-level programs spread over GPUs (`Devices`).
        if self.others.is_empty() || P::HAS_BLOCK {
            let r = self.inner.run::<P, T>(entry, args, stride, stop);
            return r.map(|seg| match seg {
                Segment::Done(o, mut st) => {
                    st.gpus = 1;
                    Segment::Done(o, st)
                }
                paused => paused,
            });
        }
        multi::run::<P, T>(&mut self.inner, &mut self.others, args, stride, stop)
            .map(|(o, st)| Segment::Done(o, st))
    }

    /// Free and total bytes of the first GPU's memory (the driver's count: every process's
    /// allocations, this one's pools and buffers included).
    pub(crate) fn memory(&self) -> Result<(usize, usize)> {
        if self.inner.lost() {
            return Err(Error::ContextLost);
        }
        self.inner.bind()?;
        let (mut free, mut total) = (0usize, 0usize);
        // SAFETY: out-pointers; the context is bound.
        check("cuMemGetInfo", unsafe {
            sys::cuMemGetInfo_v2(&raw mut free, &raw mut total)
        })?;
        Ok((free, total))
    }

    /// Launches the paused run of this runtime again (`elastic.rs`).
    pub(crate) fn resume<P: Program, T: TaskFn>(
        &mut self,
        stop: &Stop,
    ) -> Result<Segment<T::Output>> {
        self.inner.resume::<P, T>(stop)
    }

    /// Whether runs of `P` can pause and follow an SM limit: thread-level programs, the
    /// default scheduler, one GPU, no profiler.
    fn check_steerable<P: Program>(&self) -> Result<()> {
        let what = "RunOptions::pause and RunOptions::sms";
        let config = &self.inner.config;
        let reason = if P::HAS_BLOCK {
            "the program has a block-level kind, and only thread-level workers leave and rejoin a run; run it without pause or SM limit"
        } else if !self.others.is_empty() {
            "the runtime spans several GPUs (Config::devices); use Devices::One"
        } else if config.scheduler != Scheduler::WorkFirst {
            "the ablation schedulers cannot leave a run; use Scheduler::WorkFirst"
        } else if config.profile_records > 0 {
            "the profiled kernel cannot leave a run; set Config::profile_records = 0"
        } else {
            return Ok(());
        };
        Err(Error::Unsupported { what, reason })
    }
}

/// Copies one `T` to device address `dst`, ordered on `s`.
///
/// # Safety
///
/// `dst` holds a `T`.
unsafe fn htod<T: Copy>(dst: u64, v: &T, s: sys::CUstream) -> Result<()> {
    // SAFETY: the caller guarantees the destination; `v` is valid for `size_of::<T>()` bytes.
    check("cuMemcpyHtoDAsync", unsafe {
        sys::cuMemcpyHtoDAsync_v2(dst, (v as *const T).cast(), size_of::<T>(), s)
    })
}
