//! The work-first scheduler's task pools: slots with no owner, a private free stack per warp,
//! and two shared sources behind it (the spill ring and the arena).
//!
//! # Where a slot comes from (`alloc_wf`, any lane, in a task body)
//!
//! 1. The warp's **private free stack** (LIFO, warp-owned global memory, its top in shared
//!    memory): one shared-memory atomic, one plain load. No device-scope operation.
//! 2. The warp's **fresh range** `[fresh_next, fresh_end)` (shared memory): the warp's
//!    initial `tasks_per_warp` slots, later chunks of `chunk` slots taken from the arena.
//! 3. The **slow path**, one slot: the spill ring (a claim on `avail`, a position, the entry)
//!    or the arena (`arena_next`). Neither left: `ERR_POOL_EXHAUSTED` (limit: every slot of
//!    the run, which `Config::gpu_pool_bytes` sizes).
//!
//! 0. Before all of these, the lane's own **free array** (see below): a plain load.
//!
//! # Where a slot goes (`free_batch_wf`, every lane, after the bodies)
//!
//! A slot freed *during* the bodies (a task a lane ran inline finished, see `worker/lane.rs`) goes
//! to the lane's own free array (`lane_frees`, warp-owned global memory, the count in a
//! register): the warp's stack cannot take pushes while other lanes pop it. At the end of the
//! batch, `drain_lane_frees` moves every array's surplus over [`LANE_FREE_KEEP`] to the
//! warp's stack, all lanes copying in parallel; a lane keeps a few for its next batch.
//!
//! Whoever finishes a task keeps its slot: the lanes push their finished slots onto the warp's
//! own stack (positions from a ballot, one shared-memory update by lane 0). Slots migrate
//! between warps with stolen tasks, so no warp's pool runs dry while another's overflows:
//! a stack that would overflow spills half of itself to the spill ring, which every warp takes
//! from on its slow path.
//!
//! # Invariants
//!
//! - Allocation (task bodies) and freeing (after the batch's warp barrier) never overlap
//!   within a warp, so the stack's top only goes down in one phase and up in the other; the
//!   top may go negative while lanes race past an empty stack, and is clamped before frees.
//! - A slot is in at most one place: a stack, the spill ring, a fresh range, or in use.
//! - Memory model: a slot freed onto the own stack is reused by the same warp (program order
//!   and `bar.warp.sync`). A slot that crosses warps through the spill ring is released by the
//!   pusher's `fence.acq_rel.gpu` *before* it writes the entry and acquired by the taker's
//!   fence *after* it read the entry (fence-fence synchronization through the entry), so the
//!   slot's old contents never land on top of its new ones. The allocator only writes a slot
//!   before anyone reads it, so stale lines in its L1 are never read.

use core::ptr::addr_of_mut;

use super::layout::{
    Control, SpillHeader, ERR_POOL_EXHAUSTED, ERR_PROTOCOL, LANE_FREE_CAP, LANE_FREE_KEEP, NONE,
};
use super::warp::{stop_requested, Warp, FULL};
use crate::arch::nvptx as a;

/// Shared word: the next fresh slot.
pub(crate) const W_FRESH: usize = 0;
/// Shared word: the end of the fresh range.
pub(crate) const W_FRESH_END: usize = 1;
/// Shared word: the private free stack's top (an `i32`; negative after lanes raced past an
/// empty stack, clamped to 0 before frees).
pub(crate) const W_TOP: usize = 2;
/// Refill the fresh range from the arena when fewer slots than this are at hand.
const REFILL_BELOW: u32 = 64;
/// Fresh slots a lane takes from the arena at once for lane-private records
/// ([`Warp::alloc_lane_chunk`]).
pub(crate) const LANE_CHUNK: u32 = 32;
/// Spins on an entry of the spill ring before the run is checked for a stop.
const SPIN_CHECK: u32 = 1024;
/// Shared-deque ablation: spins on an empty free-ring entry before the scheduler reports
/// itself broken.
const MAX_RING_SPINS: u32 = 1 << 22;

impl Warp {
    #[inline(always)]
    fn stack(&self, i: u32) -> *mut u32 {
        self.free_stacks
            .wrapping_add(self.warp as usize * self.stack_cap as usize + i as usize)
    }

    #[inline(always)]
    fn spill_entry(&self, pos: u32) -> *mut u32 {
        self.spill_ring()
            .wrapping_add((pos & (self.spill_cap() - 1)) as usize)
    }

    /// Entry `i` of this lane's free array.
    #[inline(always)]
    fn lane_free_entry(&self, i: u32) -> *mut u32 {
        self.lane_frees.wrapping_add(
            ((self.warp as usize * LANE_FREE_CAP as usize + i as usize) << 5) + self.lane as usize,
        )
    }

    /// Any lane, in a task body: puts `slot` (a finished task's, read by nobody any more) in
    /// this lane's free array, which holds `n` slots; the caller adds one to `n`.
    ///
    /// # Safety
    ///
    /// `n < LANE_FREE_CAP` (the inline budget guarantees it, see `MAX_INLINE_STEPS`).
    #[inline(always)]
    pub(crate) unsafe fn lane_free_put(&self, n: u32, slot: u32) {
        // SAFETY: inside this lane's array; a plain store, read back only by this lane.
        unsafe { self.lane_free_entry(n).write(slot) }
    }

    /// Any lane, in a task body: the newest slot of this lane's free array, which holds `n > 0`
    /// slots; the caller subtracts one from `n`.
    ///
    /// # Safety
    ///
    /// `0 < n <= LANE_FREE_CAP`.
    #[inline(always)]
    pub(crate) unsafe fn lane_free_take(&self, n: u32) -> u32 {
        // SAFETY: an entry this lane wrote (program order).
        unsafe { self.lane_free_entry(n - 1).read() }
    }

    /// Every lane (converged), after [`Warp::free_batch_wf`]: moves each lane's free slots
    /// over [`LANE_FREE_KEEP`] from its array to the warp's private stack; returns the lane's
    /// new count.
    ///
    /// # Safety
    ///
    /// The warp is converged, no lane allocates meanwhile, and `n` is this lane's count.
    #[inline(always)]
    pub(crate) unsafe fn drain_lane_frees(&self, n: u32) -> u32 {
        let surplus = n.saturating_sub(LANE_FREE_KEEP);
        if a::vote_sync_ballot_b32(FULL, surplus > 0) == 0 {
            return n;
        }
        // Inclusive prefix sum of the surplus over the lanes (five shuffles).
        let mut incl = surplus;
        let mut d = 1;
        while d < 32 {
            let v = a::shfl_sync_idx_b32(FULL, incl, self.lane.saturating_sub(d));
            if self.lane >= d {
                incl += v;
            }
            d <<= 1;
        }
        let total = a::shfl_sync_idx_b32(FULL, incl, 31);
        let mut top = 0u32;
        if self.lane == 0 {
            // SAFETY: this warp's shared word.
            // Ordering: relaxed, scope .cta; `free_batch_wf` left it non-negative and its last
            // warp barrier ordered every lane's update before this load.
            top = unsafe { a::ld_shared_u32(self.smem.add(W_TOP)) };
        }
        top = a::shfl_sync_idx_b32(FULL, top, 0);
        if top + total > self.stack_cap {
            // total <= 32 * MAX_INLINE_STEPS <= stack_cap / 2, so top > stack_cap / 2 here
            // and one spill makes room.
            // SAFETY: the stack's entries below `top` are this warp's free slots.
            top = unsafe { self.spill_half(top) };
        }
        let first = top + incl - surplus;
        let mut i = 0;
        // SAFETY: for both loops, entries of this lane's array (written by it), positions below
        // `top + total <= stack_cap`; plain accesses, read by this warp after a barrier.
        unsafe {
            // Four loads before their stores, so that their latencies overlap.
            while i + 4 <= surplus {
                let e = |k: u32| self.lane_free_entry(LANE_FREE_KEEP + i + k).read();
                let (s0, s1, s2, s3) = (e(0), e(1), e(2), e(3));
                self.stack(first + i).write(s0);
                self.stack(first + i + 1).write(s1);
                self.stack(first + i + 2).write(s2);
                self.stack(first + i + 3).write(s3);
                i += 4;
            }
            while i < surplus {
                let slot = self.lane_free_entry(LANE_FREE_KEEP + i).read();
                self.stack(first + i).write(slot);
                i += 1;
            }
        }
        a::bar_warp_sync(FULL);
        if self.lane == 0 {
            // SAFETY: this warp's shared word.
            // Ordering: relaxed, scope .cta; read by the lanes after the next warp barrier.
            unsafe { a::st_shared_u32(self.smem.add(W_TOP), top + total) };
        }
        a::bar_warp_sync(FULL);
        n - surplus
    }

    /// Lane 0, once at the start: the warp's initial fresh range and an empty stack.
    ///
    /// # Safety
    ///
    /// The warp's shared words are valid.
    pub(crate) unsafe fn init_pool_wf(&self) {
        // SAFETY: this warp's shared words.
        unsafe {
            // Ordering: relaxed, scope .cta; published to the lanes by the warp barrier after.
            a::st_shared_u32(self.smem.add(W_FRESH), self.warp * self.n);
            a::st_shared_u32(self.smem.add(W_FRESH_END), (self.warp + 1) * self.n);
            a::st_shared_u32(self.smem.add(W_TOP), 0);
        }
    }

    /// Any lane, in a task body: a free slot, or [`NONE`] (error recorded).
    ///
    /// # Safety
    ///
    /// Called only while the warp runs bodies (no frees in flight).
    #[inline(always)]
    pub(crate) unsafe fn alloc_wf(&self, kind: u32) -> u32 {
        // SAFETY: for the whole body, the warp's shared words and stack; positions below the top
        // hold slots pushed by this warp's earlier free phases.
        unsafe {
            // Ordering: relaxed, scope .cta; the top is touched by this warp's lanes only.
            let top = a::atom_shared_add_u32(self.smem.add(W_TOP), u32::MAX) as i32;
            if top > 0 {
                // A plain load: written by a lane of this warp before an earlier warp barrier.
                return self.stack(top as u32 - 1).read();
            }
            // Ordering: relaxed, scope .cta; as above. The end changes only between batches.
            let f = a::atom_shared_add_u32(self.smem.add(W_FRESH), 1);
            if f < a::ld_shared_u32(self.smem.add(W_FRESH_END)) {
                return f;
            }
            self.alloc_slow(kind)
        }
    }

    /// One slot from the spill ring or the arena (a lane whose warp's own slots ran out).
    #[cold]
    unsafe fn alloc_slow(&self, kind: u32) -> u32 {
        let sp = self.spill();
        // SAFETY: for the whole body, the spill header and ring are valid for the run.
        unsafe {
            loop {
                // Ordering: relaxed, scope .gpu; the CAS below decides.
                let avail = a::ld_relaxed_gpu_u32(addr_of_mut!((*sp).avail));
                if avail == 0 {
                    break;
                }
                // Ordering: relaxed, scope .gpu; claims one entry that a pusher has written or
                // will write (its position is below `push_pos`); the slot's contents are
                // acquired by the fence after the entry is read.
                if a::atom_relaxed_gpu_cas_u32(addr_of_mut!((*sp).avail), avail, avail - 1) == avail
                {
                    // Ordering: relaxed, scope .gpu; a position only.
                    let pos = a::atom_relaxed_gpu_add_u32(addr_of_mut!((*sp).pop_pos), 1);
                    return self.take_spilled(pos);
                }
            }
            // Ordering: relaxed, scope .gpu; hands out fresh slots, nobody else reads them.
            let s = a::atom_relaxed_gpu_add_u32(addr_of_mut!((*sp).arena_next), 1);
            if s < self.total_slots() {
                return s;
            }
            self.record_error(ERR_POOL_EXHAUSTED, kind, self.total_slots(), s);
            NONE
        }
    }

    /// The slot at claimed position `pos` of the spill ring (its entry zeroed for the next
    /// pusher), acquired; [`NONE`] when the run stopped while waiting for its pusher.
    unsafe fn take_spilled(&self, pos: u32) -> u32 {
        let e = self.spill_entry(pos);
        let mut spins = 0u32;
        // SAFETY: a claimed position of the ring; only this lane takes it.
        unsafe {
            loop {
                // Ordering: relaxed, scope .gpu; the pusher's fence came before its store of
                // the entry, our fence comes after this load: fence-fence synchronization.
                let v = a::ld_relaxed_gpu_u32(e);
                if v != 0 {
                    // Ordering: relaxed, scope .gpu; the pusher `spill_cap` positions later
                    // waits for this zero before it writes.
                    a::st_relaxed_gpu_u32(e, 0);
                    // Acquire side: the slot's old contents (released by the pusher).
                    a::fence_acq_rel_gpu();
                    return v - 1;
                }
                spins += 1;
                if spins % SPIN_CHECK == 0 && self.should_stop() {
                    return NONE;
                }
            }
        }
    }

    /// Writes `slot` at the reserved position `pos` of the spill ring (see [`put_spilled`]).
    unsafe fn put_spilled(&self, pos: u32, slot: u32) {
        // SAFETY: forwarded.
        unsafe { put_spilled(self.spill_entry(pos), self.control, slot) }
    }

    /// Every lane (converged), after the batch's bodies and warp barrier: pushes each lane's
    /// finished `slot` (or [`NONE`]) onto the warp's private free stack, spilling half of the
    /// stack to the spill ring first when it would overflow.
    ///
    /// # Safety
    ///
    /// The warp is converged, no lane allocates meanwhile, and `slot` is a finished task's
    /// slot that nobody reads any more.
    #[inline(always)]
    pub(crate) unsafe fn free_batch_wf(&self, slot: u32) {
        let mine = slot != NONE && slot != self.root_slot;
        let mask = a::vote_sync_ballot_b32(FULL, mine);
        let mut top = 0u32;
        if self.lane == 0 {
            // SAFETY: this warp's shared word.
            // Ordering: relaxed, scope .cta; the bodies' decrements came before the barrier.
            let t = unsafe { a::ld_shared_u32(self.smem.add(W_TOP)) } as i32;
            top = t.max(0) as u32;
        }
        top = a::shfl_sync_idx_b32(FULL, top, 0);
        let k = mask.count_ones();
        if top + k > self.stack_cap {
            // SAFETY: the stack's entries below `top` are this warp's free slots.
            top = unsafe { self.spill_half(top) };
        }
        if mine {
            let i = top + (mask & a::lanemask_lt()).count_ones();
            // SAFETY: i < stack_cap (checked above); a plain store, read by this warp's lanes
            // after a later warp barrier.
            unsafe { self.stack(i).write(slot) };
        }
        a::bar_warp_sync(FULL);
        if self.lane == 0 {
            // SAFETY: this warp's shared word.
            // Ordering: relaxed, scope .cta; read by the lanes after the next warp barrier.
            unsafe { a::st_shared_u32(self.smem.add(W_TOP), top + k) };
        }
        a::bar_warp_sync(FULL);
    }

    /// One lane (a join's leader freeing a parent whose body had returned): pushes `slot` on
    /// the private stack, or on the spill ring when the stack is full.
    ///
    /// # Safety
    ///
    /// After [`Warp::free_batch_wf`] of the same batch (the top is clamped), converged or not.
    pub(crate) unsafe fn free_one_wf(&self, slot: u32) {
        if slot == self.root_slot {
            return;
        }
        // SAFETY: for the whole body, the warp's shared top and stack; the spill header and ring.
        unsafe {
            // Ordering: relaxed, scope .cta; other leaders of this batch may push too.
            let t = a::atom_shared_add_u32(self.smem.add(W_TOP), 1);
            if t < self.stack_cap {
                self.stack(t).write(slot);
                return;
            }
            a::atom_shared_add_u32(self.smem.add(W_TOP), u32::MAX);
            spill_slot(slot);
        }
    }

    /// Any lane, in a task body (a clone's lane-private records and hand-offs,
    /// `worker/clone.rs`): a slot for a new task, from the lane's free array (`lane_free`
    /// slots) or the warp's pools; [`NONE`] when none is left (the error is recorded).
    ///
    /// # Safety
    ///
    /// The warp runs bodies; `*lane_free` is this lane's count.
    #[inline(always)]
    pub(crate) unsafe fn alloc_in_body(&self, kind: u32, lane_free: &mut u32) -> u32 {
        if *lane_free > 0 {
            // SAFETY: `0 < *lane_free <= LANE_FREE_CAP`.
            let s = unsafe { self.lane_free_take(*lane_free) };
            *lane_free -= 1;
            return s;
        }
        // SAFETY: forwarded.
        unsafe { self.alloc_wf(kind) }
    }

    /// One lane, outside the batch's phases (a clone's lane-private records, `worker/solo.rs`):
    /// a slot, and when the lane's free array is empty, [`LANE_CHUNK`] fresh slots from the
    /// arena with one device-scope add, the rest kept in the array. A chain of records
    /// allocated one by one took three device-scope atomics a record on the slow path (a
    /// chain step cost 4.2 us on an H200); a chunk takes one per [`LANE_CHUNK`] records.
    ///
    /// # Safety
    ///
    /// The warp runs bodies; `*lane_free` is this lane's count.
    #[inline(always)]
    pub(crate) unsafe fn alloc_lane_chunk(&self, kind: u32, lane_free: &mut u32) -> u32 {
        if *lane_free > 0 {
            // SAFETY: `0 < *lane_free <= LANE_FREE_CAP`.
            let s = unsafe { self.lane_free_take(*lane_free) };
            *lane_free -= 1;
            return s;
        }
        let sp = self.spill();
        // SAFETY: the spill header is valid; fresh slots nobody else names; the array is empty.
        unsafe {
            // Ordering: relaxed, scope .gpu; hands out fresh slots only.
            let s = a::atom_relaxed_gpu_add_u32(addr_of_mut!((*sp).arena_next), LANE_CHUNK);
            if s < self.total_slots() {
                let end = s.saturating_add(LANE_CHUNK).min(self.total_slots());
                for slot in s + 1..end {
                    self.lane_free_put(*lane_free, slot);
                    *lane_free += 1;
                }
                return s;
            }
            self.alloc_wf(kind)
        }
    }

    /// One lane, outside the batch's phases: frees `slot` (read by nobody any more) into the
    /// lane's free array, first moving half of a full array to the spill ring at once
    /// ([`Warp::spill_lane_frees`]).
    ///
    /// # Safety
    ///
    /// As for [`Warp::alloc_lane_chunk`].
    #[inline(always)]
    pub(crate) unsafe fn free_lane_chunk(&self, slot: u32, lane_free: &mut u32) {
        // SAFETY: forwarded; below the capacity after the spill.
        unsafe {
            if *lane_free >= LANE_FREE_CAP {
                self.spill_lane_frees(lane_free, LANE_FREE_CAP / 2);
            }
            self.lane_free_put(*lane_free, slot);
        }
        *lane_free += 1;
    }

    /// One lane: moves the entries of its free array above the first `keep` to the spill ring,
    /// with one reservation of positions and one count for all of them.
    ///
    /// # Safety
    ///
    /// `*lane_free` is this lane's count; the slots it holds are read by nobody any more.
    #[cold]
    #[inline(never)]
    pub(crate) unsafe fn spill_lane_frees(&self, lane_free: &mut u32, keep: u32) {
        if *lane_free <= keep {
            return;
        }
        let n = *lane_free - keep;
        let sp = self.spill();
        // SAFETY: the spill header and ring are valid; the array's entries are this lane's.
        unsafe {
            // Release: the slots' contents, before their entries (as `spill_slot`).
            a::fence_acq_rel_gpu();
            // Ordering: relaxed, scope .gpu; positions only.
            let base = a::atom_relaxed_gpu_add_u32(addr_of_mut!((*sp).push_pos), n);
            for i in 0..n {
                self.put_spilled(base.wrapping_add(i), self.lane_free_entry(keep + i).read());
            }
            // Ordering: relaxed, scope .gpu; takers spin on the entries themselves.
            a::atom_relaxed_gpu_add_u32(addr_of_mut!((*sp).avail), n);
        }
        *lane_free = keep;
    }

    /// Every lane (converged): moves the upper half of the private stack (`[top - half,
    /// top)`) to the spill ring; returns the new top.
    #[cold]
    unsafe fn spill_half(&self, top: u32) -> u32 {
        let half = self.stack_cap / 2;
        let from = top - half;
        let sp = self.spill();
        // Release: every slot in the stack was finished by this warp before now.
        a::fence_acq_rel_gpu();
        let mut base = 0;
        if self.lane == 0 {
            // SAFETY: the spill header is valid.
            // Ordering: relaxed, scope .gpu; positions only.
            base = unsafe { a::atom_relaxed_gpu_add_u32(addr_of_mut!((*sp).push_pos), half) };
        }
        base = a::shfl_sync_idx_b32(FULL, base, 0);
        let mut i = self.lane;
        while i < half {
            // SAFETY: stack entries below `top`; reserved ring positions.
            unsafe { self.put_spilled(base.wrapping_add(i), self.stack(from + i).read()) };
            i += 32;
        }
        a::bar_warp_sync(FULL);
        if self.lane == 0 {
            // SAFETY: the spill header is valid.
            // Ordering: relaxed, scope .gpu; takers spin on the entries themselves.
            unsafe { a::atom_relaxed_gpu_add_u32(addr_of_mut!((*sp).avail), half) };
        }
        from
    }

    /// Lane 0, between batches: clamps the shared words the bodies raced past, and takes a
    /// new fresh range from the arena when the warp's own slots run low.
    ///
    /// # Safety
    ///
    /// Lane 0, no lane allocating.
    #[inline(always)]
    pub(crate) unsafe fn refill_wf(&self) {
        // SAFETY: for the whole body, the warp's shared words and the spill header.
        unsafe {
            // Ordering: relaxed, scope .cta; this warp's own words, between phases.
            let f = a::ld_shared_u32(self.smem.add(W_FRESH));
            let end = a::ld_shared_u32(self.smem.add(W_FRESH_END));
            let top = a::ld_shared_u32(self.smem.add(W_TOP)) as i32;
            let fresh = end.saturating_sub(f);
            if f > end {
                a::st_shared_u32(self.smem.add(W_FRESH), end);
            }
            if top < 0 {
                a::st_shared_u32(self.smem.add(W_TOP), 0);
            }
            if fresh == 0 && (top.max(0) as u32) < REFILL_BELOW {
                let sp = self.spill();
                // Ordering: relaxed, scope .gpu; hands out fresh slots only.
                let s = a::atom_relaxed_gpu_add_u32(addr_of_mut!((*sp).arena_next), self.chunk());
                if s < self.total_slots() {
                    let e = s.saturating_add(self.chunk()).min(self.total_slots());
                    a::st_shared_u32(self.smem.add(W_FRESH), s);
                    a::st_shared_u32(self.smem.add(W_FRESH_END), e);
                }
            }
        }
    }
}

/// Writes `slot` at the spill ring's entry `e`, a reserved position, once the taker of the
/// entry's previous occupant has zeroed it. The caller fenced before (release).
///
/// # Safety
///
/// `e` is a position this thread reserved (its only writer); `control` is the run's.
unsafe fn put_spilled(e: *mut u32, control: *mut Control, slot: u32) {
    let mut spins = 0u32;
    // SAFETY: a reserved position (this lane is its only writer).
    unsafe {
        // Ordering: relaxed, scope .gpu; the previous occupant was claimed (the ring holds
        // every slot at once), so its taker zeroes it without waiting on us.
        while a::ld_relaxed_gpu_u32(e) != 0 {
            spins += 1;
            if spins % SPIN_CHECK == 0 && stop_requested(control) {
                return;
            }
        }
        // Ordering: relaxed, scope .gpu; after the pusher's fence.acq_rel.gpu.
        a::st_relaxed_gpu_u32(e, slot + 1);
    }
}

/// Any thread, at any time: gives `slot` (a finished task's, read by nobody any more) to the
/// spill ring, which every warp's slow path takes slots from.
///
/// # Safety
///
/// The run's params are set (`set_params`); `slot` is in no other place (see the invariants).
#[cold]
pub(crate) unsafe fn spill_slot(slot: u32) {
    // SAFETY: the run's params, its spill header and ring.
    unsafe {
        let p = &*super::params();
        let sp = p.spill as *mut SpillHeader;
        // Release: the slot's contents, before its entry.
        a::fence_acq_rel_gpu();
        // Ordering: relaxed, scope .gpu; a position only.
        let pos = a::atom_relaxed_gpu_add_u32(addr_of_mut!((*sp).push_pos), 1);
        let e = (p.spill_ring as *mut u32).wrapping_add((pos & (p.spill_cap - 1)) as usize);
        put_spilled(e, p.control as *mut Control, slot);
        // Ordering: relaxed, scope .gpu; takers spin on the entry itself.
        a::atom_relaxed_gpu_add_u32(addr_of_mut!((*sp).avail), 1);
    }
}

// The shared-deque ablation's pools (`Scheduler::SharedDeque`, GTaP's): slot `i` belongs to
// warp `i / tasks_per_warp`; only the owner allocates (a block-scope counter in shared memory,
// fresh slots first, then its free ring), and any warp frees a slot back to its owner's ring
// (one device-scope add for the position, one store of the entry after the batch's fence).
impl Warp {
    /// Takes a free slot of this warp's pool, or [`NONE`] (error recorded).
    pub(crate) unsafe fn alloc(&self, kind: u32) -> u32 {
        // SAFETY: for the whole body, the shared words, the free ring and free position of this warp
        // are valid for the run; positions are masked into the ring.
        unsafe {
            // Ordering: relaxed, scope .cta; the counter is touched by this warp's lanes only.
            let pos = a::atom_shared_add_u32(self.smem, 1);
            if pos < self.n {
                return self.warp * self.n + pos;
            }
            // Ordering: relaxed, scope .cta; a cache of the free position (monotonic).
            let mut fp = a::ld_shared_u32(self.smem.add(1));
            if pos >= fp {
                // Ordering: relaxed, scope .gpu; a stale value only under-reports free slots,
                // and the ring entry itself is read with acquire below.
                fp = a::ld_relaxed_gpu_u32(self.free_pos.add(self.warp as usize));
                // Ordering: relaxed, scope .cta; keeps the cache monotonic.
                a::atom_shared_max_u32(self.smem.add(1), fp);
                if pos >= fp {
                    self.record_error(ERR_POOL_EXHAUSTED, kind, self.n, pos);
                    return NONE;
                }
            }
            let e = self.free_rings.add(
                self.warp as usize * self.ring_cap as usize + (pos & (self.ring_cap - 1)) as usize,
            );
            let mut spins = 0;
            loop {
                // Ordering: relaxed, scope .gpu. The entry was stored after the freeing warp's
                // fence.acq_rel.gpu, so the slot's previous contents had reached L2 before we
                // can see it; we only *write* the slot here (no stale L1 read), and whoever
                // runs it later acquires through the queue. An acquire would invalidate the
                // SM's L1 on every spawn.
                let v = a::ld_relaxed_gpu_u32(e);
                if v != 0 {
                    // Ordering: relaxed, scope .gpu; the entry is ours (one allocator per
                    // position) and the next writer is a free `ring_cap` positions later.
                    a::st_relaxed_gpu_u32(e, 0);
                    return v - 1;
                }
                spins += 1;
                if spins > MAX_RING_SPINS {
                    self.record_error(ERR_PROTOCOL, kind, 0, pos);
                    return NONE;
                }
            }
        }
    }

    /// Returns `slot` to its owner's pool.
    pub(crate) unsafe fn free(&self, slot: u32) {
        if slot == self.root_slot {
            return;
        }
        let owner = slot / self.n;
        // SAFETY: owner < warps; the ring position is masked into the owner's ring.
        unsafe {
            // Ordering: relaxed, scope .gpu; only claims a ring position.
            let q = a::atom_relaxed_gpu_add_u32(self.free_pos.add(owner as usize), 1);
            let e = self
                .free_rings
                .add(owner as usize * self.ring_cap as usize + (q & (self.ring_cap - 1)) as usize);
            // Ordering: relaxed, scope .gpu; `free` runs only after the batch's
            // fence.acq_rel.gpu (the release of everything written to the slot).
            a::st_relaxed_gpu_u32(e, slot + 1);
        }
    }

    /// Every lane of the warp calls this (converged) after the batch's fence: lanes with
    /// `slot != NONE` give it back to its owner's pool, one device-scope add per owner.
    pub(crate) unsafe fn free_warp(&self, slot: u32) {
        let mine = slot != NONE && slot != self.root_slot;
        let owner = if mine { slot / self.n } else { NONE };
        let peers = a::match_any_sync_b32(FULL, owner);
        let leader = peers.trailing_zeros();
        let mut base = 0;
        if mine && self.lane == leader {
            // SAFETY: owner < warps.
            // Ordering: relaxed, scope .gpu; claims ring positions for the whole group.
            base = unsafe {
                a::atom_relaxed_gpu_add_u32(self.free_pos.add(owner as usize), peers.count_ones())
            };
        }
        base = a::shfl_sync_idx_b32(FULL, base, leader);
        if mine {
            let q = base.wrapping_add((peers & a::lanemask_lt()).count_ones());
            // SAFETY: the owner's ring; the position is masked.
            unsafe {
                let e = self.free_rings.add(
                    owner as usize * self.ring_cap as usize + (q & (self.ring_cap - 1)) as usize,
                );
                // Ordering: relaxed, scope .gpu; after the batch's fence.acq_rel.gpu, which
                // releases everything written to the slot.
                a::st_relaxed_gpu_u32(e, slot + 1);
            }
        }
    }
}
