//! The profiler's per-batch records (the `_profiled_` kernels): lane 0 of a warp, or thread 0
//! of a block, fills a [`BatchRecord`] in shared memory as the batch goes and copies it to the
//! worker's global region at the batch's end.
//!
//! # Invariants
//!
//! - One writer per worker (lane 0 or thread 0), so the record needs no synchronization; the
//!   host reads the regions only after the kernel has exited.
//! - No timestamp stays in a register across the task bodies: every field goes to shared
//!   memory when it is taken (a register held across the bodies cost 12% on fib).

use super::layout::{BatchRecord, Params};
use super::warp::Warp;
use crate::arch::nvptx as a;

/// The profiled kernel's per-warp state, all in the warp's shared memory (after the
/// scheduler's words): the record being filled, then the global region's base and capacity.
/// Lane 0 fills the record field by field as the batch goes and copies it out at the end, so
/// no timestamp stays in a register across the task bodies. The global region holds
/// `profile_cap + 1` records per warp; the last is scratch for records that no longer fit,
/// which are counted, not stored.
pub(crate) struct Prof<const BLOCK: bool> {
    /// Records finished so far.
    pub(crate) written: u32,
}

/// The thread-level worker's profiler (a record per warp, after the warp's scheduler words).
pub(crate) type WarpProf = Prof<false>;
/// The block-level worker's profiler (a record per block, after the block's collective area).
pub(crate) type BlockProf = Prof<true>;

/// Offsets (in bytes) of the profiler's words after the record in shared memory.
const PROF_BASE: usize = 56;
const PROF_CAP: usize = 64;

impl<const BLOCK: bool> Prof<BLOCK> {
    /// The record being filled, in shared memory: after the warp's scheduler words, or (block
    /// level) after the block's collective area.
    #[inline(always)]
    pub(crate) fn rec(w: &Warp) -> *mut BatchRecord {
        let offset = if BLOCK {
            super::layout::BLOCK_SMEM_BYTES
        } else {
            super::layout::smem_per_warp(w.queues)
        };
        w.smem.add((offset / 4) as usize).generic().cast()
    }

    /// Sets up the shared words and starts the first record.
    ///
    /// # Safety
    ///
    /// Lane 0, once, with the profiled kernel's shared memory.
    #[inline(always)]
    pub(crate) unsafe fn init(w: &Warp, p: &Params, idle_from: u64) {
        let r = Self::rec(w).cast::<u8>();
        // SAFETY: inside this warp's PROFILE_SMEM_BYTES.
        unsafe {
            r.add(PROF_BASE).cast::<u64>().write(p.profile);
            r.add(PROF_CAP).cast::<u32>().write(p.profile_cap);
            Self::start(w, idle_from);
        }
    }

    /// Starts a record at `idle_from`.
    ///
    /// # Safety
    ///
    /// Lane 0 of the profiled kernel.
    #[inline(always)]
    unsafe fn start(w: &Warp, idle_from: u64) {
        // SAFETY: the warp's shared record.
        unsafe {
            Self::rec(w).write(BatchRecord {
                idle_from,
                ..BatchRecord::default()
            });
        }
    }

    /// Copies the finished record to the warp's region (or only counts it when full) and
    /// starts the next at `end`.
    ///
    /// # Safety
    ///
    /// Lane 0 of the profiled kernel, after `init`.
    #[inline(always)]
    pub(crate) unsafe fn finish(&mut self, w: &Warp, end: u64) {
        let r = Self::rec(w);
        // SAFETY: the shared words written by `init`; the global slot is inside the region
        // (at most `cap`, the scratch record); plain stores, read by the host after exit.
        unsafe {
            (*r).end = end;
            let base = r.cast::<u8>().add(PROF_BASE).cast::<u64>().read();
            let cap = r.cast::<u8>().add(PROF_CAP).cast::<u32>().read();
            let at = w.warp as usize * (cap as usize + 1) + self.written.min(cap) as usize;
            (base as *mut BatchRecord).add(at).write(r.read());
            self.written = self.written.wrapping_add(1);
            Self::start(w, end);
        }
    }

    /// At the worker's exit: a last record with no tasks (the idle time before the worker
    /// left its loop), and the record count for the host.
    ///
    /// # Safety
    ///
    /// As for [`Prof::finish`]; `p` holds the profile counts (one `u32` per worker).
    #[inline(always)]
    pub(crate) unsafe fn close(&mut self, w: &Warp, p: &Params) {
        let now = a::globaltimer();
        let r = Self::rec(w);
        // SAFETY: the worker's shared record and its entry of the counts; plain stores, read
        // by the host after the kernel exits.
        unsafe {
            (*r).run_from = now;
            (*r).run_to = now;
            (*r).tasks = 0;
            self.finish(w, now);
            (p.profile_counts as *mut u32)
                .add(w.warp as usize)
                .write(self.written);
        }
    }
}
