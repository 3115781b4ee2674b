//! The persistent worker loops: [`thread_worker`] (a warp runs up to 32 thread-level tasks
//! per batch, one per lane, `lane.rs` the steps of one lane) and [`block_worker`] (a thread
//! block runs one block-level task on all its threads, or a batch of thread-level tasks).
//!
//! Both loops have the same shape, acquire, run, settle, publish, and drive the same
//! scheduler core through [`Warp`](super::warp::Warp): the deques (`deque.rs`), the pools
//! (`pool.rs`), the joins (`join.rs`), and task creation and settlement (`step.rs`). What
//! they do differently is only what a warp and a block do differently: who holds the batch
//! (lanes or threads), how decisions are broadcast (shuffles or shared words after a block
//! barrier), and which queue a task goes to (a block-level kind's queue 1).
//!
//! # Invariants
//!
//! - Every lane (thread) of a worker runs the same sequence of barriers: control values are
//!   broadcast before they decide a branch that contains one.
//! - A worker leaves its loop only between batches, on a stop ([`STOP_CHECK_EVERY`] batches
//!   apart while busy, every round while idle), an aborted step, or (thread-level) a park.

use crate::arch::nvptx as a;
use crate::gpu::global_queue::GlobalQueues;
use crate::gpu::layout::NONE;
use crate::gpu::warp::{Warp, FULL};

mod block;
mod clone;
mod ctx;
mod lane;
mod solo;
mod thread;

pub(crate) use clone::{claim_handed_off, finish_cell, hand_offs_out};

pub use block::block_worker;
pub use thread::{thread_worker, thread_worker_clones};

/// Busy workers look at the control words every this many batches.
const STOP_CHECK_EVERY: u32 = 64;

/// The back-off after an idle round that followed one of `idle_ns`: 64 ns, then doubling up
/// to the run's `Params::idle_max_ns` (`Config::idle_max_ns`), read from memory here, on
/// the idle path, so that it holds no register in the busy loop.
#[inline(always)]
fn next_idle_ns(idle_ns: u32) -> u32 {
    if idle_ns == 0 {
        64
    } else {
        // SAFETY: `params()` points at the run's params once the worker started.
        (idle_ns * 2).min(unsafe { (*crate::gpu::params()).idle_max_ns })
    }
}

/// Global-queue ablation, every lane of a warp (`BLOCK == false`) or every thread of a block
/// (`rank` of `size`), after the deque thread staged the batch's publication: per queue, the
/// deque thread reserves the positions, all copy the staged entries from the own ring in
/// parallel, fence, and the deque thread commits. A block broadcasts the reservation through
/// the shared word `scratch` (a warp through a shuffle, leaving `scratch` untouched).
///
/// # Safety
///
/// For each queue, the own-ring tail is the first staged entry and the pop-estimate word
/// their count (written by the deque thread before this call: a warp synchronizes here, a
/// block passed a barrier since); every lane (thread) of the worker calls this.
#[inline(always)]
unsafe fn push_staged<const BLOCK: bool>(w: &Warp, rank: u32, size: u32, scratch: a::SharedWord) {
    let sync = || {
        if BLOCK {
            a::bar_sync();
        } else {
            a::bar_warp_sync(FULL);
        }
    };
    if !BLOCK {
        sync();
    }
    for q in 0..w.queues {
        let sq = w.sm_queue(q);
        // SAFETY: for the whole body, this worker's shared words, its own ring's staged entries and a
        // reserved range of the global queue.
        unsafe {
            // Ordering: relaxed, scope .cta; written by the deque thread before the barrier.
            let n = a::ld_shared_u32(sq.add(3));
            if n == 0 {
                continue;
            }
            let first = a::ld_shared_u32(sq);
            let gq = GlobalQueues::of_run();
            let mut base = 0;
            if rank == 0 {
                base = gq.reserve(q, n, w.warp, 0);
            }
            if BLOCK {
                // Ordering: relaxed, scope .cta; read by the block after the barrier.
                if rank == 0 {
                    a::st_shared_u32(scratch, base);
                }
                a::bar_sync();
                base = a::ld_shared_u32(scratch);
            } else {
                base = a::shfl_sync_idx_b32(FULL, base, 0);
            }
            if base != NONE {
                let mut i = rank;
                while i < n {
                    let slot = *w
                        .ring(w.warp, q)
                        .add((first.wrapping_add(i) & (w.queue_cap - 1)) as usize);
                    gq.write(q, base.wrapping_add(i), slot);
                    i += size;
                }
            }
            // Release side of the push: every thread's entries, then the deque thread's commit.
            a::fence_acq_rel_gpu();
            sync();
            if rank == 0 {
                a::st_shared_u32(sq.add(3), 0);
                if base != NONE {
                    gq.commit(q, base, n);
                }
            }
        }
    }
}
