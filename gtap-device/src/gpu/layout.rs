//! The memory layout shared by the persistent kernel and the host launcher.
//!
//! Compiled for both targets, so the host (`gtap-runtime`) allocates and fills exactly what the
//! kernel reads. Everything is `#[repr(C)]`, with addresses as `u64` device pointers.
//!
//! # Regions (all in device memory unless noted)
//!
//! | region | size | reset per run |
//! |---|---|---|
//! | slots | `(warps * tasks_per_warp + 1) * slot_bytes` | the root slot is written |
//! | free rings | `warps * ring_cap` `u32` | zeroed |
//! | free positions | `warps` `u32` | set to `tasks_per_warp` |
//! | deque headers | `warps * queues` [`DequeHeader`] | zeroed |
//! | deque rings | `warps * queues * queue_cap` `u32` | not needed |
//! | progress | `warps` `u32` | zeroed |
//! | stats | `warps` [`WarpStats`] | zeroed |
//! | control | one [`Control`] | zeroed, `live = 1` |
//! | error record | one [`ErrorRecord`], **host-mapped** (survives a trap) | zeroed |
//! | global queues (global-queue kernel only) | `queues` [`GlobalQueueHeader`] + `queues * gq_cap` `u32` | zeroed |
//! | profile (profiled kernel only) | `warps * (profile_cap + 1)` [`BatchRecord`] + `warps` `u32` counts | counts written at exit |
//!
//! A *slot* is a [`Header`] followed by the task's frame (`stride` bytes, 16-aligned). Slot
//! `i` for `i < warps * tasks_per_warp` belongs to the pool of warp `i / tasks_per_warp`; the
//! last slot is the root's, which belongs to no pool.

/// "No task": an empty lane, or the root's parent.
pub const NONE: u32 = u32::MAX;

/// Parents from here up are not slots: [`NONE`] (the run's root), and below it the *import
/// markers* of a run on several GPUs: a task copied from another GPU (`gpu/peer`) has the
/// parent `IMPORT_BASE + i`, where entry `i` of this GPU's import table says which GPU's task
/// it stands for. Every slot index is below it (the host checks that a run's slots fit).
pub const IMPORT_BASE: u32 = 0xFFFF_0000;

/// The request ([`Control::hungry`]) the first GPU of a run on several GPUs (not partitions
/// of one) starts with when `Config::split_start` is on: an epoch no courier uses before its 16-millionth request, and
/// a share of 1 (256ths of the warps, by `peer::serves`' hash, which always picks warp 0). The
/// root's warp therefore exports the oldest half of its first private tasks, the root's
/// children, before local thieves spread them, and the other GPUs start on the largest
/// subtrees there are; the share's other warps (about one in 256) export once each too.
pub const SPLIT_START_REQUEST: u32 = (0x00FF_FFFF << 8) | 1;
/// Import-table entries per warp of the grid: a GPU's table has this many for each warp (up
/// to [`IMPORT_WARPS`]), which its courier's lanes own in stripes (`peer`); at most that
/// many imported tasks of a GPU are unfinished at once.
pub const IMPORTS_PER_WARP: u32 = 8;
/// Warps whose share of entries the table has: its indices stay below `NONE - 1 - IMPORT_BASE` (`NONE - 1` is
/// the joins' "nothing next").
pub const IMPORT_WARPS: u32 = (NONE - 1 - IMPORT_BASE) / IMPORTS_PER_WARP;

/// Parents from here to [`IMPORT_BASE`] are *cells*: a task that a lane's sequential clone
/// handed to a hungry warp has the parent `CELL_BASE + i`, where `i` is the lane's global
/// index, and its completion is written to that lane's [`Cell`] (`gpu/worker/clone.rs`). Every
/// slot index is below it (the host checks that a run's slots fit).
pub const CELL_BASE: u32 = 0xFF00_0000;

/// Whether `parent` (a header's parent) is a task slot of this GPU, not the root's parent, a
/// cell or an import marker.
#[inline(always)]
#[must_use]
pub const fn is_slot(parent: u32) -> bool {
    parent < CELL_BASE
}

/// Whether `parent` is a cell (see [`CELL_BASE`]).
#[inline(always)]
#[must_use]
pub const fn is_cell(parent: u32) -> bool {
    parent >= CELL_BASE && parent < IMPORT_BASE
}

/// Bytes of a [`Cell`]'s result: a clone hands a child to another warp only when the child's
/// result fits.
pub const CELL_RESULT_BYTES: usize = 56;

/// One lane's hand-off cell (`gpu/worker/clone.rs`): the state of the one child its clone
/// handed to a hungry warp, and the child's result. [`Params::cells`] holds one per lane of
/// the grid, zeroed once when allocated.
#[repr(C, align(64))]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cell {
    /// `generation << 2 | state`: [`CELL_IDLE`], [`CELL_OFFERED`], [`CELL_TAKEN`] or
    /// [`CELL_DONE`]; each hand-off of the lane has a new generation, which the child's header
    /// carries in [`Header::reserved`].
    pub word: u32,
    /// Unused.
    pub pad: u32,
    /// The child's result (its `result_dst`).
    pub result: [u64; 7],
}
const _: () = assert!(core::mem::size_of::<Cell>() == 64 && CELL_RESULT_BYTES == 7 * 8);

/// [`Cell::word`]'s state: nothing handed off (or the owner took its child back).
pub const CELL_IDLE: u32 = 0;
/// [`Cell::word`]'s state: the child waits in an overflow queue for a taker.
pub const CELL_OFFERED: u32 = 1;
/// [`Cell::word`]'s state: a warp took the child from the queue and runs it.
pub const CELL_TAKEN: u32 = 2;
/// [`Cell::word`]'s state: the child and its subtree finished; the result is written.
pub const CELL_DONE: u32 = 3;

/// What one GPU of a multi-GPU run tells the others about itself (`Params::peers` holds one
/// per GPU, the same table on every GPU). Every address is a device address that every GPU
/// of the run can use (peer access is on between them).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PeerInfo {
    /// Its [`Control`] block.
    pub control: u64,
    /// Its task slots (the same `slot_bytes` on every GPU: one program).
    pub slots: u64,
    /// Its overflow queues' headers (`queues` [`GlobalQueueHeader`]), its export channel.
    pub gq_headers: u64,
    /// Its overflow queues' rings (`queues * gq_cap` `u32`).
    pub gq_rings: u64,
    /// Its completion inbox: one [`GlobalQueueHeader`], then `inbox_cap` `u32` entries.
    pub inbox: u64,
    /// Capacity of its overflow rings.
    pub gq_cap: u32,
    /// Capacity of its inbox ring (at least its task slots).
    pub inbox_cap: u32,
}

/// Bytes of per-warp scheduler state in shared memory: 16, plus 16 per EPAQ queue (`tail`,
/// steal-end cache, entries generated this batch, pop estimate), plus one word per queue for
/// the work-first scheduler's private count, rounded up to 16 bytes.
#[must_use]
pub const fn smem_per_warp(queues: u32) -> u32 {
    16 + 16 * queues + 16 * queues.div_ceil(4)
}

/// Block-level workers' shared memory: scheduler words first, then the collective area that
/// [`crate::block`]'s reductions and broadcasts use.
pub const BLOCK_SMEM_SCHED_BYTES: u32 = 128;
/// Offset of the collective area in a block-level worker's shared memory.
pub const BLOCK_SMEM_COLLECTIVE: u32 = BLOCK_SMEM_SCHED_BYTES;
/// Size of the collective area: one `u64` per warp of a 1024-thread block, or one broadcast
/// value.
pub const BLOCK_SMEM_COLLECTIVE_BYTES: u32 = 256;
/// Offset of the work-first pools' words in a block-level worker's shared memory: 16 bytes
/// per warp of the block (each warp of a block-level worker allocates and frees on its own
/// pool, as a thread-level warp does; see `pool.rs`).
pub const BLOCK_SMEM_POOL: u32 = BLOCK_SMEM_COLLECTIVE + BLOCK_SMEM_COLLECTIVE_BYTES;
/// Size of the pools' words: 16 bytes for each of up to 32 warps.
pub const BLOCK_SMEM_POOL_BYTES: u32 = 16 * 32;
/// Dynamic shared memory of a block-level worker.
pub const BLOCK_SMEM_BYTES: u32 = BLOCK_SMEM_POOL + BLOCK_SMEM_POOL_BYTES;

/// Extra shared memory per warp of the profiled kernel: the record being filled (a
/// [`BatchRecord`], 56 bytes) and the region's base and capacity, so that lane 0 keeps none of
/// it in registers across the task bodies.
pub const PROFILE_SMEM_BYTES: u32 = 80;

/// Shared memory per warp of the kernel: [`smem_per_warp`], plus [`PROFILE_SMEM_BYTES`] for the
/// profiled kernel.
#[must_use]
pub const fn smem_per_warp_of(queues: u32, profiled: bool) -> u32 {
    smem_per_warp(queues) + if profiled { PROFILE_SMEM_BYTES } else { 0 }
}

/// The header of a task slot (32 bytes; the frame follows it).
///
/// Written by the spawning lane with plain stores before the task is published; after that,
/// `pending` is the only field others change, always atomically (see `docs/gpu-runtime.md`).
///
/// What a step changes when it suspends (`state`, `pending`, `queue`, `flags`) lies in the
/// first 16 bytes with `kind`, so that a suspension is one 16-byte store (`step.rs`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Header {
    /// The task's [`KindId`](crate::task::KindId).
    pub kind: u32,
    /// The resume state (0 on first entry).
    pub state: u32,
    /// Children not yet finished (joined or detached). Not kept once a join completes: the
    /// counter of a task that is not waiting is stale until its next join writes it.
    pub pending: u32,
    /// The EPAQ queue the task goes to when its last child finishes (below `MAX_QUEUES`).
    pub queue: u16,
    /// [`FLAG_DONE`] once the task's body has returned (it waits only for detached children);
    /// [`FLAG_SHARED`]; in the kernel with sequential clones, the task's depth in the tree in
    /// the high byte ([`task_depth`]).
    pub flags: u16,
    /// The parent's slot, or [`NONE`] for the root (and in programs without joins).
    pub parent: u32,
    /// 0 (written by a spawn, not by an import, `peer`), or for a child a lane's clone handed
    /// to another warp (its parent a cell), that hand-off's generation, which the warp that
    /// takes it checks against the cell (`gpu/worker/clone.rs`); the lane-private records of
    /// a clone past its stack (`gpu/worker/solo.rs`) link their ready list through it. The
    /// second half is `parent`, this word and `result_dst`.
    pub reserved: u32,
    /// Where the task writes its result; 0 when it is discarded.
    pub result_dst: u64,
}

/// Size of [`Header`]; frames start this far into a slot.
pub const HEADER_BYTES: u32 = 32;
const _: () = assert!(core::mem::size_of::<Header>() == HEADER_BYTES as usize);
// A header is written and read as two 16-byte stores or loads (`step.rs`): with 16-aligned
// slot bases and strides (`Params::slot_bytes`), every header is 16-aligned.
const _: () = assert!(HEADER_BYTES % 16 == 0);
// ... whose first half is the words `kind`, `state`, `pending`, and `queue` with `flags` (one
// little-endian word), and whose second half packs `parent` and `reserved` into one
// little-endian `u64`, then `result_dst`.
const _: () = assert!(
    core::mem::offset_of!(Header, state) == 4
        && core::mem::offset_of!(Header, pending) == 8
        && core::mem::offset_of!(Header, queue) == 12
        && core::mem::offset_of!(Header, flags) == 14
        && core::mem::offset_of!(Header, parent) == 16
        && core::mem::offset_of!(Header, reserved) == 20
        && core::mem::offset_of!(Header, result_dst) == 24
);

/// [`Header::flags`]: the body returned; the slot lives on only for detached children.
pub const FLAG_DONE: u16 = 1;
/// [`Header::flags`] (work-first scheduler): a child of the task's current join was released
/// to the public part of a deque, so it may finish on another warp: every child completion
/// of this join uses the device-scope protocol (fence, atomic `pending`). Set only by the
/// warp that ran the task's last step (the join's owner), cleared when the task suspends
/// again.
pub const FLAG_SHARED: u16 = 2;
/// [`Header::flags`]: the task's depth below the root (saturating at 255) sits in this byte,
/// written by spawns of the kernel with sequential clones only (`gpu/worker/clone.rs`; 0 in
/// every other kernel, and in a header an import or a block worker writes). Writers of the
/// flag bits keep it (`|=`, or the bits passed on, `Warp::open_join_local`).
pub const FLAG_DEPTH_SHIFT: u16 = 8;

/// The depth in a header's flags ([`FLAG_DEPTH_SHIFT`]).
#[inline(always)]
pub const fn task_depth(flags: u16) -> u32 {
    (flags >> FLAG_DEPTH_SHIFT) as u32
}

/// Flags holding only `depth` (saturated to 255), for a new header ([`FLAG_DEPTH_SHIFT`]).
#[inline(always)]
pub const fn depth_flags(depth: u32) -> u16 {
    (if depth < 255 { depth } else { 255 } as u16) << FLAG_DEPTH_SHIFT
}

/// Work-first pools: the spill ring's and the arena's shared words (16 bytes).
///
/// The spill ring holds free slots (entry = slot + 1, 0 = empty) that a warp could not keep
/// in its private free stack; `spill_cap` (a power of two) is at least the number of slots,
/// so a pusher never overruns an entry that is still to be taken.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct SpillHeader {
    /// Next position to push to (add by pushers).
    pub push_pos: u32,
    /// Next position to take from (add by takers, after a successful claim on `avail`).
    pub pop_pos: u32,
    /// Entries pushed and not yet claimed (add by pushers, CAS by takers).
    pub avail: u32,
    /// The first slot of the arena not yet handed out (add by warps taking fresh slots).
    pub arena_next: u32,
}

/// One EPAQ queue of one warp (16 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct DequeHeader {
    /// Published, unclaimed entries; owner and thieves claim by CAS on it.
    pub count: u32,
    /// The steal end (a position, masked by `queue_cap - 1`); written under `lock` only.
    pub head: u32,
    /// The steal lock: 0 free, 1 held.
    pub lock: u32,
    /// Padding.
    pub pad: u32,
}

/// One global queue of the global-queue ablation (`Scheduler::GlobalQueue`, 16 bytes): a
/// FIFO ring of `gq_cap` entries (slot + 1; 0 = empty) shared by every worker.
///
/// Positions below `head` are claimed, `[head, tail)` committed and claimable, `[tail, alloc)`
/// reserved by pushers still writing. Pushers commit in order (each waits until `tail` is its
/// first position); a claimer zeroes each entry after reading it, and a pusher waits for zero
/// before writing, so a slow claimer's entry is never overwritten.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct GlobalQueueHeader {
    /// The next position to claim (CAS by claimers).
    pub head: u32,
    /// The end of the committed entries (release store by the committing pusher).
    pub tail: u32,
    /// The end of the reserved positions (add by pushers).
    pub alloc: u32,
    /// Padding.
    pub pad: u32,
}

/// The most GPUs (or partitions of one GPU) one run uses: the peer table's length.
pub const MAX_GPUS: usize = 8;

/// Run-wide control words (64 bytes, one line).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct Control {
    /// 1 once the root task (with its whole subtree) has finished.
    pub done: u32,
    /// The first error's code (0: none); workers stop once it is set.
    pub error: u32,
    /// Set by the host (watchdog) to stop the workers.
    pub abort: u32,
    /// Programs without joins: tasks spawned and not yet finished (starts at 1, the root).
    pub live: u32,
    /// Multi-GPU runs: another GPU's request for work, `epoch << 8 | share` (0: none), set
    /// (system scope) by the courier of a GPU whose workers ran out of work; each warp of
    /// the `share` 256ths it names exports once per epoch, at its release decision
    /// (`gpu/peer`).
    pub hungry: u32,
    /// Multi-GPU runs: tasks this GPU exported to its export queues for other GPUs.
    pub exported: u32,
    /// Multi-GPU runs: tasks this GPU imported from other GPUs (copied records).
    pub imported: u32,
    /// Multi-GPU runs: imports of this GPU (claims on another GPU's queue that took tasks).
    pub import_claims: u32,
    /// Set by the host while a run goes on (`park.rs`): 0 asks nothing; `1 + b` asks the
    /// workers of blocks `b..` to leave at their next batch boundary (`1`: every block, a
    /// pause). Work-first thread-level kernels on one GPU only.
    pub resize: u32,
    /// Warps that left the run and saved their state (park records), since the run began.
    pub parks: u32,
    /// Warps that took a saved state up again (a resume, or blocks that rejoined).
    pub joins: u32,
    /// Multi-GPU runs: reports of this GPU's idle warps whose local steals and refills found
    /// nothing, since its courier last looked (capped; device scope, `gpu/peer`).
    pub starving: u32,
    /// Multi-GPU runs: microseconds this GPU's courier found it hungry (written at its exit;
    /// a statistic).
    pub hungry_us: u32,
    /// Multi-GPU runs: requests for work this GPU's courier sent to other GPUs (a statistic).
    pub asks: u32,
    /// Multi-GPU runs of programs without joins, in place of [`Control::live`]: the low 32
    /// bits count this GPU's live tasks and its exports not yet acknowledged by the GPU that
    /// imported them, the high 32 bits count its imports (they only grow). One word, so that
    /// the first GPU's termination wave reads both at once (system scope, `gpu/peer`). Starts
    /// at 1 on the first GPU (the root), 0 elsewhere.
    pub live_here: u64,
}

/// The first device-side error of a run, in host-mapped memory so that it survives a trap.
///
/// The winner of the CAS on [`Control::error`] fills the fields, then writes `code` last with a
/// release store at system scope.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ErrorRecord {
    /// One of the `ERR_*` codes; 0 while no error was recorded.
    pub code: u32,
    /// The warp that hit it.
    pub warp: u32,
    /// The lane that hit it.
    pub lane: u32,
    /// The running (or spawned) task kind, when known (0 otherwise).
    pub kind: u32,
    /// The limit that was exceeded (capacity, queue count), when there is one.
    pub limit: u32,
    /// The offending value (queue index, position), when there is one.
    pub value: u32,
    /// Panics: the source line.
    pub line: u32,
    /// Panics: the source column.
    pub column: u32,
    /// Panics: the length of `file` used.
    pub file_len: u32,
    /// Panics: the end of the source file's path (its last [`PANIC_FILE_BYTES`] bytes).
    pub file: [u8; PANIC_FILE_BYTES],
}

/// Bytes of a panic's source path kept in the [`ErrorRecord`] (its end).
pub const PANIC_FILE_BYTES: usize = 96;

impl Default for ErrorRecord {
    fn default() -> Self {
        Self {
            code: 0,
            warp: 0,
            lane: 0,
            kind: 0,
            limit: 0,
            value: 0,
            line: 0,
            column: 0,
            file_len: 0,
            file: [0; PANIC_FILE_BYTES],
        }
    }
}

/// A warp's task pool is full (limit: `tasks_per_warp`).
pub const ERR_POOL_EXHAUSTED: u32 = 1;
/// A warp's deque is full (limit: its capacity).
pub const ERR_QUEUE_OVERFLOW: u32 = 2;
/// A spawn or a join named a queue `>= queues` (limit: queues, value: the index).
pub const ERR_INVALID_QUEUE: u32 = 3;
/// A task kind the program does not list (kind: the id).
pub const ERR_UNKNOWN_KIND: u32 = 4;
/// A task spawned more than `max_children` children in one step.
pub const ERR_TOO_MANY_CHILDREN: u32 = 5;
/// A task panicked (bounds check, overflow, unwrap...); the kernel trapped after recording it.
pub const ERR_PANIC: u32 = 6;
/// The scheduler found its own state inconsistent (a gtap bug).
pub const ERR_PROTOCOL: u32 = 7;

/// Per-warp counters, written once when the warp exits.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct WarpStats {
    /// Step calls.
    pub steps: u32,
    /// Tasks spawned.
    pub spawned: u32,
    /// Successful steal batches.
    pub steals: u32,
    /// Batches run.
    pub batches: u32,
}

/// Everything the kernel needs, in device memory; the kernel takes a pointer to it.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Params {
    /// Base of the slots.
    pub slots: u64,
    /// Bytes per slot: [`HEADER_BYTES`] + the frame stride, a multiple of 16 (the base is
    /// the allocation's, 256-aligned), so that every header is 16-aligned.
    pub slot_bytes: u32,
    /// Slots per warp pool.
    pub tasks_per_warp: u32,
    /// Per-warp free rings (`ring_cap` `u32` each; entry = slot + 1, 0 = empty).
    pub free_rings: u64,
    /// Per-warp free positions (`u32` each; others add to it when they free).
    pub free_pos: u64,
    /// Capacity of a free ring (a power of two `>= tasks_per_warp`).
    pub ring_cap: u32,
    /// EPAQ queues per warp.
    pub queues: u32,
    /// Deque headers, `[warp][queue]`.
    pub deques: u64,
    /// Deque rings, `[warp][queue][queue_cap]` `u32` slot indices.
    pub deque_rings: u64,
    /// Capacity of one deque ring (a power of two).
    pub queue_cap: u32,
    /// Warps in the grid.
    pub num_warps: u32,
    /// Per-warp progress counters (batches run).
    pub progress: u64,
    /// Per-warp [`WarpStats`].
    pub stats: u64,
    /// The [`Control`] block.
    pub control: u64,
    /// The host-mapped [`ErrorRecord`] (a device address).
    pub error: u64,
    /// The root's slot index.
    pub root_slot: u32,
    /// Children one step may spawn.
    pub max_children: u32,
    /// Profiled kernel only: per-warp [`BatchRecord`]s, `[warp][profile_cap + 1]` (the last
    /// of each warp is scratch for records that did not fit).
    pub profile: u64,
    /// Profiled kernel only: per-warp record counts (`u32`; may exceed `profile_cap`, the
    /// excess was dropped and is reported).
    pub profile_counts: u64,
    /// Profiled kernel only: records per warp.
    pub profile_cap: u32,
    /// Ablation (`Config::batched_claims = false`): 1 to claim deque entries one CAS each.
    pub single_claims: u32,
    /// Block-level workers only: bytes of one thread's copy of a joining block-level kind's
    /// frame (16-aligned); such a frame holds `block_threads` copies, thread `t`'s at
    /// `t * block_frame_stride`. 0 when no block-level kind joins.
    pub block_frame_stride: u32,
    /// Global-queue kernel only: capacity of each global ring (a power of two `>=` every slot
    /// of the run, so a push never finds the ring full).
    pub gq_cap: u32,
    /// Block-level workers only: one scratch slot per worker (`num_warps * slot_bytes`) that
    /// a refused spawn hands out, so that a block's threads stay on the same control path
    /// while the run drains after the error.
    pub scratch: u64,
    /// Global-queue kernel only: `queues` [`GlobalQueueHeader`]s.
    pub gq_headers: u64,
    /// Global-queue kernel only: the rings, `[queue][gq_cap]` `u32` (slot + 1; 0 = empty).
    pub gq_rings: u64,
    /// Work-first kernel: per-warp private free stacks, `[warp][stack_cap]` slot indices.
    pub free_stacks: u64,
    /// Work-first kernel: the [`SpillHeader`].
    pub spill: u64,
    /// Work-first kernel: the spill ring, `spill_cap` `u32` (slot + 1; 0 = empty).
    pub spill_ring: u64,
    /// Work-first kernel: capacity of a private free stack (a power of two).
    pub stack_cap: u32,
    /// Work-first kernel: capacity of the spill ring (a power of two `>=` every slot).
    pub spill_cap: u32,
    /// Work-first kernel: every slot of the run (`warps * tasks_per_warp` initial slots, the
    /// root's, then the arena up to this bound).
    pub total_slots: u32,
    /// Work-first kernel: fresh slots a warp takes from the arena at once.
    pub chunk: u32,
    /// Work-first kernel: release private tasks when the public count is below this.
    pub release_below: u32,
    /// Work-first kernel: how many private tasks a release moves, [`release_size`] of the
    /// shift and the whole-part bound.
    pub release_size: u32,
    /// Work-first kernel: steps a lane may run inline per batch (a held child, or a parent its
    /// inline children completed) before it hands the rest back to the batch loop; 0 turns
    /// inline execution off. At most [`MAX_INLINE_STEPS`].
    pub inline_steps: u32,
    /// Work-first kernel: 1 to run the last child of any step inline, 0 only a lone child.
    pub inline_last_child: u32,
    /// Work-first and shared-deque kernels: the longest sleep, in nanoseconds, of an idle
    /// worker between two steal rounds (the back-off doubles from 64 ns up to this). Read on
    /// the idle path only, through `params()`.
    pub idle_max_ns: u32,
    /// Random victims an idle worker tries per steal round before it backs off. Read on the
    /// idle path only, through `params()`.
    pub steal_tries: u32,
    /// Work-first kernel: per-lane arrays of free slots, `[warp][LANE_FREE_CAP][32]` `u32`
    /// (interleaved by lane so that the lanes of a warp touch one line per index).
    pub lane_frees: u64,
    /// Work-first kernel: 1 lets a worker whose deque fills half its ring spill to the
    /// overflow queues (`overflow.rs`; thread-level programs), 0 keeps the ring's capacity as
    /// a limit (`QueueOverflow`; block-level programs: a BFS of a 2048 x 2048 grid on
    /// 128-thread blocks, spilling, once gave wrong depths, see `docs/benchmarks.md`).
    pub overflow_spills: u32,
    /// GPUs of the run (1: one GPU, nothing below is read).
    pub gpus: u32,
    /// This GPU's index in the run (0 holds the root).
    pub gpu: u32,
    /// Bytes to add (wrapping) to a [`crate::data::Table`]'s address, the first GPU's copy,
    /// to reach this GPU's copy: `copy * span` of the runtime's replica space
    /// (`gtap-runtime`'s `gpu/replicas.rs`); 0 on the first GPU, on a one-GPU run and on
    /// every partition of one GPU.
    pub replica_offset: u64,
    /// Multi-GPU runs: `gpus` [`PeerInfo`], in this GPU's memory.
    pub peers: u64,
    /// Multi-GPU runs: this GPU's import table, `IMPORTS_PER_WARP * min(warps, IMPORT_WARPS)`
    /// `u64` entries (`(gpu + 1) << 32 | slot` of the task an import stands for; 0 = free),
    /// then its completion outbox (`GlobalQueues::outbox_of`).
    pub imports: u64,
    /// Work-first thread-level kernel: the park records, [`PARK_WORDS`] `u32` per warp
    /// (`park.rs`).
    pub parks: u64,

    /// The first block this launch's block 0 stands for (0, except for blocks that rejoin a
    /// running run: `park.rs`).
    pub block_base: u32,
    /// 1: this launch takes its warps' saved states up again (a resume, or rejoining
    /// blocks) instead of starting the run.
    pub resume: u32,
    /// The run's own params (the region the first launch reads): what every launch of the
    /// run, rejoining blocks included, stores for `params()`, the module-wide pointer that
    /// cold paths read. Copies for rejoining blocks differ only in `block_base` and `resume`,
    /// which are read from the kernel's argument alone, so a kernel never reads through
    /// `params()` a copy that another launch made (or that was allocated after it started).
    pub run: u64,
    /// Work-first kernel, several queues (EPAQ): release private tasks of a queue other than
    /// the one the warp runs next when its public count is below this (the warp will not run
    /// them soon, so thieves should). Read on the release path of such a queue only, through
    /// `params()`.
    pub release_other_below: u32,
    /// Multi-GPU runs: nanoseconds from the courier's start during which its GPU asks no
    /// other GPU for work (`Config::spread_after`), so that a short run stays on the first.
    pub spread_after_ns: u32,
    /// Work-first thread-level kernel on one GPU, programs with joins: 1 lets a lane run a
    /// child as a call of its sequential clone (`Config::gpu_clones`; `gpu/worker/clone.rs`).
    pub clones: u32,
    /// The children of a task at this depth or deeper (the root is at 0) are calls, unless
    /// its warp was asked for work (`Config::gpu_clone_depth`; at most 255).
    pub clone_depth: u32,
    /// Bytes of a lane's stack its clones may use below where the first one started
    /// (`Config::stack_bytes` less the kernel's own frame and a reserve).
    pub clone_stack: u32,
    /// With clones: 1 lets lanes in clones answer idle warps' requests by handing pieces
    /// off (`Config::gpu_hand_offs`).
    pub hand_offs: u32,
    /// With clones: one request word per warp (`u32`), set by idle warps, answered by the
    /// warp's clones (`gpu/worker/clone.rs`); then one more word, the children that lanes
    /// handed to other warps and still wait for (a warp does not park while one is out,
    /// `park.rs`).
    pub wanted: u64,
    /// With clones: one [`Cell`] per lane of the grid.
    pub cells: u64,
}

/// Words of one warp's park record (`park.rs`): its shared-memory scheduler words
/// (`PARK_SMEM_WORDS` at most), the flag, and the lanes' free-array counts.
pub const PARK_WORDS: u32 = 128;
/// Park record: the copy of the warp's shared-memory words comes first, this many at most.
pub const PARK_SMEM_WORDS: u32 = 64;
/// Park record: 1 while the record holds a saved state nobody took up yet.
pub const PARK_FLAG: u32 = 64;
/// Park record: the 32 lanes' free-array counts start here.
pub const PARK_LANES: u32 = 96;

const _: () = assert!(smem_per_warp(8) / 4 <= PARK_SMEM_WORDS && PARK_LANES + 32 <= PARK_WORDS);

/// [`Params::release_size`]: a release moves the whole private part when it holds fewer than
/// `all_below` tasks, otherwise `private >> shift` of them (at least one). `shift < 32`,
/// `all_below < 2^24` (the host checks both).
#[must_use]
pub const fn release_size(shift: u32, all_below: u32) -> u32 {
    shift | all_below << 8
}

/// The tasks a release of a private part of `private > 0` tasks moves under
/// [`Params::release_size`] `size` (the inverse of [`release_size`]).
#[inline(always)]
#[must_use]
pub const fn release_count(private: u32, size: u32) -> u32 {
    if private < size >> 8 {
        private
    } else {
        let n = private >> (size & 31);
        if n == 0 {
            1
        } else {
            n
        }
    }
}

/// Work-first kernel: free slots one lane may hold in its array (see `pool.rs`).
pub const LANE_FREE_CAP: u32 = 64;
/// Work-first kernel: free slots a lane keeps for its next batch; the rest go back to its
/// warp's free stack at the end of each batch.
pub const LANE_FREE_KEEP: u32 = 8;
/// The smallest `idle_max_ns` (`Config::idle_max_ns`): an idle worker refills from the
/// overflow queues only once its back-off reached 256 ns (`overflow.rs`), so a smaller bound
/// would leave spilled tasks stranded.
pub const MIN_IDLE_MAX_NS: u32 = 256;

/// The largest `idle_max_ns`: one `nanosleep` sleeps at most about a millisecond.
pub const MAX_IDLE_MAX_NS: u32 = 1_000_000;

/// The largest `inline_steps`: a lane frees at most one slot into its array per inline step,
/// so the array never overflows; and 32 lanes' surplus (`32 * MAX_INLINE_STEPS`) fits in half
/// a warp's free stack.
pub const MAX_INLINE_STEPS: u32 = LANE_FREE_CAP - LANE_FREE_KEEP;

const _: () = assert!(
    size_of::<BatchRecord>() == 56,
    "the host reads records as 56 bytes"
);

/// One batch of one warp, written by the profiled kernel (`gtap_thread_worker_profiled_<P>`).
///
/// Times are `%globaltimer` nanoseconds. `[idle_from, run_from)`: looking for work (popping,
/// stealing, backing off); `[run_from, run_to)`: the lanes' task bodies; `[run_to, end)`:
/// finishing (fence, frees, joins, publication). A last record with `tasks == 0` covers the
/// idle time before the warp left the loop.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BatchRecord {
    /// When the warp started looking for this batch's tasks.
    pub idle_from: u64,
    /// When it held them and started running the bodies.
    pub run_from: u64,
    /// When every lane's body had returned.
    pub run_to: u64,
    /// When the batch was finished and published.
    pub end: u64,
    /// Tasks run in the batch (lanes busy).
    pub tasks: u32,
    /// Of them, kept from the previous batch (not popped or stolen).
    pub kept: u32,
    /// Steal attempts since the previous record.
    pub steal_attempts: u32,
    /// Tasks stolen for this batch (0 when it came from the own deque).
    pub stolen: u32,
    /// Children spawned by the batch's steps.
    pub spawned: u32,
    /// Parents the batch's finishing children resumed (joins completed).
    pub joins: u32,
}

#[cfg(test)]
mod tests {
    use super::{release_count, release_size};

    #[test]
    fn release_count_follows_the_shift_and_the_whole_part_bound() {
        // The default: half, at least one.
        let half = release_size(1, 0);
        assert_eq!(release_count(1, half), 1);
        assert_eq!(release_count(7, half), 3);
        assert_eq!(release_count(1000, half), 500);
        // A quarter, but the whole part while it holds fewer than 64.
        let quarter = release_size(2, 64);
        assert_eq!(release_count(3, quarter), 3);
        assert_eq!(release_count(63, quarter), 63);
        assert_eq!(release_count(64, quarter), 16);
        assert_eq!(release_count(1 << 20, quarter), 1 << 18);
        // Shift 0 moves everything; the largest bound the host admits.
        assert_eq!(release_count(5, release_size(0, 0)), 5);
        let widest = release_size(31, (1 << 24) - 1);
        assert_eq!(release_count((1 << 24) - 2, widest), (1 << 24) - 2);
        assert_eq!(release_count(1 << 24, widest), 1);
    }
}
