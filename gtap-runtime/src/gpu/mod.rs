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
//!    recorded (the error record is in host-mapped memory, so it survives a trap). A trap or
//!    an illegal address loses the CUDA context: that run fails with [`Error::TaskPanicked`]
//!    or [`Error::DeviceFault`], later ones with [`Error::ContextLost`].
//!
//! All driver calls go through `cudarc::driver::sys` with the context bound to the calling
//! thread; `cudarc`'s `CudaContext` owns the primary context.

mod elastic;
mod multi;
mod pipeline;
mod regcap;
mod staging;
mod transfer;

pub(crate) use elastic::Segment;
pub(crate) use transfer::DeviceBuffer;

use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::mem::{size_of, MaybeUninit};
use std::ptr::null_mut;
use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::probe;
use crate::profile::{Profile, WarpTrace};
use crate::stop::Stop;
use cudarc::driver::{sys, CudaContext};
use gtap_device::gpu::layout::{
    self, BatchRecord, Control, DequeHeader, ErrorRecord, GlobalQueueHeader, Header, Params,
    PeerInfo, SpillHeader, WarpStats, HEADER_BYTES, IMPORTS_PER_WARP, IMPORT_BASE, IMPORT_WARPS,
    LANE_FREE_CAP, MAX_INLINE_STEPS, NONE, PARK_WORDS,
};
use gtap_device::task::{Program, TaskFn};

use crate::{
    config::{Config, Scheduler, MAX_GPUS},
    error::{Error, Result},
    stats::RunStats,
};

type CuResult = sys::CUresult;
const OK: CuResult = CuResult::CUDA_SUCCESS;

fn driver(what: &str, r: CuResult) -> Error {
    Error::Driver(format!("{what} failed: {r:?}"))
}

fn check(what: &str, r: CuResult) -> Result<()> {
    if r == OK {
        Ok(())
    } else {
        Err(driver(what, r))
    }
}

/// Whether a CUDA driver is present and a device exists; never panics.
pub(crate) fn available() -> bool {
    // SAFETY: `is_culib_present` only tries to load the library; the other calls run only when
    // it is there, so cudarc's loader does not panic.
    unsafe {
        if !sys::is_culib_present() {
            return false;
        }
        if sys::cuInit(0) != OK {
            return false;
        }
        let mut n = 0;
        sys::cuDeviceGetCount(&raw mut n) == OK && n > 0
    }
}

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
        } else {
            Self::Plain
        }
    }

    /// Whether the kernel records batches.
    fn profiled(self) -> bool {
        matches!(self, Self::Profiled | Self::SharedProfiled)
    }

    /// The entry's name prefix: `gtap_{thread,block}_worker{,_profiled,_gq,_shared,
    /// _shared_profiled}_`.
    fn prefix(self, block_level: bool) -> String {
        let level = if block_level { "block" } else { "thread" };
        let suffix = match self {
            Self::Plain => "",
            Self::Profiled => "_profiled",
            Self::GlobalQueue => "_gq",
            Self::Shared => "_shared",
            Self::SharedProfiled => "_shared_profiled",
            Self::Multi => "_multi",
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
}

impl Part {
    /// A run on one GPU.
    const ONE: Self = Self { gpus: 1, gpu: 0 };
}

/// A prepared (then launched) kernel of one GPU, until [`Inner::finish`].
struct Launch {
    kernel: Kernel,
    warps: u32,
    stats_dev: u64,
    profile: ProfileRegion,
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

/// Device regions of one pool shape (see `layout.rs`).
/// The shape of the pools a run needs.
#[derive(Clone, Copy)]
struct PoolShape {
    /// Workers: warps, or blocks for block-level programs (a deque each).
    workers: u32,
    /// Pools: one per worker, or (work first) one per warp, block-level workers' warps
    /// included.
    pool_warps: u32,
    /// Task records per pool (work first: the initial fresh range of each).
    n: u32,
    queues: u32,
    /// Entries of each deque (rounded up to a power of two, at least 64).
    queue_entries: u32,
    wf: bool,
    /// A multi-GPU run: the completion inbox and the import table too.
    multi: bool,
}

impl PoolShape {
    /// The shared-deque and global-queue pools: `n` records per worker.
    fn per_worker(workers: u32, n: u32, queues: u32, queue_entries: u32) -> Self {
        Self {
            workers,
            pool_warps: workers,
            n,
            queues,
            queue_entries,
            wf: false,
            multi: false,
        }
    }
}

struct Pools {
    warps: u32,
    /// Pools (see [`PoolShape::pool_warps`]).
    pool_warps: u32,
    slot_bytes: u32,
    queues: u32,
    n: u32,
    /// Global-queue kernel: the queues' headers and rings (0 when not allocated) and the
    /// rings' capacity.
    gq_headers: u64,
    gq_rings: u64,
    gq_cap: u32,
    /// One scratch slot per worker (block-level workers; see `layout::Params::scratch`).
    scratch: u64,
    ring_cap: u32,
    queue_cap: u32,
    slots: u64,
    free_rings: u64,
    free_pos: u64,
    deques: u64,
    deque_rings: u64,
    progress: u64,
    stats: u64,
    /// Work-first pools (0 when not allocated): private free stacks, the spill header and
    /// ring, and the sizes.
    wf: bool,
    free_stacks: u64,
    lane_frees: u64,
    spill: u64,
    spill_ring: u64,
    spill_cap: u32,
    total_slots: u32,
    /// The spill ring may hold entries of the last run (zeroed before the next). Set at
    /// every launch and cleared only when the run ended with the ring empty, so a run that
    /// stopped early (a hang, a fault, an error) leaves it to be zeroed.
    spill_dirty: bool,
    /// The same for the global (ablation) or overflow (work first) queues' rings.
    gq_dirty: bool,
    /// Multi-GPU runs (0 otherwise): the completion inbox (a [`GlobalQueueHeader`], then
    /// `inbox_cap` `u32`), its capacity (every slot), and whether a run left entries in it.
    inbox: u64,
    inbox_cap: u32,
    inbox_dirty: bool,
    /// Multi-GPU runs: the import table (`import_entries` `u64`, zeroed every run).
    imports: u64,
    import_entries: u32,
    /// Work first, thread-level: the park records (`layout::PARK_WORDS` per warp), and
    /// whether a run may have left flags set in them (zeroed before the next).
    parks: u64,
    parks_dirty: bool,
}

/// Work-first pools: slots each warp starts with, and the arena chunk it takes when out.
const WF_INITIAL_SLOTS: u32 = 256;
/// Work first, block-level workers: the default entries of each block's deques (the shared
/// deque's largest pool). A block's private part grows along its depth-first walk (a BFS of a
/// 2048 x 2048 grid on blocks of 128 threads outgrows even 65536: `QueueOverflow`); block-level
/// programs do not spill to the overflow queues (`layout::Params::overflow_spills`).
const WF_BLOCK_QUEUE_ENTRIES: u32 = 16384;
/// Work-first pools: the capacity of a warp's private free stack.
const WF_STACK_CAP: u32 = 4096;
// The lanes' surplus of one batch fits in half a stack (`pool.rs`, `drain_lane_frees`).
const _: () = assert!(32 * MAX_INLINE_STEPS <= WF_STACK_CAP / 2);
/// Work-first pools: the default share of free device memory, and its cap.
const WF_DEFAULT_POOL_CAP: usize = 8 << 30;

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
    /// Fixed-size regions: params, control, root result (4 KiB).
    params: u64,
    control: u64,
    root_result: u64,
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
    /// The params of the last prepared run (a resume and rejoining blocks copy them).
    run_params: Params,
    /// The paused run this runtime holds (`elastic.rs`); a new run abandons it.
    paused: Option<elastic::PausedRun>,
    /// Streams and params copies for kernels of blocks that rejoin a running run.
    rejoin: Vec<elastic::RejoinSlot>,
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
        let ctx = CudaContext::new(ordinal as usize)
            .map_err(|e| Error::Driver(format!("creating the CUDA context failed: {e:?}")))?;
        ctx.bind_to_thread()
            .map_err(|e| Error::Driver(format!("{e:?}")))?;
        ctx.set_limit(
            sys::CUlimit::CU_LIMIT_STACK_SIZE,
            config.stack_bytes as usize,
        )
        .map_err(|e| Error::Driver(format!("setting the stack size failed: {e:?}")))?;
        let sm_count = ctx
            .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
            .map_err(|e| Error::Driver(format!("{e:?}")))? as u32;
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
            control: 0,
            root_result: 0,
            error_host: null_mut(),
            error_dev: 0,
            progress_host: Vec::new(),
            poisoned: false,
            ordinal,
            gpu_index,
            share,
            peers: 0,
            run_params: Params::default(),
            paused: None,
            rejoin: Vec::new(),
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
        me.control = dev_alloc(size_of::<Control>())?;
        me.root_result = dev_alloc(ROOT_RESULT_BYTES)?;
        me.peers = dev_alloc(MAX_GPUS * size_of::<PeerInfo>())?;
        Ok(me)
    }

    fn bind(&self) -> Result<()> {
        self.ctx
            .bind_to_thread()
            .map_err(|e| Error::Driver(format!("binding the CUDA context failed: {e:?}")))
    }

    /// The kernel of program `P`, sized on first use.
    fn kernel<P: Program>(&mut self, multi: bool) -> Result<Kernel> {
        let program = core::any::type_name::<P>();
        let variant = Variant::of(&self.config, multi);
        let profiled = variant.profiled();
        if let Some(k) = self.kernels.get(&(program, variant)) {
            return Ok(*k);
        }
        let short = program.rsplit("::").next().unwrap_or(program);
        let name = format!("{}{short}", variant.prefix(P::HAS_BLOCK));
        let cname =
            CString::new(name.clone()).map_err(|_| Error::Driver("bad kernel name".into()))?;
        let mut func: sys::CUfunction = null_mut();
        // SAFETY: valid module and out-pointer.
        let r = unsafe { sys::cuModuleGetFunction(&raw mut func, self.module, cname.as_ptr()) };
        if r != OK {
            return Err(Error::NoGpu {
                reason: format!("the PTX module has no kernel `{name}`: add `gtap::kernel!({short});` to the device crate"),
            });
        }
        if self.config.max_registers.is_none() {
            func = self.capped_if_heavy(func, &name, &cname)?;
        }
        let (block, smem, workers_per_block) = if P::HAS_BLOCK {
            let profile = if profiled {
                layout::PROFILE_SMEM_BYTES
            } else {
                0
            };
            (
                self.config.block_threads,
                layout::BLOCK_SMEM_BYTES + profile,
                1,
            )
        } else {
            let block = self.config.block;
            let smem = (block / 32) * layout::smem_per_warp_of(self.config.queues, profiled);
            (block, smem, block / 32)
        };
        let mut per_sm = 0;
        // SAFETY: valid function handle and out-pointer.
        check("cuOccupancyMaxActiveBlocksPerMultiprocessor", unsafe {
            sys::cuOccupancyMaxActiveBlocksPerMultiprocessor(
                &raw mut per_sm,
                func,
                block as i32,
                smem as usize,
            )
        })?;
        // Partitions of one device share its SMs: each gets its part of the resident grid.
        let sms = self
            .config
            .sms
            .map_or(self.sm_count, |s| s.min(self.sm_count));
        let max_grid = per_sm.max(0) as u32 * sms / self.share;
        if max_grid == 0 {
            return Err(Error::InvalidConfig {
                field: "block",
                value: block.to_string(),
                expected:
                    "a block size the kernel can launch with (its registers per thread limit it)",
            });
        }
        let grid = match self.config.grid {
            None => max_grid,
            Some(g) if g <= max_grid => g,
            Some(g) => {
                return Err(Error::InvalidConfig {
                    field: "grid",
                    value: format!("Some({g}) (only {max_grid} blocks of {block} threads fit on the device at once)"),
                    expected: "a grid whose blocks are all co-resident; None sizes it from the occupancy query",
                })
            }
        };
        let k = Kernel {
            func,
            grid,
            smem,
            block,
            workers_per_block,
            per_sm: per_sm.max(1) as u32,
        };
        self.kernels.insert((program, variant), k);
        Ok(k)
    }

    /// `func` (the kernel `name` of the module), or, when it needs more than
    /// [`regcap::AUTO_REGISTER_CAP`] registers per thread, the same kernel compiled again
    /// with that cap, from a module of that one kernel (`regcap.rs`).
    fn capped_if_heavy(
        &mut self,
        func: sys::CUfunction,
        name: &str,
        cname: &CString,
    ) -> Result<sys::CUfunction> {
        let mut regs = 0i32;
        // SAFETY: a valid function handle and out-pointer.
        check("cuFuncGetAttribute", unsafe {
            sys::cuFuncGetAttribute(
                &raw mut regs,
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_NUM_REGS,
                func,
            )
        })?;
        if regs.max(0) as u32 <= regcap::AUTO_REGISTER_CAP {
            return Ok(func);
        }
        let Some(ptx) = regcap::only_entry(self.ptx, name)
            .and_then(|one| regcap::with_maxnreg(&one, name, regcap::AUTO_REGISTER_CAP))
        else {
            return Ok(func);
        };
        let module = load_module(&ptx, None)?;
        self.capped.push(module);
        let mut capped: sys::CUfunction = null_mut();
        // SAFETY: valid module and out-pointer.
        check("cuModuleGetFunction", unsafe {
            sys::cuModuleGetFunction(&raw mut capped, module, cname.as_ptr())
        })?;
        Ok(capped)
    }

    /// The pools for `warps` warps and frames of `stride` bytes, reusing the last ones when
    /// the shape is the same.
    /// Work first: the bytes of task records all pools together may hold
    /// ([`Config::gpu_pool_bytes`], or a quarter of the free device memory up to 8 GiB).
    fn wf_pool_bytes(&self) -> Result<usize> {
        Ok(match self.config.gpu_pool_bytes {
            Some(b) => b,
            None => {
                let (mut free, mut total) = (0usize, 0usize);
                // SAFETY: out-pointers; the context is bound by the caller.
                check("cuMemGetInfo", unsafe {
                    sys::cuMemGetInfo_v2(&raw mut free, &raw mut total)
                })?;
                (free / 4).min(WF_DEFAULT_POOL_CAP)
            }
        })
    }

    fn pools(&mut self, stride: usize, shape: PoolShape) -> Result<()> {
        let PoolShape {
            workers: warps,
            pool_warps,
            n,
            queues,
            queue_entries,
            wf,
            multi,
        } = shape;
        let slot_bytes = u32::try_from(slot_bytes(stride)).map_err(|_| Error::InvalidConfig {
                field: "block_threads",
                value: self.config.block_threads.to_string(),
                expected: "fewer threads per block: a joining block-level task's record (one frame per thread) exceeds 4 GiB",
            })?;
        let global = self.config.scheduler == Scheduler::GlobalQueue;
        if let Some(p) = &self.pools {
            if p.warps == warps
                && p.pool_warps == pool_warps
                && p.queue_cap == queue_entries.next_power_of_two().max(64)
                && p.slot_bytes == slot_bytes
                && p.queues == queues
                && p.n == n
                && (p.gq_rings != 0) == (global || wf)
                && p.wf == wf
                && (p.inbox != 0) == multi
            {
                return Ok(());
            }
        }
        if let Some(old) = self.pools.take() {
            free_pools(&old);
        }
        let ring_cap = n.next_power_of_two();
        let queue_cap = queue_entries.next_power_of_two().max(64);
        // Work-first: every slot the memory budget holds (the initial ones, the root's, the
        // arena).
        let total_slots = if wf {
            let budget = self.wf_pool_bytes()?;
            // A multi-GPU run's export queues and inbox take one more entry per record each.
            let rings = gq_rings(queues, multi) as usize + usize::from(multi);
            let slots = wf_slots(budget, slot_bytes as usize, rings).min(IMPORT_BASE as usize - 1);
            let needed = pool_warps as usize * n as usize + 1 + 64 * pool_warps as usize;
            if slots < needed {
                return Err(Error::InvalidConfig {
                    field: "gpu_pool_bytes",
                    value: format!("{budget} bytes ({slots} task records of {slot_bytes} bytes)"),
                    expected:
                        "room for every warp's initial task records and 64 more per warp (raise it)",
                });
            }
            slots as u32
        } else {
            u32::try_from(warps as usize * n as usize + 1).map_err(|_| Error::InvalidConfig {
                field: "tasks_per_warp",
                value: n.to_string(),
                expected: "at most 2^32 - 1 task records in all workers together",
            })?
        };
        let w = warps as usize;
        let mut p = Pools {
            warps,
            pool_warps,
            slot_bytes,
            queues,
            n,
            gq_headers: 0,
            gq_rings: 0,
            // Every slot (and the root's) fits at once: a push never finds the ring full (the
            // global queues of the ablation, the overflow queues of work first).
            gq_cap: (if wf {
                total_slots as usize
            } else {
                warps as usize * n as usize + 1
            })
            .next_power_of_two()
            .try_into()
            .map_err(|_| Error::InvalidConfig {
                field: "tasks_per_warp",
                value: n.to_string(),
                expected: "at most 2^31 task records in all workers together",
            })?,
            scratch: 0,
            ring_cap,
            queue_cap,
            slots: 0,
            free_rings: 0,
            free_pos: 0,
            deques: 0,
            deque_rings: 0,
            progress: 0,
            stats: 0,
            wf,
            free_stacks: 0,
            lane_frees: 0,
            spill: 0,
            spill_ring: 0,
            spill_cap: 0,
            total_slots,
            spill_dirty: false,
            gq_dirty: false,
            inbox: 0,
            inbox_cap: 0,
            inbox_dirty: false,
            imports: 0,
            import_entries: 0,
            parks: 0,
            parks_dirty: false,
        };
        let r = (|| -> Result<()> {
            p.slots = dev_alloc(total_slots as usize * slot_bytes as usize)?;
            if wf {
                p.spill_cap = total_slots.next_power_of_two();
                let pw = pool_warps as usize;
                p.free_stacks = dev_alloc(pw * WF_STACK_CAP as usize * 4)?;
                p.lane_frees = dev_alloc(pw * 32 * LANE_FREE_CAP as usize * 4)?;
                p.spill = dev_alloc(size_of::<SpillHeader>())?;
                p.parks = dev_alloc(pw * PARK_WORDS as usize * 4)?;
                // SAFETY: the records hold pw * PARK_WORDS u32; no flag is set.
                check("cuMemsetD32", unsafe {
                    sys::cuMemsetD32_v2(p.parks, 0, pw * PARK_WORDS as usize)
                })?;
                p.spill_ring = dev_alloc(p.spill_cap as usize * 4)?;
                // Zeroed once; takers zero what they take, the host what a run left.
                // SAFETY: the ring holds spill_cap u32.
                check("cuMemsetD32", unsafe {
                    sys::cuMemsetD32_v2(p.spill_ring, 0, p.spill_cap as usize)
                })?;
            } else {
                p.free_rings = dev_alloc(w * ring_cap as usize * 4)?;
                p.free_pos = dev_alloc(w * 4)?;
            }
            p.deques = dev_alloc(w * queues as usize * size_of::<DequeHeader>())?;
            p.deque_rings = dev_alloc(w * queues as usize * queue_cap as usize * 4)?;
            p.progress = dev_alloc(w * 4)?;
            p.stats = dev_alloc(w * size_of::<WarpStats>())?;
            p.scratch = dev_alloc(w * slot_bytes as usize)?;
            if multi {
                p.inbox_cap = total_slots.next_power_of_two();
                p.inbox = dev_alloc(size_of::<GlobalQueueHeader>() + p.inbox_cap as usize * 4)?;
                p.import_entries = IMPORTS_PER_WARP * warps.min(IMPORT_WARPS);
                p.imports = dev_alloc(imports_bytes(p.import_entries))?;
                // Dirty until the first run's reset zeroes it.
                p.inbox_dirty = true;
            }
            if global || wf {
                let rings = gq_rings(queues, multi) as usize;
                p.gq_headers = dev_alloc(rings * size_of::<GlobalQueueHeader>())?;
                p.gq_rings = dev_alloc(rings * p.gq_cap as usize * 4)?;
                // Zeroed once (an entry is 0 until a pusher writes it); claimers zero what
                // they take, the host what a run left (`gq_dirty`).
                // SAFETY: the rings hold `rings * gq_cap` u32.
                check("cuMemsetD32", unsafe {
                    sys::cuMemsetD32_v2(p.gq_rings, 0, rings * p.gq_cap as usize)
                })?;
            }
            Ok(())
        })();
        if let Err(e) = r {
            free_pools(&p);
            return Err(e);
        }
        self.pools = Some(p);
        Ok(())
    }

    fn run<P: Program, T: TaskFn>(
        &mut self,
        _entry: &T,
        args: T::Args,
        stride: usize,
        stop: &Stop,
    ) -> Result<Segment<T::Output>> {
        let t0 = Instant::now();
        let launch = self.prepare::<P, T>(args, stride, Part::ONE)?;
        if let Some(reason) = stop.requested() {
            // Not launched: the queued setup only resets what the next run resets again.
            return Err(stop.error(reason));
        }
        if stop.steered() {
            // Pause or SM limit: the blocks above the limit leave at once (`elastic.rs`).
            let k = launch.kernel;
            let (mut steering, word) = elastic::Steering::at_start(&k, stop);
            if word != 0 {
                self.queue_resize(word)?;
            }
            if let Some(p) = self.pools.as_mut() {
                p.parks_dirty = true;
            }
            self.launch(&launch)?;
            self.wait(launch.warps, stop, Some((&mut steering, &k)))?;
            return self.end_segment::<P, T>(launch, &steering, t0);
        }
        self.launch(&launch)?;
        self.wait(launch.warps, stop, None)?;
        let end = self.finish::<P, T>(launch)?;
        let mut stats = end.stats;
        stats.elapsed = t0.elapsed();
        match end.output {
            Some(out) => Ok(Segment::Done(out, stats)),
            None => Err(Error::Protocol {
                task: T::NAME,
                detail: "the GPU workers exited before the root task finished",
            }),
        }
    }

    /// Everything of a run up to the launch: the kernel, the pools, the params and control
    /// block, the root's slot (on GPU 0 of the run), queued on the run stream.
    fn prepare<P: Program, T: TaskFn>(
        &mut self,
        args: T::Args,
        stride: usize,
        part: Part,
    ) -> Result<Launch> {
        if self.poisoned {
            return Err(Error::ContextLost);
        }
        self.bind()?;
        // A new run abandons a paused one; blocks that rejoined the last run have exited
        // (it ended), but their streams are synchronized before anything is reset.
        self.paused = None;
        self.wait_rejoins()?;
        if size_of::<T::Args>() > stride || size_of::<T::Output>() > ROOT_RESULT_BYTES {
            return Err(Error::Protocol {
                task: T::NAME,
                detail: "root arguments or result larger than the frame",
            });
        }
        let k = self.kernel::<P>(part.gpus > 1)?;
        let warps = k.grid * k.workers_per_block;
        if part.gpus > 1 && warps < 2 {
            // The last warp of each GPU of a multi-GPU run is its courier and runs no tasks.
            return Err(Error::InvalidConfig {
                field: "grid",
                value: format!("{warps} warp on GPU {} of a multi-GPU run", part.gpu),
                expected: "at least 2 warps on each GPU (one is the GPU's courier): a larger grid, or fewer partitions",
            });
        }
        // Work-first pools (one per warp, block-level workers' warps included) under the
        // default scheduler.
        let wf = self.config.scheduler == Scheduler::WorkFirst;
        let (stride, block_frame_stride, shape) = if P::HAS_BLOCK {
            let (shared, per_thread) = probe::block_strides::<P>(self.config.task_data_limit)?;
            let frames = shared.max(per_thread * k.block as usize);
            if wf {
                // Each warp of a block has a pool; each block deques of `tasks_per_block`
                // entries (`WF_BLOCK_QUEUE_ENTRIES` by default).
                let entries = self
                    .config
                    .tasks_per_block
                    .unwrap_or(WF_BLOCK_QUEUE_ENTRIES);
                let pool_warps = warps * (k.block / 32);
                // A joining block-level kind's record holds a frame per thread: the fresh
                // range each warp starts with takes at most half of the task memory (from
                // WF_INITIAL_SLOTS down to 16 records).
                let slot_bytes = slot_bytes(frames);
                let slots = self.wf_pool_bytes()? / slot_bytes;
                let n = (slots / (2 * pool_warps as usize)).clamp(16, WF_INITIAL_SLOTS as usize);
                let shape = PoolShape {
                    workers: warps,
                    pool_warps,
                    n: n as u32,
                    queues: 2,
                    queue_entries: entries,
                    wf,
                    multi: false,
                };
                (frames, per_thread, shape)
            } else {
                let n = match self.config.tasks_per_block {
                    Some(n) => n,
                    // The pools of the last run when their shape fits (the free memory the
                    // sizing sees does not count them).
                    None => match &self.pools {
                        Some(p)
                            if p.warps == warps
                                && p.queues == 2
                                && p.slot_bytes as usize == slot_bytes(frames) =>
                        {
                            p.n
                        }
                        _ => auto_tasks_per_block(warps, frames)?,
                    },
                };
                (frames, per_thread, PoolShape::per_worker(warps, n, 2, n))
            }
        } else if wf {
            let shape = PoolShape {
                workers: warps,
                pool_warps: warps,
                n: WF_INITIAL_SLOTS,
                queues: self.config.queues,
                queue_entries: self.config.tasks_per_warp,
                wf,
                multi: part.gpus > 1,
            };
            (stride, 0, shape)
        } else {
            let n = self.config.tasks_per_warp;
            (
                stride,
                0,
                PoolShape::per_worker(warps, n, self.config.queues, n),
            )
        };
        self.pools(stride, shape)?;
        let pools = self.pools.as_ref().ok_or(Error::Protocol {
            task: T::NAME,
            detail: "no pools",
        })?;
        let w = warps as usize;
        let root_slot = pools.pool_warps * pools.n;
        let stats_dev = pools.stats;
        let profile = ProfileRegion::new(w, self.config.profile_records)?;
        let params = Params {
            slots: pools.slots,
            slot_bytes: pools.slot_bytes,
            tasks_per_warp: pools.n,
            free_rings: pools.free_rings,
            free_pos: pools.free_pos,
            ring_cap: pools.ring_cap,
            queues: pools.queues,
            deques: pools.deques,
            deque_rings: pools.deque_rings,
            queue_cap: pools.queue_cap,
            num_warps: warps,
            progress: pools.progress,
            stats: pools.stats,
            control: self.control,
            error: self.error_dev,
            root_slot,
            max_children: self.config.max_children,
            profile: profile.records,
            profile_counts: profile.counts,
            profile_cap: self.config.profile_records,
            single_claims: u32::from(!self.config.batched_claims),
            block_frame_stride: block_frame_stride as u32,
            gq_cap: pools.gq_cap,
            scratch: pools.scratch,
            gq_headers: pools.gq_headers,
            gq_rings: pools.gq_rings,
            free_stacks: pools.free_stacks,
            spill: pools.spill,
            spill_ring: pools.spill_ring,
            stack_cap: WF_STACK_CAP,
            spill_cap: pools.spill_cap,
            total_slots: pools.total_slots,
            chunk: pools.n,
            release_below: self.config.release_below,
            release_other_below: self.config.release_other_below,
            release_size: layout::release_size(
                self.config.release_shift,
                self.config.release_all_below,
            ),
            inline_steps: self.config.inline_steps,
            inline_last_child: u32::from(self.config.inline_last_child),
            idle_max_ns: self.config.idle_max_ns,
            steal_tries: self.config.steal_tries,
            lane_frees: pools.lane_frees,
            // Thread-level programs only (see `Params::overflow_spills`).
            overflow_spills: u32::from(!P::HAS_BLOCK),
            gpus: part.gpus,
            gpu: part.gpu,
            peers: self.peers,
            imports: pools.imports,
            parks: pools.parks,
            block_base: 0,
            resume: 0,
            run: self.params,
        };
        self.run_params = params;
        let control = Control {
            live: 1,
            ..Control::default()
        };
        // The root slot: header, then the arguments at the frame's offset 0.
        let mut root = vec![0u8; pools.slot_bytes as usize];
        let header = Header {
            kind: T::ID,
            parent: NONE,
            result_dst: self.root_result,
            ..Header::default()
        };
        // SAFETY: `root` holds HEADER_BYTES + stride >= size_of::<Header>() + size_of::<Args>()
        // bytes; unaligned writes of plain `Copy` data.
        unsafe {
            root.as_mut_ptr().cast::<Header>().write_unaligned(header);
            root.as_mut_ptr()
                .add(HEADER_BYTES as usize)
                .cast::<T::Args>()
                .write_unaligned(args);
            self.error_host.write_volatile(ErrorRecord::default());
        }
        let root_addr = pools.slots + u64::from(root_slot) * u64::from(pools.slot_bytes);
        let s = self.stream;
        // SAFETY: every region was allocated with these sizes; the host sources outlive the
        // calls (pageable async copies are staged before they return).
        unsafe {
            if pools.inbox != 0 {
                let entries = if pools.inbox_dirty {
                    pools.inbox_cap as usize
                } else {
                    0
                };
                let header = size_of::<GlobalQueueHeader>() / 4;
                check(
                    "cuMemsetD32Async",
                    sys::cuMemsetD32Async(pools.inbox, 0, header + entries, s),
                )?;
                check(
                    "cuMemsetD32Async",
                    sys::cuMemsetD32Async(
                        pools.imports,
                        0,
                        imports_bytes(pools.import_entries) / 4,
                        s,
                    ),
                )?;
            }
            if pools.parks_dirty {
                check(
                    "cuMemsetD32Async",
                    sys::cuMemsetD32Async(pools.parks, 0, w * PARK_WORDS as usize, s),
                )?;
            }
            if pools.wf {
                if pools.spill_dirty {
                    check(
                        "cuMemsetD32Async",
                        sys::cuMemsetD32Async(pools.spill_ring, 0, pools.spill_cap as usize, s),
                    )?;
                }
                let spill = SpillHeader {
                    arena_next: root_slot + 1,
                    ..SpillHeader::default()
                };
                htod(pools.spill, &spill, s)?;
            } else {
                check(
                    "cuMemsetD32Async",
                    sys::cuMemsetD32Async(pools.free_rings, 0, w * pools.ring_cap as usize, s),
                )?;
                check(
                    "cuMemsetD32Async",
                    sys::cuMemsetD32Async(pools.free_pos, pools.n, w, s),
                )?;
            }
            check(
                "cuMemsetD32Async",
                sys::cuMemsetD32Async(pools.deques, 0, w * pools.queues as usize * 4, s),
            )?;
            check(
                "cuMemsetD32Async",
                sys::cuMemsetD32Async(pools.progress, 0, w, s),
            )?;
            if pools.gq_rings != 0 {
                let q = gq_rings(pools.queues, pools.inbox != 0) as usize;
                let header_words = q * size_of::<GlobalQueueHeader>() / 4;
                check(
                    "cuMemsetD32Async",
                    sys::cuMemsetD32Async(pools.gq_headers, 0, header_words, s),
                )?;
                // The ablation's rings every run (as before); the overflow queues' when the
                // last run left entries.
                if !pools.wf || pools.gq_dirty {
                    check(
                        "cuMemsetD32Async",
                        sys::cuMemsetD32Async(pools.gq_rings, 0, q * pools.gq_cap as usize, s),
                    )?;
                }
            }
            check(
                "cuMemsetD32Async",
                sys::cuMemsetD32Async(pools.stats, 0, w * 4, s),
            )?;
            htod(self.control, &control, s)?;
            htod(self.params, &params, s)?;
            if part.gpu == 0 {
                check(
                    "cuMemcpyHtoDAsync",
                    sys::cuMemcpyHtoDAsync_v2(root_addr, root.as_ptr().cast(), root.len(), s),
                )?;
                check(
                    "cuMemsetD32Async",
                    sys::cuMemsetD32Async(self.root_result, 0, ROOT_RESULT_BYTES / 4, s),
                )?;
            }
        }
        if let Some(p) = self.pools.as_mut() {
            p.parks_dirty = false;
        }
        Ok(Launch {
            kernel: k,
            warps,
            stats_dev,
            profile,
        })
    }

    /// What this GPU tells the others of a multi-GPU run (after [`Inner::prepare`]).
    fn peer_info(&self) -> PeerInfo {
        let p = self.pools.as_ref();
        PeerInfo {
            control: self.control,
            slots: p.map_or(0, |p| p.slots),
            gq_headers: p.map_or(0, |p| p.gq_headers),
            gq_rings: p.map_or(0, |p| p.gq_rings),
            inbox: p.map_or(0, |p| p.inbox),
            gq_cap: p.map_or(0, |p| p.gq_cap),
            inbox_cap: p.map_or(0, |p| p.inbox_cap),
        }
    }

    /// Queues the peer table of a multi-GPU run on the run stream (before the launch).
    fn write_peers(&self, table: &[PeerInfo]) -> Result<()> {
        self.bind()?;
        // SAFETY: the table region holds MAX_GPUS entries (table.len() <= MAX_GPUS); the
        // pageable source is staged before the call returns.
        check("cuMemcpyHtoDAsync", unsafe {
            sys::cuMemcpyHtoDAsync_v2(
                self.peers,
                table.as_ptr().cast(),
                size_of_val(table),
                self.stream,
            )
        })
    }

    /// Launches the prepared kernel between the timing events.
    fn launch(&mut self, l: &Launch) -> Result<()> {
        self.bind()?;
        let (k, s) = (l.kernel, self.stream);
        // SAFETY: the params were queued on this stream by `prepare`.
        unsafe {
            check("cuEventRecord", sys::cuEventRecord(self.start, s))?;
            let mut arg = self.params;
            let mut kargs = [(&raw mut arg).cast::<c_void>()];
            check(
                "cuLaunchKernel",
                sys::cuLaunchKernel(
                    k.func,
                    k.grid,
                    1,
                    1,
                    k.block,
                    1,
                    1,
                    k.smem,
                    s,
                    kargs.as_mut_ptr(),
                    null_mut(),
                ),
            )?;
            check("cuEventRecord", sys::cuEventRecord(self.end, s))?;
        }
        if let Some(p) = self.pools.as_mut() {
            // Until the run is known to have ended with them empty (`finish`).
            p.spill_dirty = p.wf;
            p.gq_dirty = p.wf;
            p.inbox_dirty = p.inbox != 0;
        }
        Ok(())
    }

    /// After the kernel exited: what it left. `output` is the root's result (GPU 0 of a run,
    /// when the root finished); the error is the one this GPU recorded.
    fn finish<P: Program, T: TaskFn>(&mut self, l: Launch) -> Result<Finished<T::Output>> {
        self.bind()?;
        let Launch {
            kernel: k,
            warps,
            stats_dev,
            profile,
        } = l;
        let w = warps as usize;
        let s = self.stream;
        let mut ctl = Control::default();
        // SAFETY: the control block holds one Control.
        unsafe { dtoh(&raw mut ctl, self.control, s)? };
        if let Some(p) = self.pools.as_mut().filter(|p| p.wf) {
            let mut spill = SpillHeader::default();
            // SAFETY: the spill header holds one SpillHeader.
            unsafe { dtoh(&raw mut spill, p.spill, s)? };
            // Entries in [pop_pos, push_pos) were left in the ring by this run.
            p.spill_dirty = ctl.error != 0 || spill.push_pos != spill.pop_pos;
            // Positions reserved past the last claim hold (or will hold) entries; an error
            // may have stopped a pusher or a claimer half way.
            let mut left = ctl.error != 0;
            for q in 0..u64::from(gq_rings(p.queues, p.inbox != 0)) {
                let mut g = GlobalQueueHeader::default();
                let at = p.gq_headers + q * size_of::<GlobalQueueHeader>() as u64;
                // SAFETY: the overflow queues' headers hold `queues` GlobalQueueHeader.
                unsafe { dtoh(&raw mut g, at, s)? };
                left |= g.alloc != g.head;
            }
            p.gq_dirty = left;
            if p.inbox != 0 {
                let mut g = GlobalQueueHeader::default();
                // SAFETY: the inbox starts with one GlobalQueueHeader.
                unsafe { dtoh(&raw mut g, p.inbox, s)? };
                p.inbox_dirty = ctl.error != 0 || g.alloc != g.head;
            }
        }
        if ctl.error != 0 {
            return Err(self.device_error::<P>());
        }
        let root_here = ctl.done != 0 && self.gpu_index == 0;
        let mut out = MaybeUninit::<T::Output>::uninit();
        let mut stats = vec![WarpStats::default(); w];
        let mut kernel_ms = 0f32;
        // SAFETY: the root wrote its output (a `T::Output`) to root_result; stats hold `w`
        // entries.
        let output = unsafe {
            if root_here && size_of::<T::Output>() > 0 {
                check(
                    "cuMemcpyDtoHAsync",
                    sys::cuMemcpyDtoHAsync_v2(
                        out.as_mut_ptr().cast(),
                        self.root_result,
                        size_of::<T::Output>(),
                        s,
                    ),
                )?;
            }
            check(
                "cuMemcpyDtoHAsync",
                sys::cuMemcpyDtoHAsync_v2(
                    stats.as_mut_ptr().cast(),
                    stats_dev,
                    w * size_of::<WarpStats>(),
                    s,
                ),
            )?;
            check("cuStreamSynchronize", sys::cuStreamSynchronize(s))?;
            check(
                "cuEventElapsedTime",
                sys::cuEventElapsedTime_v2(&raw mut kernel_ms, self.start, self.end),
            )?;
            root_here.then(|| out.assume_init())
        };
        let (mut steps, mut spawned, mut steals) = (0u64, 0u64, 0u64);
        for st in &stats {
            steps += u64::from(st.steps);
            spawned += u64::from(st.spawned);
            steals += u64::from(st.steals);
        }
        let profile = profile.download(k.block, P::HAS_BLOCK, s)?;
        let stats = RunStats {
            backend: "gpu",
            workers: w,
            tasks: spawned + u64::from(self.gpu_index == 0),
            steps,
            steals,
            kernel_time: Some(Duration::from_secs_f64(f64::from(kernel_ms) / 1e3)),
            profile,
            gpus: 1,
            cross_steals: u64::from(ctl.import_claims),
            cross_tasks: u64::from(ctl.imported),
            cross_bytes: u64::from(ctl.imported)
                * (u64::from(self.pools.as_ref().map_or(0, |p| p.slot_bytes)) + 8),
            ..RunStats::default()
        };
        Ok(Finished {
            output,
            stats,
            control: ctl,
        })
    }

    /// Waits for the kernel, polling the progress counters; a hang or a fault becomes an error.
    /// A steered run (`elastic.rs`) also looks at its pause and SM-limit requests.
    fn wait(
        &mut self,
        warps: u32,
        stop: &Stop,
        mut steering: Option<(&mut elastic::Steering, &Kernel)>,
    ) -> Result<()> {
        let mut last_sum = 0u64;
        let mut last_change = Instant::now();
        let mut next_poll = Instant::now() + Duration::from_millis(10);
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
            std::thread::sleep(Duration::from_micros(sleep_us));
            sleep_us = (sleep_us * 2).min(if stop.armed() { STOP_POLL_US } else { 200 });
        }
    }

    /// Stops a running kernel through the abort word (a cancellation); returns `error`, or
    /// [`Error::Hang`] when the kernel did not stop within 5 s (the context is then poisoned).
    fn stop_now(&mut self, error: Error) -> Error {
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
    fn abort_and_wait(&mut self) -> Stopped {
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
        self.poisoned = true;
        Stopped::Stuck
    }

    /// Sets the abort word the workers poll (the kernel keeps running until they see it).
    ///
    /// Waits for the run's start event first: the control block is reset on the run stream
    /// before the launch, and an abort written on the watch stream before that reset would be
    /// overwritten (a cancellation 1 ms into a run once went unseen until the run ended).
    fn request_abort(&self) -> CuResult {
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
    fn progress_sum(&mut self, warps: u32) -> Result<u64> {
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
    fn abort(&mut self, after: Duration) -> Error {
        if let Stopped::Failed(_) = self.abort_and_wait() {
            // The stream failed while stopping: the context cannot be trusted.
            self.poisoned = true;
        }
        Error::Hang { after }
    }

    /// The error of a failed launch (trap, illegal address): the context is lost.
    fn fault(&mut self, r: CuResult) -> Error {
        self.poisoned = true;
        // SAFETY: host-mapped memory, valid until drop; the device finished writing it before
        // the trap.
        let rec = unsafe { self.error_host.read_volatile() };
        if rec.code == layout::ERR_PANIC {
            let n = (rec.file_len as usize).min(rec.file.len());
            let file = String::from_utf8_lossy(&rec.file[..n]);
            return Error::TaskPanicked {
                task: "<a task on the GPU>",
                message: format!(
                    "panicked at {file}:{} (warp {}, lane {}); the CUDA context is lost, create a new Runtime (run on the CPU backend for the panic message)",
                    rec.line, rec.warp, rec.lane
                ),
            };
        }
        Error::DeviceFault {
            code: r as u32,
            detail: format!(
                "the kernel failed with {r:?}; the CUDA context is lost, create a new Runtime"
            ),
        }
    }

    /// The error the device recorded (the kernel drained and exited).
    fn device_error<P: Program>(&self) -> Error {
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

impl Drop for Inner {
    fn drop(&mut self) {
        // After a fault the context is gone: every call would fail; leak instead.
        if self.poisoned || self.bind().is_err() {
            return;
        }
        self.free_rejoins();
        if let Some(p) = self.pools.take() {
            free_pools(&p);
        }
        // SAFETY: handles created in `new` (null ones are skipped by the driver or here).
        unsafe {
            for d in [self.params, self.control, self.root_result, self.peers] {
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
}

impl GpuBackend {
    pub(crate) fn new(config: &Config, ptx: &'static str) -> Result<Self> {
        let (ordinals, share) = multi::ordinals(&config.devices)?;
        let inner = Box::new(Inner::new(config, ptx, ordinals[0], 0, share)?);
        let mut others = Vec::new();
        for (i, &d) in ordinals.iter().enumerate().skip(1) {
            others.push(Inner::new(config, ptx, d, i as u32, share)?);
        }
        multi::enable_peer_access(&inner, &others)?;
        inner.bind()?;
        let transfers = transfer::Transfers::new(inner.ctx.clone(), config.transfer)?;
        Ok(Self {
            inner,
            others,
            transfers,
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
        // Only thread-level programs with joins spread over GPUs (`Devices`).
        if self.others.is_empty() || P::HAS_BLOCK || !P::JOINS {
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

/// The profiled kernel's record regions for one run (nothing when profiling is off); freed on
/// drop, also when the run fails.
struct ProfileRegion {
    records: u64,
    counts: u64,
    warps: usize,
    cap: u32,
}

impl ProfileRegion {
    fn new(warps: usize, cap: u32) -> Result<Self> {
        let mut r = Self {
            records: 0,
            counts: 0,
            warps,
            cap,
        };
        if cap > 0 {
            // One scratch record per warp after its `cap` (see the kernel's `Prof`).
            r.records = dev_alloc(warps * (cap as usize + 1) * size_of::<BatchRecord>())?;
            r.counts = dev_alloc(warps * 4)?;
        }
        Ok(r)
    }

    /// The records the kernel wrote (it stored every warp's count at exit).
    fn download(&self, block: u32, block_level: bool, s: sys::CUstream) -> Result<Option<Profile>> {
        if self.cap == 0 {
            return Ok(None);
        }
        let cap = self.cap as usize;
        let stride = cap + 1;
        let mut counts = vec![0u32; self.warps];
        let mut records = vec![BatchRecord::default(); self.warps * stride];
        // SAFETY: both regions were allocated with exactly these sizes in `new`.
        unsafe {
            check(
                "cuMemcpyDtoHAsync",
                sys::cuMemcpyDtoHAsync_v2(
                    counts.as_mut_ptr().cast(),
                    self.counts,
                    self.warps * 4,
                    s,
                ),
            )?;
            check(
                "cuMemcpyDtoHAsync",
                sys::cuMemcpyDtoHAsync_v2(
                    records.as_mut_ptr().cast(),
                    self.records,
                    records.len() * size_of::<BatchRecord>(),
                    s,
                ),
            )?;
            check("cuStreamSynchronize", sys::cuStreamSynchronize(s))?;
        }
        let warps = counts
            .iter()
            .enumerate()
            .map(|(w, &n)| {
                let kept = (n as usize).min(cap);
                WarpTrace {
                    batches: records[w * stride..w * stride + kept].to_vec(),
                    dropped: u64::from(n) - kept as u64,
                }
            })
            .collect();
        Ok(Some(Profile {
            warps,
            block,
            block_level,
        }))
    }
}

impl Drop for ProfileRegion {
    fn drop(&mut self) {
        for ptr in [self.records, self.counts] {
            if ptr != 0 {
                // SAFETY: allocated by `dev_alloc` in `new`, freed once.
                unsafe { sys::cuMemFree_v2(ptr) };
            }
        }
    }
}

/// The bytes of one task record (slot) whose frames take `frame_bytes`: the header, then the
/// frame rounded up to 16 bytes and at least 16, because a lane that resumes a parent inline
/// prefetches the frame's first bytes (`Warp::prefetch_frame`) and that address must lie in
/// the slot.
fn slot_bytes(frame_bytes: usize) -> usize {
    HEADER_BYTES as usize + frame_bytes.max(16).next_multiple_of(16)
}

/// Bytes of a multi-GPU run's import region: the import table (`entries` `u64`), then the
/// completion outbox (a [`GlobalQueueHeader`] and a ring of `entries` rounded up to a power of
/// two `u32`; `gtap-device`'s `GlobalQueues::outbox_of`). Zeroed before every run.
fn imports_bytes(entries: u32) -> usize {
    entries as usize * 8 + size_of::<GlobalQueueHeader>() + entries.next_power_of_two() as usize * 4
}

/// The global-queue rings of a run's pools: one overflow (or global) queue per EPAQ queue,
/// and in a multi-GPU run as many export queues after them (`gtap-device`'s `gpu/peer`).
fn gq_rings(queues: u32, multi: bool) -> u32 {
    queues * (1 + u32::from(multi))
}

/// Work first: the task slots that `budget` bytes hold when each slot also needs an entry in
/// each of the `queues` overflow queues, whose capacity is a power of two at least the number
/// of slots (`gtap-device/src/gpu/overflow.rs`): the slots and the queues' rings together fit
/// in the budget.
fn wf_slots(budget: usize, slot_bytes: usize, queues: usize) -> usize {
    let mut slots = (budget / (slot_bytes + 4 * queues)).min(1 << 31);
    let rings = 4 * queues * slots.next_power_of_two();
    if slots * slot_bytes + rings > budget {
        slots = budget.saturating_sub(rings) / slot_bytes;
    }
    slots
}

fn dev_alloc(bytes: usize) -> Result<u64> {
    let mut p = 0;
    // SAFETY: out-pointer; the caller bound the context.
    let r = unsafe { sys::cuMemAlloc_v2(&raw mut p, bytes.max(1)) };
    match r {
        OK => Ok(p),
        CuResult::CUDA_ERROR_OUT_OF_MEMORY => Err(Error::OutOfMemory {
            bytes,
            memory: "device",
        }),
        r => Err(driver("cuMemAlloc", r)),
    }
}

/// `Config::tasks_per_block = None`: as many records per block-level worker as fit in a
/// quarter of the free device memory (after the current pools are freed, if any), between 256
/// and 16384.
fn auto_tasks_per_block(workers: u32, frame_bytes: usize) -> Result<u32> {
    let (mut free, mut total) = (0usize, 0usize);
    // SAFETY: out-pointers; the context is bound by the caller.
    check("cuMemGetInfo", unsafe {
        sys::cuMemGetInfo_v2(&raw mut free, &raw mut total)
    })?;
    let n = free / 4 / (workers.max(1) as usize * slot_bytes(frame_bytes));
    Ok(n.clamp(256, 16384) as u32)
}

fn free_pools(p: &Pools) {
    for d in [
        p.slots,
        p.free_rings,
        p.free_pos,
        p.deques,
        p.deque_rings,
        p.progress,
        p.stats,
        p.scratch,
        p.gq_headers,
        p.gq_rings,
        p.free_stacks,
        p.lane_frees,
        p.spill,
        p.spill_ring,
        p.inbox,
        p.imports,
        p.parks,
    ] {
        if d != 0 {
            // SAFETY: allocated by `dev_alloc`, freed once (the Pools value is dropped after).
            unsafe {
                let _ = sys::cuMemFree_v2(d);
            }
        }
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

/// Copies one `T` from device address `src` and waits for it.
///
/// # Safety
///
/// `src` holds a `T` and `out` is valid for a write of one.
unsafe fn dtoh<T: Copy>(out: *mut T, src: u64, s: sys::CUstream) -> Result<()> {
    // SAFETY: forwarded from the caller.
    unsafe {
        check(
            "cuMemcpyDtoHAsync",
            sys::cuMemcpyDtoHAsync_v2(out.cast(), src, size_of::<T>(), s),
        )?;
        check("cuStreamSynchronize", sys::cuStreamSynchronize(s))
    }
}

/// Loads `ptx` with the JIT's error log, so that a rejected module says why, and with the
/// register cap `max_registers` when one is given.
fn load_module(ptx: &str, max_registers: Option<u32>) -> Result<sys::CUmodule> {
    let src = CString::new(ptx).map_err(|_| Error::NoGpu {
        reason: "the PTX text contains a NUL byte".into(),
    })?;
    let mut log = vec![0u8; 16 * 1024];
    let mut opts = vec![
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
        sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
    ];
    // The driver reads each option's value from the pointer-sized slot itself.
    let mut vals = vec![log.as_mut_ptr().cast::<c_void>(), log.len() as *mut c_void];
    if let Some(regs) = max_registers {
        opts.push(sys::CUjit_option::CU_JIT_MAX_REGISTERS);
        vals.push(regs as usize as *mut c_void);
    }
    let mut module: sys::CUmodule = null_mut();
    // SAFETY: NUL-terminated PTX; option arrays of equal length; the log buffer outlives the call.
    let r = unsafe {
        sys::cuModuleLoadDataEx(
            &raw mut module,
            src.as_ptr().cast(),
            opts.len() as u32,
            opts.as_mut_ptr(),
            vals.as_mut_ptr(),
        )
    };
    if r == OK {
        return Ok(module);
    }
    let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
    Err(Error::Driver(format!(
        "loading the PTX module failed ({r:?}): {}",
        String::from_utf8_lossy(&log[..end]).trim()
    )))
}

#[cfg(test)]
mod tests {
    use super::wf_slots;

    /// The slots and the overflow queues' rings (a power of two of entries, at least the
    /// slots, per queue) fit in the budget, and the budget is not wasted by more than the
    /// rings' rounding.
    #[test]
    fn wf_slots_and_overflow_rings_fit_the_budget() {
        for budget in [4096usize, 24 << 10, 1 << 20, 3 << 20, 1 << 30, 8 << 30] {
            for slot_bytes in [48usize, 64, 272, 4128] {
                for queues in 1..=8usize {
                    let slots = wf_slots(budget, slot_bytes, queues);
                    let cap = slots.next_power_of_two();
                    assert!(
                        slots * slot_bytes + 4 * queues * cap <= budget,
                        "{budget} B, {slot_bytes} B slots, {queues} queues: {slots} slots overflow"
                    );
                    assert!(
                        (slots + 1) * slot_bytes + 4 * queues * (2 * cap) > budget
                            || slots == 1 << 31,
                        "{budget} B, {slot_bytes} B slots, {queues} queues: only {slots} slots"
                    );
                }
            }
        }
    }
}
