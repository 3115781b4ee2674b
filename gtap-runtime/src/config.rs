//! Run-time configuration: one [`Config`] for both backends.
//!
//! Every capacity the schedulers have is a field here, so that an overflow can be reported as
//! an error naming the field to raise. [`Config::validate`] checks the ranges; the runtime calls
//! it on construction. CPU-only fields are ignored by the GPU backend and vice versa (each
//! field's doc says which backend reads it).

use std::time::Duration;

use gtap_device::gpu::layout;

use crate::error::{Error, Result};
use crate::transfer::Transfer;

/// Which backend a [`Runtime`](crate::Runtime) uses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Backend {
    /// The GPU when a CUDA driver, a device and a PTX module are there; the CPU otherwise.
    #[default]
    Auto,
    /// The CPU executor (a work-stealing thread pool).
    Cpu,
    /// The GPU; [`Error::NoGpu`] when it cannot be used.
    Gpu,
}

/// The GPU scheduler ([`Config::scheduler`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Scheduler {
    /// Work first (gtap's scheduler): each warp's deque has a private part that only the warp
    /// touches (no fence, no device-scope atomic) and a public part it releases tasks into
    /// when thieves run short; joins whose children never left the warp complete with
    /// warp-local bookkeeping; slots come from a private free stack backed by one shared
    /// arena ([`Config::gpu_pool_bytes`]). Block-level workers use the same split deques,
    /// joins (a block-scope RMW where a warp uses plain accesses) and pools (one per warp).
    #[default]
    WorkFirst,
    /// Per-warp deques whose every batch is published with a fence and device-scope RMWs, and
    /// per-warp pools of [`Config::tasks_per_warp`] slots (gtap's earlier scheduler, GTaP's
    /// protocol). Kept as an ablation.
    SharedDeque,
    /// One global FIFO queue per EPAQ queue index that every worker pops from and pushes to
    /// (GTaP's `thread_gq` / `block_gq` ablation: ordered commits, no stealing). For
    /// measurements only: it serializes publication through one counter and does not scale.
    GlobalQueue,
}

/// The GPUs one run uses ([`Config::devices`]).
///
/// On several GPUs, one persistent kernel runs on each (launched together); the root starts
/// on the first, and an idle GPU takes old tasks from another over peer memory, many per
/// steal (`docs/gpu-runtime.md`, "Several GPUs"). Results, errors and the source are the same
/// as on one GPU. Only thread-level programs with joins spread over several GPUs; others
/// (block-level kinds, programs without `taskwait!`) run on the first one alone
/// (`RunStats::gpus` says how many took part). Buffers live on the first GPU and the others
/// reach them through peer access.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Devices {
    /// CUDA device 0 alone.
    #[default]
    One,
    /// Every CUDA device of the host (peer access between each pair is required).
    All,
    /// These CUDA devices, by ordinal; the first holds the root and the buffers.
    List(Vec<u32>),
    /// CUDA device 0, split into this many partitions of its SMs, each running its own
    /// persistent kernel, with exactly the protocol that runs between GPUs: the multi-GPU
    /// path on one GPU (for tests, and to measure what the protocol costs), `2..=8`.
    Partitions(u32),
}

/// The longest [`Config::spread_after`] (the device keeps it in 32 bits of nanoseconds).
const MAX_SPREAD_AFTER: Duration = Duration::from_secs(4);

/// The most GPUs (or partitions) one run uses.
pub const MAX_GPUS: usize = gtap_device::gpu::layout::MAX_GPUS;

/// The most EPAQ queues a worker can have.
pub const MAX_QUEUES: u32 = 8;

/// [`Config::gpu_clone_depth`]'s default: levels of tasks below the depth at which a binary
/// tree has as many tasks as the grid has lanes. Deeper was faster at every depth measured
/// (fib(40) on an H200: 473 ms at depth 17, 47 at 20, 31 at 23, against 36 without clones,
/// `docs/benchmarks.md`, "The depth rule"): larger clones wait on their register saves in
/// local memory and leave a warp's other lanes idle.
pub const CLONE_DEPTH_SLACK: u32 = 7;

impl Config {
    /// The depth from which children are calls on a grid of `lanes` lanes
    /// ([`Config::gpu_clone_depth`]).
    pub fn clone_depth_for(&self, lanes: u32) -> u32 {
        self.gpu_clone_depth.unwrap_or_else(|| {
            (lanes.max(1).next_power_of_two().ilog2() + CLONE_DEPTH_SLACK).min(255)
        })
    }
}

/// Configuration of a [`Runtime`](crate::Runtime). Build it with struct-update syntax:
///
/// ```
/// let config = gtap_runtime::Config { workers: 4, queues: 2, ..Default::default() };
/// assert!(config.validate().is_ok());
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Config {
    /// CPU: worker threads, the calling thread included (default: available parallelism).
    pub workers: usize,
    /// GPU: blocks of the persistent kernel; `None` sizes the grid from the occupancy query so
    /// that every block is resident.
    pub grid: Option<u32>,
    /// GPU: the SMs' worth of resident blocks a run uses (`None`: every SM). The grid becomes
    /// the occupancy query's blocks per SM times this, so the rest of every SM stays free for
    /// other kernels on other streams (the block scheduler spreads the grid over all SMs; it
    /// does not confine it to a subset). With [`Config::grid`] set, the grid must fit in it.
    pub sms: Option<u32>,
    /// GPU: threads per block, a multiple of 32 in `32..=1024` (default 32).
    pub block: u32,
    /// GPU: the capacity of each warp's deque (rounded up to a power of two), and, with
    /// [`Scheduler::SharedDeque`] and [`Scheduler::GlobalQueue`], the task records of each
    /// warp's pool (default 8192: fib(40) with a task at every call holds about 2,600 live
    /// records per warp at its peak). The work-first scheduler's pools are sized by
    /// [`Config::gpu_pool_bytes`] instead, and its deques do not limit a run: a warp whose
    /// deque fills half its capacity spills most of its private tasks to an overflow queue
    /// (`docs/gpu-runtime.md`); only one batch's spawns (32 lanes' children) must fit in half.
    pub tasks_per_warp: u32,
    /// GPU, work-first scheduler: bytes of task records all warps together may hold at once,
    /// with their entries in the overflow queues (4 bytes a record per EPAQ queue). `None`
    /// (the default) takes a quarter of the device's free memory, at most 8 GiB. Every warp
    /// takes slots from it as it needs them, so a run fails with [`Error::PoolExhausted`]
    /// naming this field only when its live tasks do not fit.
    pub gpu_pool_bytes: Option<usize>,
    /// GPU, work-first scheduler: a warp releases private tasks to thieves when fewer than
    /// this many of its tasks are public (default 1: when none is).
    pub release_below: u32,
    /// GPU, work-first scheduler, programs with several queues ([`Config::queues`]): a warp
    /// also releases the private tasks of a queue other than the one it runs next while fewer
    /// than this many of that queue's tasks are public (default `u32::MAX`: always). The warp
    /// runs one queue dry before it turns to the others, so their tasks are for thieves: EPAQ
    /// fib(40) at cutoff 9 ran in 5.5 ms this way, 5.7 with a bound of 128, 5.9 with 8 and
    /// with `release_below`'s 1 alone (H200, `docs/benchmarks.md`, tenth session). Programs
    /// with one queue never read it.
    pub release_other_below: u32,
    /// GPU, work-first scheduler: a release moves `private >> release_shift` tasks (at least
    /// one), the oldest first, once the private part holds `release_all_below` tasks or more
    /// (default 2: a quarter).
    pub release_shift: u32,
    /// GPU, work-first scheduler: a release moves the whole private part, not a share of it,
    /// while it holds fewer than this many tasks (default 256; 0: never; below 2^24). Trees
    /// and searches whose warps hold few private tasks want them all public; fib wants most of
    /// a deep private part kept (`docs/benchmarks.md`, the release sweep).
    pub release_all_below: u32,
    /// GPU, work-first scheduler: steps a lane may run inline per batch (default 32, at most
    /// 56; 0 turns inline execution off, for comparison). A step's lone child is run by the
    /// same lane right after the step, and a parent whose last child finishes in that lane is
    /// resumed there too, without a trip through the scheduler (`docs/gpu-runtime.md`,
    /// "Inline execution"). Larger values make dependent chains cheaper and batches longer.
    pub inline_steps: u32,
    /// GPU, work-first scheduler: run the *last* child of every step inline, not only a lone
    /// child (default `false`). A lane then goes depth first, which a measurement showed to
    /// cost breadth-first warps more than it saves (`docs/benchmarks.md`); for comparison.
    pub inline_last_child: bool,
    /// GPU: the longest sleep, in nanoseconds, of an idle worker between two steal rounds
    /// (default 2048, in `256..=1_000_000`). Its back-off doubles from 64 ns up to this. Idle
    /// workers' probes share the L2 with the busy ones, so a longer sleep can speed up a run
    /// with few busy workers (a chain, an unbalanced tree) and slows the spread of new work
    /// (`docs/benchmarks.md`, the idle sweep).
    pub idle_max_ns: u32,
    /// GPU: random victims an idle worker tries per steal round before it sleeps (default 4,
    /// in `1..=64`).
    pub steal_tries: u32,
    /// GPU: threads per block of the block-level workers, which run programs with a
    /// `#[gtap::function(block)]` kind: a block-level task runs on this many threads, a
    /// thread-level task of such a program on one of them. A multiple of 32 in `32..=1024`
    /// (default 128).
    pub block_threads: u32,
    /// GPU, block-level workers: under the work-first scheduler, the entries of each block's
    /// deque (`None`: 16384; records come from [`Config::gpu_pool_bytes`]; unlike a warp's, a
    /// block's full deque is a `QueueOverflow` naming this field: block-level programs do not
    /// spill to the overflow queues yet); under
    /// [`Scheduler::SharedDeque`] and [`Scheduler::GlobalQueue`], the task records of each
    /// block's pool (`None` takes as many as fit in a quarter of the device's free memory,
    /// between 256 and 16384: a joining block-level kind's record holds one frame per thread,
    /// so records can be large, while programs that run thread-level tasks on block-level
    /// workers need many).
    pub tasks_per_block: Option<u32>,
    /// GPU, work-first scheduler, one GPU, thread-level programs with joins: let a lane run a
    /// child as a call of its function's sequential clone (the body with each `task!` a call)
    /// below [`Config::gpu_clone_depth`] in the tree, instead of making every `task!` a task
    /// (`docs/gpu-runtime.md`, "Children as calls"). Clones go no deeper than the lane's
    /// stack allows ([`Config::stack_bytes`]; past it, lane-private records). Default
    /// `false`: every answer is checked with clones on, but calls do not pay enough yet
    /// (fib(40) on an H200: 31 ms with them, 36 without; the chain 2.3 times slower): a
    /// call's register saves in local memory make it about as many instructions as a task
    /// step, and a warp's lanes wait for its largest clone (`docs/benchmarks.md`, "The depth
    /// rule").
    pub gpu_clones: bool,
    /// GPU, with [`Config::gpu_clones`]: the children of a task this deep in the tree (the
    /// root is at 0) or deeper are calls, unless its warp was asked for work; the levels above
    /// stay tasks, which spread the tree over the grid before lanes go sequential. `None`
    /// (default): from the grid, [`CLONE_DEPTH_SLACK`] more than the base-2 logarithm of its
    /// lanes (a binary tree's tasks outnumber the lanes that much). `Some(0..=255)`: that
    /// depth; 0 makes every child a call from the root on, so that the whole tree runs in
    /// clones and spreads only by hand-offs (a test of that path).
    pub gpu_clone_depth: Option<u32>,
    /// GPU, with [`Config::gpu_clones`]: a lane deep in a clone answers an idle warp's request
    /// for work by handing it the next child it reaches near the clone's top. Default
    /// `false`: the levels above [`Config::gpu_clone_depth`] spread the tree, and hand-offs
    /// made fib(40) slower on an H200 (86 ms with, 47 without, at depth 20): the lane waits
    /// for the piece it gave away.
    pub gpu_hand_offs: bool,
    /// CPU: bytes of task records all workers together may hold at once (default 4 GiB), split
    /// evenly between the workers. A run that needs more fails with [`Error::PoolExhausted`]
    /// instead of exhausting the machine's memory (a runaway recursion, for example).
    pub cpu_pool_bytes: usize,
    /// CPU: run a child that no idle worker needs as a call on its parent's worker (in release
    /// builds as its function's sequential clone, the body with each `task!` a call; else its
    /// state machine with its frame in a per-worker stack region), and make it a record on a
    /// deque only when an idle worker asks for work (default `true`; `docs/cpu-executor.md`).
    /// `false` makes every child a record, the executor's earlier design, kept to measure
    /// against.
    pub cpu_inline_children: bool,
    /// Both: children one task may spawn between two `taskwait!()`s (default 64).
    pub max_children: u32,
    /// Both: EPAQ queues, `1..=8` (default 1); queue hints must be below it.
    pub queues: u32,
    /// Both: the largest task frame (task-data struct) accepted, in bytes (default 256, the
    /// macro's default `max_frame_bytes`).
    pub task_data_limit: usize,
    /// GPU: the per-thread stack, in bytes (default 4096; CUDA's default 1 KiB is too small for
    /// deep device calls). Sequential clones ([`Config::gpu_clones`]) use what the kernel's
    /// own frame and a 1 KiB reserve leave of it; a clone that would go deeper runs the rest
    /// of its subtree as records of its lane.
    pub stack_bytes: u32,
    /// GPU: a cap on registers per thread for every kernel, given to the PTX JIT
    /// (`CU_JIT_MAX_REGISTERS`). `None` (the default) leaves the choice to the compiler,
    /// except for a kernel that needs more than 168 registers per thread (fewer than 12 warps
    /// of 32 threads per SM): that one kernel is compiled again capped at 168, which a body
    /// with a heavy call can need (EPAQ fib(40) at cutoff 9, when its kernel needed 208
    /// registers: 10.0 ms, 5.9 ms capped, H200; `docs/benchmarks.md`). Fewer
    /// registers can fit more warps on an SM (64 per thread allows 32 warps of 32 threads);
    /// too few makes the compiler spill.
    pub max_registers: Option<u32>,
    /// GPU: a run that makes no progress for this long fails with [`Error::Hang`] (default
    /// 10 s). The CPU executor cannot stop a thread stuck in user code and ignores it.
    pub watchdog: Duration,
    /// GPU: batch records per warp of the profiler (default 0: off, and the kernel runs
    /// without any profiling code). When non-zero, runs use the profiled kernel and
    /// `RunStats::profile` holds every warp's batches; records past this capacity are counted
    /// as dropped, never silently lost. Each record is 56 bytes per warp.
    pub profile_records: u32,
    /// GPU: claim up to 32 deque entries with one CAS (default `true`, gtap's scheduler);
    /// `false` claims one entry per CAS, like a sequence of Chase-Lev pops and steals (GTaP's
    /// `chaselev` ablation). For measurements only.
    pub batched_claims: bool,
    /// GPU: the scheduler (default [`Scheduler::WorkFirst`]; [`Scheduler::SharedDeque`] and
    /// [`Scheduler::GlobalQueue`] are ablations). The global queue is not combined with the profiler.
    pub scheduler: Scheduler,
    /// GPU: how user data crosses to and from the device (default: pinned staging chunks,
    /// copied by up to 8 threads; see [`Transfer`]).
    pub transfer: Transfer,
    /// Which backend to use (default [`Backend::Auto`]).
    pub backend: Backend,
    /// GPU: the GPUs one run uses (default [`Devices::One`]; see [`Devices`]). Several GPUs
    /// need the work-first scheduler.
    pub devices: Devices,
    /// GPU, several GPUs (`devices`): how long a run keeps its tasks on the first GPU before
    /// the others ask it for work (default 0: they ask from the start; at most 4 s). A run
    /// that ends sooner runs as on one GPU. 20 ms keeps a short run whose tasks read much
    /// data (a BFS of 16 ms, a 18 ms tree of table lookups: 0.4x on several GPUs) at the
    /// one-GPU time, but costs a compute-bound tree more than it waits (fib(40) 0.66x
    /// instead of 1.03x on 2 H100s, nqueens(17) 1.68x instead of 1.88x), so it is not the
    /// default. `docs/benchmarks.md`, "Several GPUs", has the table.
    pub spread_after: Duration,
    /// GPU, several GPUs (`devices`: `All` or `List`, not `Partitions`, whose kernels share
    /// one GPU's SMs), with `spread_after` 0: the first GPU starts with a standing request for
    /// work from the others, so that the root's warp hands the oldest half of its first tasks
    /// (the root's children, the largest subtrees of the run) to the other GPUs before its own
    /// warps spread them (default `true`; `docs/benchmarks.md`, "Several GPUs", has the runs
    /// with and without it).
    pub split_start: bool,
}

// `Config::validate`'s message for `idle_max_ns` spells out these bounds.
const _: () = assert!(layout::MIN_IDLE_MAX_NS == 256 && layout::MAX_IDLE_MAX_NS == 1_000_000);

impl Default for Config {
    fn default() -> Self {
        Self {
            workers: std::thread::available_parallelism().map_or(1, |n| n.get()),
            grid: None,
            sms: None,
            block: 32,
            tasks_per_warp: 8192,
            gpu_pool_bytes: None,
            release_below: 1,
            release_other_below: u32::MAX,
            release_shift: 2,
            release_all_below: 256,
            inline_steps: 32,
            inline_last_child: false,
            idle_max_ns: 2048,
            steal_tries: 4,
            block_threads: 128,
            tasks_per_block: None,
            gpu_clones: false,
            gpu_clone_depth: None,
            gpu_hand_offs: false,
            cpu_pool_bytes: 4 << 30,
            cpu_inline_children: true,
            max_children: 64,
            queues: 1,
            task_data_limit: gtap_device::glue::DEFAULT_MAX_FRAME_BYTES,
            stack_bytes: 4096,
            max_registers: None,
            watchdog: Duration::from_secs(10),
            profile_records: 0,
            batched_claims: true,
            scheduler: Scheduler::WorkFirst,
            transfer: Transfer::default(),
            backend: Backend::Auto,
            devices: Devices::One,
            spread_after: Duration::ZERO,
            split_start: true,
        }
    }
}

impl Config {
    /// Checks every field's range.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidConfig`] naming the first field out of range.
    pub fn validate(&self) -> Result<()> {
        fn bad(field: &'static str, value: impl ToString, expected: &'static str) -> Result<()> {
            Err(Error::InvalidConfig {
                field,
                value: value.to_string(),
                expected,
            })
        }
        if self.workers == 0 {
            return bad("workers", self.workers, "at least 1");
        }
        if self.grid == Some(0) {
            return bad(
                "grid",
                "Some(0)",
                "None (sized from occupancy) or Some(1 or more)",
            );
        }
        if self.sms == Some(0) {
            return bad("sms", "Some(0)", "None (every SM) or Some(1 or more)");
        }
        if self.block == 0 || !self.block.is_multiple_of(32) || self.block > 1024 {
            return bad("block", self.block, "a multiple of 32 in 32..=1024");
        }
        if self.tasks_per_warp == 0 {
            return bad("tasks_per_warp", self.tasks_per_warp, "at least 1");
        }
        if self.gpu_pool_bytes.is_some_and(|b| b < 4 << 10) {
            return bad(
                "gpu_pool_bytes",
                format!("{:?}", self.gpu_pool_bytes),
                "None (a quarter of free device memory) or Some(at least 4 KiB)",
            );
        }
        if self.release_below == 0 {
            return bad("release_below", self.release_below, "at least 1");
        }
        if self.release_other_below == 0 {
            return bad(
                "release_other_below",
                self.release_other_below,
                "at least 1",
            );
        }
        if self.release_shift > 31 {
            return bad("release_shift", self.release_shift, "0..=31");
        }
        if self.release_all_below >= 1 << 24 {
            return bad("release_all_below", self.release_all_below, "below 2^24");
        }
        if self.inline_steps > gtap_device::gpu::layout::MAX_INLINE_STEPS {
            return bad(
                "inline_steps",
                self.inline_steps,
                "0..=56 (0 turns inline execution off)",
            );
        }
        if !(layout::MIN_IDLE_MAX_NS..=layout::MAX_IDLE_MAX_NS).contains(&self.idle_max_ns) {
            return bad(
                "idle_max_ns",
                self.idle_max_ns,
                "256..=1_000_000 (nanoseconds)",
            );
        }
        if !(1..=64).contains(&self.steal_tries) {
            return bad("steal_tries", self.steal_tries, "1..=64");
        }
        if self.block_threads == 0
            || !self.block_threads.is_multiple_of(32)
            || self.block_threads > 1024
        {
            return bad(
                "block_threads",
                self.block_threads,
                "a multiple of 32 in 32..=1024",
            );
        }
        if self.tasks_per_block == Some(0) {
            return bad(
                "tasks_per_block",
                "Some(0)",
                "None (sized from free device memory) or Some(1 or more)",
            );
        }
        if self.cpu_pool_bytes < 1 << 20 {
            return bad("cpu_pool_bytes", self.cpu_pool_bytes, "at least 1 MiB");
        }
        if self.max_children == 0 {
            return bad("max_children", self.max_children, "at least 1");
        }
        if !(1..=MAX_QUEUES).contains(&self.queues) {
            return bad("queues", self.queues, "1..=8");
        }
        if self.task_data_limit < 16 {
            return bad("task_data_limit", self.task_data_limit, "at least 16 bytes");
        }
        if let Some(d) = self.gpu_clone_depth {
            if d > 255 {
                return bad("gpu_clone_depth", d, "None or Some(0..=255)");
            }
        }
        if self.stack_bytes < 1024 {
            return bad("stack_bytes", self.stack_bytes, "at least 1024 bytes");
        }
        if let Some(r) = self.max_registers {
            if !(16..=255).contains(&r) {
                return bad("max_registers", r, "None or Some(16..=255)");
            }
        }
        if self.scheduler == Scheduler::GlobalQueue && self.profile_records > 0 {
            return bad(
                "profile_records",
                self.profile_records,
                "0 with Scheduler::GlobalQueue (the profiler records the work-stealing scheduler)",
            );
        }
        match &self.devices {
            Devices::One | Devices::All => {}
            Devices::List(l) => {
                let mut sorted = l.clone();
                sorted.sort_unstable();
                sorted.dedup();
                if l.is_empty() || sorted.len() != l.len() || l.len() > MAX_GPUS {
                    return bad(
                        "devices",
                        format!("{:?}", self.devices),
                        "Devices::List of 1..=8 distinct CUDA device ordinals",
                    );
                }
            }
            Devices::Partitions(n) => {
                if !(2..=MAX_GPUS as u32).contains(n) {
                    return bad(
                        "devices",
                        format!("{:?}", self.devices),
                        "Devices::Partitions(2..=8) (Devices::One for the whole GPU)",
                    );
                }
            }
        }
        if self.devices != Devices::One && self.scheduler != Scheduler::WorkFirst {
            return bad(
                "devices",
                format!("{:?}", self.devices),
                "Devices::One with the ablations (SharedDeque, GlobalQueue): several GPUs run the work-first scheduler",
            );
        }
        if self.devices != Devices::One && self.profile_records > 0 {
            return bad(
                "profile_records",
                self.profile_records,
                "0 on several GPUs (the profiler records one GPU: use Devices::One)",
            );
        }
        self.transfer.validate()?;
        if self.spread_after > MAX_SPREAD_AFTER {
            return bad(
                "spread_after",
                format!("{:?}", self.spread_after),
                "at most 4 s (Duration::ZERO spreads a run over its GPUs from the start)",
            );
        }
        if self.watchdog.is_zero() {
            return bad(
                "watchdog",
                format!("{:?}", self.watchdog),
                "a non-zero duration",
            );
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
