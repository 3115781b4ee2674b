//! Leaving a run at a batch boundary and taking it up again: pause and resume, and elastic
//! workers (the offer-kill / request-fork of cooperative kernels). Work-first thread-level
//! kernels on one GPU.
//!
//! # Leaving (a park)
//!
//! The host asks through [`Control::resize`]: `1 + b` asks every warp of blocks `b..` to
//! leave (`1`: all of them, a pause). A warp looks at its stop checks (every
//! `STOP_CHECK_EVERY` batches, and whenever idle), so it leaves between two batches, where
//! its state is only:
//!
//! - its **kept** tasks: the newest children of its last batch, still in its own ring just
//!   above the tail (`worker/thread.rs`, the publish step); they go back to the private part;
//! - its **private** deque parts: every entry is released to the public part with the
//!   ordinary release (`deque.rs`: ancestors marked shared, a `fence.acq_rel.gpu` on every
//!   lane, then the `count` add), so any warp can steal them while this one is away;
//! - its **shared-memory words** (tails, pool ranges, the free stack's top), copied to the
//!   warp's park record, and each lane's free-array count;
//! - programs without joins: its live-task debt, flushed to `Control::live`.
//!
//! Then every lane fences, and lane 0 sets the record's flag with a release store and counts
//! the park in [`Control::parks`]. Nothing of the warp is left anywhere but in device memory
//! that other warps reach through the ordinary protocols: public deque entries, task records,
//! and its pool's free slots (its free stack and lane arrays, which stay reserved for it).
//!
//! # Taking a state up again (a rejoin)
//!
//! A launch with [`Params::resume`] set (a resume after a pause: the whole grid; or blocks
//! that rejoin a running run: [`Params::block_base`] names the first) starts each warp from
//! its record instead of from scratch: lane 0 waits for the flag (acquire; a warp asked to
//! leave may still be finishing its batch), every lane fences, the words go back to shared
//! memory and the counts to the lanes, the flag is cleared and the rejoin counted in
//! [`Control::joins`]. A warp whose run has stopped, or whose block is asked to stay away,
//! exits without touching the record (so a pause that comes before a rejoining block was
//! ever scheduled leaves that block's record for the resume).
//!
//! # Invariants
//!
//! - A record is taken up at most once per park: only the warp with that index reads it, and
//!   the host launches a warp index in at most one running kernel at a time (it waits for a
//!   leave's parks before it asks the same blocks back).
//! - After a park, none of the warp's tasks is private: stealing is the only way to them, so
//!   the run finishes with any set of warps present (at least one).
//!
//! [`Control::resize`]: super::layout::Control::resize
//! [`Control::parks`]: super::layout::Control::parks
//! [`Control::joins`]: super::layout::Control::joins
//! [`Params::resume`]: super::layout::Params::resume
//! [`Params::block_base`]: super::layout::Params::block_base

use core::ptr::addr_of_mut;

use super::layout::{smem_per_warp, Control, Params, PARK_FLAG, PARK_LANES, PARK_WORDS};
use super::warp::{stop_requested, Warp, FULL};
use crate::arch::nvptx as a;

/// A stop check's answer: the run is over (done, an error, the host's abort).
pub(crate) const LEAVE_STOP: u32 = 1;
/// A stop check's answer: this warp's block is asked to leave (park).
pub(crate) const LEAVE_PARK: u32 = 2;
/// Back-off while a rejoining warp waits for its record's flag.
const FLAG_WAIT_NS: u32 = 1000;

impl Warp {
    /// Word `i` of this warp's park record.
    #[inline(always)]
    fn park_word(&self, i: u32) -> *mut u32 {
        // SAFETY: the params are valid for the run (every copy has the same `parks`).
        park_word(unsafe { (*super::params()).parks }, self.warp, i)
    }

    /// Lane 0, at a stop check: 0 (run on), [`LEAVE_STOP`] or, when `parkable` (a work-first
    /// thread-level kernel of a one-GPU run), [`LEAVE_PARK`] when the host asks this warp's
    /// block to leave.
    #[inline(always)]
    pub(crate) fn leave_code(&self, parkable: bool) -> u32 {
        if stop_requested(self.control) {
            return LEAVE_STOP;
        }
        // A warp does not park while a lane anywhere waits for a child it handed off to
        // another warp (`worker/clone.rs`): that child, or a piece of its subtree, may be
        // this warp's to run. Clones hand nothing off once a park is asked, so the count only
        // falls.
        if parkable && park_asked(self.control, self.warp) && !super::worker::hand_offs_out() {
            return LEAVE_PARK;
        }
        0
    }

    /// Every lane (converged), at a stop check: lane 0's [`Warp::leave_code`], for every lane.
    #[inline(always)]
    pub(crate) fn warp_leave_code(&self, parkable: bool) -> u32 {
        let mut code = 0;
        if self.lane == 0 {
            code = self.leave_code(parkable);
        }
        a::shfl_sync_idx_b32(FULL, code, 0)
    }

    /// Every lane (converged), after the worker loop left with [`LEAVE_PARK`]: publishes the
    /// warp's `kept` tasks (queue `cur_q`) and private parts, saves its shared words and each
    /// lane's `lane_free` count in its park record, and sets the record's flag.
    ///
    /// # Safety
    ///
    /// Between batches: the `kept` tasks are the ring entries just above queue `cur_q`'s tail
    /// (the publish step's keep), no lane is in a body, and the warp is converged.
    #[inline(never)]
    pub(crate) unsafe fn park(&self, kept: u32, cur_q: u32, lane_free: u32) {
        if self.lane == 0 && kept > 0 {
            // SAFETY: lane 0 owns the warp's shared words; the kept entries are in the ring.
            unsafe {
                let sq = self.sm_queue(cur_q);
                // Ordering: relaxed, scope .cta; lane 0's own words.
                a::st_shared_u32(sq, a::ld_shared_u32(sq).wrapping_add(kept));
                self.add_private(cur_q, kept);
            }
        }
        for q in 0..self.queues {
            let mut r = 0;
            if self.lane == 0 {
                // SAFETY: lane 0's own word.
                // Ordering: relaxed, scope .cta.
                r = unsafe { a::ld_shared_u32(self.sm_private(q)) };
            }
            r = a::shfl_sync_idx_b32(FULL, r, 0);
            if r > 0 {
                // SAFETY: every private entry of queue `q` (a release, not a spill: the ring
                // keeps them where they are).
                unsafe { self.release(q, r) };
            }
        }
        // SAFETY: for the rest of the body, this warp's park record and shared words.
        unsafe {
            // A plain store: published by the fence and the flag's release below.
            self.park_word(PARK_LANES + self.lane).write(lane_free);
            if self.lane == 0 {
                let words = smem_per_warp(self.queues) / 4;
                for i in 0..words {
                    // Ordering: relaxed, scope .cta; lane 0's own words.
                    let v = a::ld_shared_u32(self.smem.add(i as usize));
                    self.park_word(i).write(v);
                }
            }
            // Release side of the record: every lane's count, lane 0's words.
            a::fence_acq_rel_gpu();
            a::bar_warp_sync(FULL);
            if self.lane == 0 {
                // Ordering: release, scope .gpu; pairs with the acquire in `rejoin` (the warp
                // of this index in a later launch, or in a kernel launched beside this one).
                a::st_release_gpu_u32(self.park_word(PARK_FLAG), 1);
                // Ordering: relaxed, scope .gpu; a count the host polls (it launches rejoining
                // blocks only after their parks; the record itself is ordered by the flag).
                a::atom_relaxed_gpu_add_u32(addr_of_mut!((*self.control).parks), 1);
            }
        }
    }
}

/// Word `i` of warp `warp`'s park record in the records at `parks`.
#[inline(always)]
fn park_word(parks: u64, warp: u32, i: u32) -> *mut u32 {
    (parks as *mut u32).wrapping_add((warp * PARK_WORDS + i) as usize)
}

/// Whether the host asks warp `warp`'s block to leave (or stay away).
#[inline(always)]
fn park_asked(control: *mut Control, warp: u32) -> bool {
    // The block this warp belongs to (in every launch of the run: blocks that rejoin stand
    // for the same block indices).
    let block = warp / (a::block_dim_x() / 32);
    // SAFETY: the control block is valid for the run.
    // Ordering: relaxed, scope .sys; a request the host writes while the kernel runs (a late
    // observation only delays the leave).
    let r = unsafe { a::ld_relaxed_sys_u32(addr_of_mut!((*control).resize)) };
    r != 0 && block >= r - 1
}

/// Whether the host asks any block to leave: a clone then hands no child off
/// (`worker/clone.rs`).
#[inline(always)]
pub(crate) fn park_asked_any(control: *mut Control) -> bool {
    // SAFETY: the control block is valid for the run.
    // Ordering: relaxed, scope .sys; as in `park_asked`.
    unsafe { a::ld_relaxed_sys_u32(addr_of_mut!((*control).resize)) != 0 }
}

/// Every lane of warp `warp` (converged), at the start of a launch with [`Params::resume`],
/// before anything else of the warp: takes the warp's saved state up again (its shared words
/// at `smem` restored, the flag cleared); returns this lane's free-array count, or `None`
/// when the warp must exit instead (the run stopped, or its block is asked to stay away).
///
/// # Safety
///
/// `p` is the run's params; `smem` the warp's shared words.
#[inline(never)]
pub(crate) unsafe fn rejoin(p: &Params, warp: u32, lane: u32, smem: a::SharedWord) -> Option<u32> {
    let control = p.control as *mut Control;
    let mut go = 0u32;
    if lane == 0 {
        loop {
            if stop_requested(control) || park_asked(control, warp) {
                break;
            }
            // SAFETY: this warp's record.
            // Ordering: acquire, scope .gpu; pairs with the release in `Warp::park`.
            if unsafe { a::ld_acquire_gpu_u32(park_word(p.parks, warp, PARK_FLAG)) } == 1 {
                go = 1;
                break;
            }
            a::nanosleep(FLAG_WAIT_NS);
        }
    }
    if a::shfl_sync_idx_b32(FULL, go, 0) == 0 {
        return None;
    }
    // Acquire side for every lane (lane 0 acquired the flag; the others read after it).
    a::bar_warp_sync(FULL);
    a::fence_acq_rel_gpu();
    // SAFETY: for the rest of the body, this warp's record and shared words.
    unsafe {
        let lane_free = park_word(p.parks, warp, PARK_LANES + lane).read();
        if lane == 0 {
            let words = smem_per_warp(p.queues) / 4;
            for i in 0..words {
                // Ordering: relaxed, scope .cta; published to the lanes by the warp barrier
                // below.
                a::st_shared_u32(smem.add(i as usize), park_word(p.parks, warp, i).read());
            }
            // Ordering: relaxed, scope .gpu; only this warp index touches its record, and
            // its next park stores the flag again after this (program order).
            a::st_relaxed_gpu_u32(park_word(p.parks, warp, PARK_FLAG), 0);
            // Ordering: relaxed, scope .gpu; a count the host reads after the run.
            a::atom_relaxed_gpu_add_u32(addr_of_mut!((*control).joins), 1);
        }
        a::bar_warp_sync(FULL);
        Some(lane_free)
    }
}
