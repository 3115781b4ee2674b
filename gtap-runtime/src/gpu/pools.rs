//! The device memory of a run (`gtap_device::gpu::layout` has the table): the pools sized
//! from `Config` once per shape and reused, the work-first slot budget, the overflow and
//! multi-GPU rings, and their release.
//!
//! Invariant: a shape's regions are allocated together and freed together (`free_pools`);
//! a run resets what it needs on its stream before its launch (`launch.rs`): the deque
//! headers, progress counters and statistics share one allocation and one memset, and the
//! spill and queue headers live in the runtime's run block (`readback::Headers`), written with
//! the control block in one copy.

use core::mem::offset_of;

use super::*;

/// The shape of the pools a run needs.
#[derive(Clone, Copy)]
pub(super) struct PoolShape {
    /// Workers: warps, or blocks for block-level programs (a deque each).
    pub(super) workers: u32,
    /// Pools: one per worker, or (work first) one per warp, block-level workers' warps
    /// included.
    pub(super) pool_warps: u32,
    /// Task records per pool (work first: the initial fresh range of each).
    pub(super) n: u32,
    pub(super) queues: u32,
    /// Entries of each deque (rounded up to a power of two, at least 64).
    pub(super) queue_entries: u32,
    pub(super) wf: bool,
    /// A multi-GPU run: the completion inbox and the import table too.
    pub(super) multi: bool,
    /// A multi-GPU run's record size ([`Part::record_bytes`]); 0: the program's own, or
    /// (work first on one GPU) the pools' when at most twice that.
    pub(super) record_bytes: u32,
}

impl PoolShape {
    /// The shared-deque and global-queue pools: `n` records per worker.
    pub(super) fn per_worker(workers: u32, n: u32, queues: u32, queue_entries: u32) -> Self {
        Self {
            workers,
            pool_warps: workers,
            n,
            queues,
            queue_entries,
            wf: false,
            multi: false,
            record_bytes: 0,
        }
    }
}

/// Device regions of one pool shape (see `layout.rs`).
pub(super) struct Pools {
    pub(super) warps: u32,
    /// Pools (see [`PoolShape::pool_warps`]).
    pub(super) pool_warps: u32,
    pub(super) slot_bytes: u32,
    pub(super) queues: u32,
    pub(super) n: u32,
    /// Global-queue kernel: the queues' headers (in the run block) and rings (0 when not
    /// allocated) and the rings' capacity.
    pub(super) gq_headers: u64,
    pub(super) gq_rings: u64,
    pub(super) gq_cap: u32,
    /// One scratch slot per worker (block-level workers; see `layout::Params::scratch`).
    pub(super) scratch: u64,
    pub(super) ring_cap: u32,
    pub(super) queue_cap: u32,
    pub(super) slots: u64,
    pub(super) free_rings: u64,
    pub(super) free_pos: u64,
    /// The deque headers, then the progress counters, then the per-warp statistics: one
    /// allocation of `zeroed_words` words, zeroed by one memset before every run.
    pub(super) deques: u64,
    pub(super) deque_rings: u64,
    pub(super) progress: u64,
    pub(super) stats: u64,
    pub(super) zeroed_words: usize,
    /// Work-first pools (0 when not allocated): private free stacks, the spill header (in
    /// the run block) and ring, and the sizes.
    pub(super) wf: bool,
    pub(super) free_stacks: u64,
    pub(super) lane_frees: u64,
    pub(super) spill: u64,
    pub(super) spill_ring: u64,
    pub(super) spill_cap: u32,
    pub(super) total_slots: u32,
    /// The spill ring may hold entries of the last run (zeroed before the next). Set at
    /// every launch and cleared only when the run ended with the ring empty, so a run that
    /// stopped early (a hang, a fault, an error) leaves it to be zeroed.
    pub(super) spill_dirty: bool,
    /// The same for the global (ablation) or overflow (work first) queues' rings.
    pub(super) gq_dirty: bool,
    /// Multi-GPU runs (0 otherwise): the completion inbox (a [`GlobalQueueHeader`], then
    /// `inbox_cap` `u32`), its capacity (every slot), and whether a run left entries in it.
    pub(super) inbox: u64,
    pub(super) inbox_cap: u32,
    pub(super) inbox_dirty: bool,
    /// Multi-GPU runs: the import table (`import_entries` `u64`, zeroed every run).
    pub(super) imports: u64,
    pub(super) import_entries: u32,
    /// Work first, thread-level: the park records (`layout::PARK_WORDS` per warp), and
    /// whether a run may have left flags set in them (zeroed before the next).
    pub(super) parks: u64,
    pub(super) parks_dirty: bool,
    /// The warps' request words for sequential clones, with their hand-off count
    /// (`layout::Params::wanted`; in the deques' allocation, zeroed every run), and, work
    /// first, the lanes' hand-off cells (`layout::Params::cells`, zeroed once).
    pub(super) wanted: u64,
    pub(super) cells: u64,
}

/// Work-first pools: slots each warp starts with, and the arena chunk it takes when out.
pub(super) const WF_INITIAL_SLOTS: u32 = 256;
/// Work first, block-level workers: the default entries of each block's deques (the shared
/// deque's largest pool). A block's private part grows along its depth-first walk (a BFS of a
/// 2048 x 2048 grid on blocks of 128 threads outgrows even 65536: `QueueOverflow`); block-level
/// programs do not spill to the overflow queues (`layout::Params::overflow_spills`).
pub(super) const WF_BLOCK_QUEUE_ENTRIES: u32 = 16384;
/// Work-first pools: the capacity of a warp's private free stack.
pub(super) const WF_STACK_CAP: u32 = 4096;
// The lanes' surplus of one batch fits in half a stack (`pool.rs`, `drain_lane_frees`).
const _: () = assert!(32 * MAX_INLINE_STEPS <= WF_STACK_CAP / 2);
/// Work-first pools: the default share of free device memory, and its cap.
pub(super) const WF_DEFAULT_POOL_CAP: usize = 8 << 30;

impl Inner {
    /// The pools for `warps` warps and frames of `stride` bytes, reusing the last ones when
    /// the shape is the same.
    /// Work first: the bytes of task records all pools together may hold
    /// ([`Config::gpu_pool_bytes`], or a quarter of the free device memory up to 8 GiB).
    pub(super) fn wf_pool_bytes(&self) -> Result<usize> {
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

    pub(super) fn pools(&mut self, stride: usize, shape: PoolShape) -> Result<()> {
        let PoolShape {
            workers: warps,
            pool_warps,
            n,
            queues,
            queue_entries,
            wf,
            multi,
            record_bytes,
        } = shape;
        let slot_bytes = u32::try_from(slot_bytes(stride)).map_err(|_| Error::InvalidConfig {
                field: "block_threads",
                value: self.config.block_threads.to_string(),
                expected: "fewer threads per block: a joining block-level task's record (one frame per thread) exceeds 4 GiB",
            })?;
        // Several GPUs use the record size their run agreed on (at least this program's).
        let slot_bytes = if multi && record_bytes >= slot_bytes {
            record_bytes
        } else {
            slot_bytes
        };
        let global = self.config.scheduler == Scheduler::GlobalQueue;
        if let Some(p) = &self.pools {
            // Work first, records up to twice the size this program needs serve it too (its
            // frames fit; the pools hold at least half as many records): programs that take
            // turns on one runtime keep one set of pools, where each switch cost a
            // reallocation of gigabytes (about 10 ms a run on one GPU, 19 ms on two
            // partitions). Several GPUs reuse only the size their run agreed on.
            let slots_fit = p.slot_bytes == slot_bytes
                || (wf && !multi && record_serves(p.slot_bytes, slot_bytes));
            if p.warps == warps
                && p.pool_warps == pool_warps
                && p.queue_cap == queue_entries.next_power_of_two().max(64)
                && slots_fit
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
            // Graphs name the pools' regions (`replay.rs`).
            self.graphs.clear();
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
            let slots = wf_slots(budget, slot_bytes as usize, rings).min(CELL_BASE as usize - 1);
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
            zeroed_words: 0,
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
            wanted: 0,
            cells: 0,
        };
        let r = (|| -> Result<()> {
            p.slots = dev_alloc(total_slots as usize * slot_bytes as usize)?;
            if wf {
                p.spill_cap = total_slots.next_power_of_two();
                let pw = pool_warps as usize;
                p.free_stacks = dev_alloc(pw * WF_STACK_CAP as usize * 4)?;
                p.lane_frees = dev_alloc(pw * 32 * LANE_FREE_CAP as usize * 4)?;
                p.spill = self.run_block + offset_of!(readback::Headers, spill) as u64;
                p.parks = dev_alloc(pw * PARK_WORDS as usize * 4)?;
                // SAFETY: the records hold pw * PARK_WORDS u32; no flag is set.
                check("cuMemsetD32", unsafe {
                    sys::cuMemsetD32_v2(p.parks, 0, pw * PARK_WORDS as usize)
                })?;
                // Sequential clones' hand-off cells: zeroed once (a cell's generation goes on
                // from where the last run left it; its request words are zeroed every run,
                // below).
                p.cells = dev_alloc(pw * 32 * size_of::<Cell>())?;
                // SAFETY: the cells hold pw * 32 * 16 u32.
                check("cuMemsetD32", unsafe {
                    sys::cuMemsetD32_v2(p.cells, 0, pw * 32 * size_of::<Cell>() / 4)
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
            // Zeroed before every run, so one allocation (and one memset): the deque headers,
            // the progress counters, the sequential clones' request words and hand-off count
            // (`layout::Params::wanted`), the statistics, each 16-byte aligned.
            let deque_bytes = (w * queues as usize * size_of::<DequeHeader>()).next_multiple_of(16);
            let progress_bytes = (w * 4).next_multiple_of(16);
            let wanted_bytes = ((w + 1) * 4).next_multiple_of(16);
            let zeroed = deque_bytes + progress_bytes + wanted_bytes + w * size_of::<WarpStats>();
            p.deques = dev_alloc(zeroed)?;
            p.progress = p.deques + deque_bytes as u64;
            p.wanted = p.progress + progress_bytes as u64;
            p.stats = p.wanted + wanted_bytes as u64;
            p.zeroed_words = zeroed.div_ceil(4);
            p.deque_rings = dev_alloc(w * queues as usize * queue_cap as usize * 4)?;
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
                // The headers live in the run block, which holds every queue's.
                debug_assert!(rings <= 2 * crate::config::MAX_QUEUES as usize);
                p.gq_headers = self.run_block + offset_of!(readback::Headers, queues) as u64;
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
}

/// Whether task records of `have` bytes serve a program whose records need `need`: its frames
/// fit, and pools of them hold at least half as many records as pools sized for it.
pub(super) fn record_serves(have: u32, need: u32) -> bool {
    have >= need && u64::from(have) <= 2 * u64::from(need)
}

/// The bytes of one task record (slot) whose frames take `frame_bytes`: the header, then the
/// frame rounded up to 16 bytes and at least 16, because a lane that resumes a parent inline
/// prefetches the frame's first bytes (`Warp::prefetch_frame`) and that address must lie in
/// the slot.
pub(super) fn slot_bytes(frame_bytes: usize) -> usize {
    HEADER_BYTES as usize + frame_bytes.max(16).next_multiple_of(16)
}

/// Bytes of a multi-GPU run's import region: the import table (`entries` `u64`), then the
/// completion outbox (a [`GlobalQueueHeader`] and a ring of `entries` rounded up to a power of
/// two `u32`; `gtap-device`'s `GlobalQueues::outbox_of`). Zeroed before every run.
pub(super) fn imports_bytes(entries: u32) -> usize {
    entries as usize * 8 + size_of::<GlobalQueueHeader>() + entries.next_power_of_two() as usize * 4
}

/// The global-queue rings of a run's pools: one overflow (or global) queue per EPAQ queue,
/// and in a multi-GPU run as many export queues after them (`gtap-device`'s `gpu/peer`).
pub(super) fn gq_rings(queues: u32, multi: bool) -> u32 {
    queues * (1 + u32::from(multi))
}

/// Work first: the task slots that `budget` bytes hold when each slot also needs an entry in
/// each of the `queues` overflow queues, whose capacity is a power of two at least the number
/// of slots (`gtap-device/src/gpu/overflow.rs`): the slots and the queues' rings together fit
/// in the budget.
pub(super) fn wf_slots(budget: usize, slot_bytes: usize, queues: usize) -> usize {
    let mut slots = (budget / (slot_bytes + 4 * queues)).min(1 << 31);
    let rings = 4 * queues * slots.next_power_of_two();
    if slots * slot_bytes + rings > budget {
        slots = budget.saturating_sub(rings) / slot_bytes;
    }
    slots
}

pub(super) fn dev_alloc(bytes: usize) -> Result<u64> {
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
pub(super) fn auto_tasks_per_block(workers: u32, frame_bytes: usize) -> Result<u32> {
    let (mut free, mut total) = (0usize, 0usize);
    // SAFETY: out-pointers; the context is bound by the caller.
    check("cuMemGetInfo", unsafe {
        sys::cuMemGetInfo_v2(&raw mut free, &raw mut total)
    })?;
    let n = free / 4 / (workers.max(1) as usize * slot_bytes(frame_bytes));
    Ok(n.clamp(256, 16384) as u32)
}

pub(super) fn free_pools(p: &Pools) {
    for d in [
        p.slots,
        p.free_rings,
        p.free_pos,
        // (The progress counters and statistics share the deques' allocation; the spill and
        // queue headers live in the run block, freed with the runtime.)
        p.deques,
        p.deque_rings,
        p.scratch,
        p.gq_rings,
        p.free_stacks,
        p.lane_frees,
        p.spill_ring,
        p.inbox,
        p.imports,
        p.parks,
        p.cells,
    ] {
        if d != 0 {
            // SAFETY: allocated by `dev_alloc`, freed once (the Pools value is dropped after).
            unsafe {
                let _ = sys::cuMemFree_v2(d);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::wf_slots;

    /// The slots and the overflow queues' rings (a power of two of entries, at least the
    /// slots, per queue) fit in the budget, and the budget is not wasted by more than the
    /// rings' rounding.
    #[test]
    pub(super) fn wf_slots_and_overflow_rings_fit_the_budget() {
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
