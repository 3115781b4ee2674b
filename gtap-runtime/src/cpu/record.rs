//! Task records of the CPU executor and the per-worker arenas they live in.
//!
//! A record is a [`Header`] followed by the frame: `stride` bytes (from the probe), 16-aligned,
//! at offset [`HEADER_BYTES`]. The record size is rounded up to a 64-byte cache line so that
//! two records never share a line (workers on different threads touch neighbouring records).
//!
//! # Ownership of a record
//!
//! - Created by `spawn_raw` on the spawning worker, written there, and *published* (pushed on a
//!   deque) only after the spawning step returned.
//! - Run by exactly one worker at a time: the one that popped or stole it, or the one whose
//!   decrement of `pending` reached zero (that worker re-enqueues it).
//! - Freed by the worker that finishes it (see `worker.rs`), into that worker's free list.
//!
//! A *join cell* is a record without a frame's use: a header whose `state` is [`JOIN_CELL`],
//! standing in as the parent of records that a step running as a call waits for
//! (`context.rs`). Its `pending` counts them; it never runs, and the worker that waits on it
//! frees it once the count is zero.
//!
//! # Arenas
//!
//! Each worker allocates from its own [`Arena`]: its free list first, then a bump pointer over
//! chunks. A record freed on another worker goes to *that* worker's free list. At the end of a
//! run (completed or aborted) every arena is [`Arena::reset`]: the free list is forgotten and
//! the bump pointer starts over, so an aborted run leaks nothing. Chunks are kept for the next
//! run and freed when the executor is dropped.

use core::ptr::NonNull;
use core::sync::atomic::AtomicU32;
use std::alloc::Layout;

use gtap_device::task::KindId;

/// `Header::state` of a task that returned `Done` while detached children still run: it is
/// kept alive until they finish and then finishes itself (tells its parent).
pub(crate) const ZOMBIE: u32 = u32::MAX;

/// `Header::state` of a join cell (see the module docs): a finishing child whose parent is a
/// cell only decrements its `pending`, and must not touch it afterwards.
pub(crate) const JOIN_CELL: u32 = u32::MAX - 1;

/// The scheduler's part of a task record.
#[repr(C, align(16))]
pub(crate) struct Header {
    /// The task's kind, for `Program::dispatch`.
    pub(crate) kind: KindId,
    /// Resume state: 0 on first entry, the `resume_state` of the last `wait`, or [`ZOMBIE`].
    pub(crate) state: u32,
    /// The EPAQ queue of the task's next step (validated; the CPU executor keeps one deque per
    /// worker and does not order by it).
    pub(crate) queue: u32,
    /// Children not finished yet (each counts once its whole subtree is done). Set before the
    /// children are published; decremented by each finishing child.
    pub(crate) pending: AtomicU32,
    /// The parent's record; null for the root.
    pub(crate) parent: *mut Header,
    /// Where the task's result goes; null when discarded.
    pub(crate) result_dst: *mut u8,
}

impl Header {
    /// The header of a task of `kind` that has not run yet: state 0, no children.
    #[inline]
    pub(crate) fn fresh(
        kind: KindId,
        queue: u32,
        parent: *mut Header,
        result_dst: *mut u8,
    ) -> Self {
        Self {
            kind,
            state: 0,
            queue,
            pending: AtomicU32::new(0),
            parent,
            result_dst,
        }
    }

    /// The header of a join cell counting `pending` records (see the module docs).
    pub(crate) fn cell(pending: u32) -> Self {
        Self {
            kind: 0,
            state: JOIN_CELL,
            queue: 0,
            pending: AtomicU32::new(pending),
            parent: core::ptr::null_mut(),
            result_dst: core::ptr::null_mut(),
        }
    }
}

/// Where the frame starts in a record.
pub(crate) const HEADER_BYTES: usize = size_of::<Header>();
const _: () = assert!(
    HEADER_BYTES.is_multiple_of(16),
    "frames must stay 16-aligned"
);

/// How far ahead of a fresh record the bump allocator asks for its line (32 records of 64
/// bytes). A deep chain writes a record per level that no cache holds: the write waits on the
/// line's fetch, and the stores behind it fill the store buffer. Asking early took the chain
/// of 10^6 on one worker from 38-42 to 27.7-28.3 ns a step on the 2-core VM; 1 to 4 KiB ahead
/// did about as well, 8 KiB less (`docs/runs/cpu-record-prefetch-2core.txt`).
const PREFETCH_AHEAD_BYTES: usize = 2048;

/// Asks the core to bring the line at `addr` into its cache for writing (`prefetchw` on
/// x86-64; nothing elsewhere). A hint: any address may be given, none is dereferenced.
#[inline(always)]
fn prefetch_for_write(addr: *const u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch dereferences nothing and never faults, whatever the address.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_ET0 }>(addr.cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = addr;
}

/// Records are padded to a cache line (64 bytes on x86-64 and most aarch64 cores).
const RECORD_ALIGN: usize = 64;

/// The size of a record whose frames have `stride` bytes.
pub(crate) fn record_bytes(stride: usize) -> usize {
    (HEADER_BYTES + stride).next_multiple_of(RECORD_ALIGN)
}

/// A pointer to a live record, as kept on the deques.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TaskPtr(pub(crate) NonNull<Header>);

// SAFETY: a record is handed between workers through the deques, which synchronise; only the
// worker that holds the `TaskPtr` it popped touches the record's non-atomic fields.
unsafe impl Send for TaskPtr {}

impl TaskPtr {
    /// The record's header.
    #[inline]
    pub(crate) fn header(self) -> *mut Header {
        self.0.as_ptr()
    }

    /// The record's frame, 16-aligned, `stride` bytes.
    #[inline]
    pub(crate) fn frame(self) -> *mut u8 {
        // SAFETY: every record is `record_bytes(stride)` bytes, so the frame offset stays
        // inside it.
        unsafe { self.0.as_ptr().cast::<u8>().add(HEADER_BYTES) }
    }
}

/// One chunk of an arena.
struct Chunk {
    ptr: NonNull<u8>,
    layout: Layout,
}

/// Smallest chunk, in bytes.
const CHUNK_BYTES: usize = 256 * 1024;

/// A worker's record allocator (see the module docs).
pub(crate) struct Arena {
    chunks: Vec<Chunk>,
    /// The chunk the bump pointer is in.
    current: usize,
    /// Offset of the next unused record in `chunks[current]`.
    bump: usize,
    /// `chunks[current]`'s start, or null before the first chunk.
    bump_base: *mut u8,
    /// How far `bump` may go in this chunk: its size, or less where this run's budget ends
    /// first (0 before the first chunk). One test on the fresh path checks both.
    bump_end: usize,
    /// Record size of this run.
    record: usize,
    free: Vec<NonNull<Header>>,
    /// Records this run took from the free list.
    reused: u64,
    /// Bytes of fresh records this run in the chunks before `current` (a multiple of `record`:
    /// a chunk's tail too small for a record is not counted).
    fresh_before: usize,
    /// The most fresh bytes this run may take (this worker's share of
    /// `Config::cpu_pool_bytes`).
    limit_bytes: usize,
}

// SAFETY: the arena uniquely owns its chunks; its pointers are only dereferenced by workers
// that own the records (see the module docs).
unsafe impl Send for Arena {}

impl Arena {
    pub(crate) fn new() -> Self {
        Self {
            chunks: Vec::new(),
            current: 0,
            bump: 0,
            bump_base: core::ptr::null_mut(),
            bump_end: 0,
            record: record_bytes(0),
            free: Vec::new(),
            reused: 0,
            fresh_before: 0,
            limit_bytes: usize::MAX,
        }
    }

    /// Forgets every record and sets the record size and the byte budget for the next run.
    pub(crate) fn reset(&mut self, record: usize, limit_bytes: usize) {
        debug_assert!(record.is_multiple_of(RECORD_ALIGN));
        self.free.clear();
        self.record = record;
        self.reused = 0;
        self.fresh_before = 0;
        self.limit_bytes = limit_bytes;
        self.enter_chunk(0);
    }

    /// Records handed out this run, reused ones included.
    pub(crate) fn allocated(&self) -> u64 {
        self.reused + ((self.fresh_before + self.bump) / self.record) as u64
    }

    /// An uninitialised record of this run's size, 64-aligned; `None` when this worker's share
    /// of the pool is used up and its free list is empty.
    #[inline]
    pub(crate) fn alloc(&mut self) -> Option<NonNull<Header>> {
        if let Some(ptr) = self.free.pop() {
            self.reused += 1;
            return Some(ptr);
        }
        // The bump within the current chunk and the budget, inline: the path of every fresh
        // record (a deep chain makes one a level); the next chunk is the cold path.
        match self.bump_in_chunk() {
            Some(record) => Some(record),
            None => self.bump_alloc(),
        }
    }

    /// The next record of the current chunk, if it has room for one within the budget.
    #[inline(always)]
    fn bump_in_chunk(&mut self) -> Option<NonNull<Header>> {
        let next = self.bump + self.record;
        if next > self.bump_end {
            return None;
        }
        // SAFETY: `bump_base` is the current chunk's start and `bump_end` at most its size
        // (non-zero only with a chunk), and the record ends at `next <= bump_end`.
        let ptr = unsafe { self.bump_base.add(self.bump) };
        self.bump = next;
        prefetch_for_write(ptr.wrapping_add(PREFETCH_AHEAD_BYTES));
        // SAFETY: derived from a non-null chunk pointer by an in-bounds offset.
        Some(unsafe { NonNull::new_unchecked(ptr.cast::<Header>()) })
    }

    /// Makes `chunks[index]` (when there is one) the chunk the bump pointer is in, at its start,
    /// with `bump_end` where the chunk or the budget ends.
    fn enter_chunk(&mut self, index: usize) {
        self.current = index;
        self.bump = 0;
        let budget = self.limit_bytes.saturating_sub(self.fresh_before);
        (self.bump_base, self.bump_end) = self
            .chunks
            .get(index)
            .map_or((core::ptr::null_mut(), 0), |c| {
                (c.ptr.as_ptr(), c.layout.size().min(budget))
            });
    }

    /// A never-used record from the next chunk with room (a chunk kept from a run of smaller
    /// records may have none), growing the chunks when needed; `None` when the budget is spent.
    #[cold]
    #[inline(never)]
    fn bump_alloc(&mut self) -> Option<NonNull<Header>> {
        loop {
            if self.fresh_before + self.bump + self.record > self.limit_bytes {
                return None;
            }
            let next = if self.bump_base.is_null() {
                0
            } else {
                self.current + 1
            };
            if next == self.chunks.len() {
                self.grow();
            }
            self.fresh_before += self.bump;
            self.enter_chunk(next);
            if let Some(record) = self.bump_in_chunk() {
                return Some(record);
            }
        }
    }

    /// Returns a record of this run to the free list.
    #[inline]
    pub(crate) fn free(&mut self, ptr: NonNull<Header>) {
        self.free.push(ptr);
    }

    fn grow(&mut self) {
        let bytes = CHUNK_BYTES.max(self.record);
        let layout = Layout::from_size_align(bytes, RECORD_ALIGN).expect("chunk layout");
        // SAFETY: `layout` has a non-zero size.
        let ptr = unsafe { std::alloc::alloc(layout) };
        let Some(ptr) = NonNull::new(ptr) else {
            std::alloc::handle_alloc_error(layout)
        };
        self.chunks.push(Chunk { ptr, layout });
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        for chunk in &self.chunks {
            // SAFETY: allocated in `grow` with exactly this layout, freed once.
            unsafe { std::alloc::dealloc(chunk.ptr.as_ptr(), chunk.layout) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_are_disjoint_aligned_and_reused() {
        let mut arena = Arena::new();
        let rec = record_bytes(48);
        arena.reset(rec, usize::MAX);
        let mut seen: Vec<usize> = (0..10_000)
            .map(|_| arena.alloc().unwrap().as_ptr() as usize)
            .collect();
        assert!(seen.iter().all(|p| p % 64 == 0));
        seen.sort_unstable();
        assert!(seen.windows(2).all(|w| w[1] - w[0] >= rec));
        let a = arena.alloc().unwrap();
        arena.free(a);
        assert_eq!(arena.alloc(), Some(a));
        assert_eq!(
            arena.allocated(),
            10_002,
            "10,001 fresh records and one reused"
        );
        let chunks = arena.chunks.len();
        arena.reset(rec, usize::MAX);
        for _ in 0..10_001 {
            arena.alloc().unwrap();
        }
        assert_eq!(
            arena.chunks.len(),
            chunks,
            "a reset arena reuses its chunks"
        );
    }

    #[test]
    fn records_larger_than_the_kept_chunks_get_chunks_of_their_own() {
        let mut arena = Arena::new();
        arena.reset(record_bytes(0), usize::MAX);
        for _ in 0..(CHUNK_BYTES / record_bytes(0)) * 2 {
            arena.alloc().unwrap();
        }
        assert_eq!(arena.chunks.len(), 2);
        // A record larger than a chunk: neither kept chunk holds one.
        let big = (CHUNK_BYTES + 1).next_multiple_of(RECORD_ALIGN);
        arena.reset(big, usize::MAX);
        let records: Vec<usize> = (0..3)
            .map(|_| arena.alloc().unwrap().as_ptr() as usize)
            .collect();
        assert_eq!(arena.chunks.len(), 5, "one chunk of its size per record");
        assert_eq!(arena.allocated(), 3);
        for (i, &r) in records.iter().enumerate() {
            let chunk = &arena.chunks[2 + i];
            assert_eq!(r, chunk.ptr.as_ptr() as usize);
            assert!(chunk.layout.size() >= big);
        }
    }

    #[test]
    fn the_budget_ends_inside_a_later_chunk() {
        let mut arena = Arena::new();
        let rec = record_bytes(0);
        let budget = CHUNK_BYTES / rec + 3;
        arena.reset(rec, budget * rec);
        let mut fresh = 0;
        while arena.alloc().is_some() {
            fresh += 1;
        }
        assert_eq!(
            fresh, budget,
            "the budget spans a chunk and three records of the next"
        );
        assert_eq!(arena.allocated(), budget as u64);
        assert_eq!(arena.chunks.len(), 2);
    }

    #[test]
    fn the_budget_bounds_fresh_records_but_not_reuse() {
        let mut arena = Arena::new();
        let rec = record_bytes(0);
        arena.reset(rec, 3 * rec);
        let a = arena.alloc().unwrap();
        arena.alloc().unwrap();
        arena.alloc().unwrap();
        assert_eq!(arena.alloc(), None, "a fourth fresh record is over budget");
        arena.free(a);
        assert_eq!(
            arena.alloc(),
            Some(a),
            "a freed record is reused within budget"
        );
        assert_eq!(arena.allocated(), 4);
        arena.reset(rec, 3 * rec);
        assert_eq!(arena.allocated(), 0);
        assert!(arena.alloc().is_some(), "reset restores the budget");
    }
}
