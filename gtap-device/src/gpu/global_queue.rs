//! Global queues: FIFO rings of task slots that every worker pushes to and claims from. The
//! global-queue ablation (`Scheduler::GlobalQueue`) runs on them alone; the work-first
//! scheduler uses them as its overflow queues (`overflow.rs`).
//!
//! # Protocol (one ring of `cap` entries per EPAQ queue; entry = slot + 1, 0 = empty)
//!
//! - **Push**: one thread reserves `n` positions with an add on `alloc`; the writers wait until
//!   an entry is 0 (its previous occupant's claimer zeroed it), store `slot + 1`, fence and
//!   synchronize; the reserving thread waits until `tail` reaches its first position (ordered
//!   commits, as GTaP's `thread_gq`) and stores the new `tail` with release.
//! - **Claim**: one thread acquires `tail`, claims up to `max` positions by CAS on `head`;
//!   every thread of the worker fences, then each reads its entry and zeroes it.
//! - `cap` is a power of two at least the number of task slots of the run, and every entry in
//!   a ring is a distinct live task, so a push never finds the ring full.
//!
//! # Scope
//!
//! The overflow queues are device scope, on one GPU and in a run on several: only the GPU's
//! own workers touch them. A run on several GPUs has two more kinds of ring with the same
//! protocol at system scope, which other GPUs reach through peer access (`peer`): each
//! GPU's *export queues* (one per EPAQ queue, after the overflow queues in the same regions),
//! which its workers push to and other GPUs' couriers claim from, and its *completion inbox*,
//! which other GPUs push to. The writers' and claimers' fence is [`GlobalQueues::fence`], at
//! the view's scope.
//!
//! # Why a view read from memory
//!
//! [`GlobalQueues::of_run`] reads the ring addresses from the run's params in memory at each
//! use: under work first these are cold paths, and the addresses held in registers across the
//! worker loop cost every work-first kernel registers (fib: 102 to 106) and 6% of its time.

use core::ptr::addr_of_mut;

use super::layout::{
    Control, ErrorRecord, GlobalQueueHeader, Params, PeerInfo, ERR_QUEUE_OVERFLOW, NONE,
};
use super::warp::record_error;
use crate::arch::nvptx as a;

/// Spins between two looks at the control words.
const SPIN_CHECK: u32 = 1024;

/// A method that does one access at the queues' scope: the `.sys` primitive when
/// [`GlobalQueues::sys`], the `.gpu` one otherwise (same arguments).
macro_rules! scoped {
    ($name:ident($($arg:ident: $t:ty),*) -> $ret:ty: $sys:ident, $gpu:ident) => {
        #[inline(always)]
        unsafe fn $name(self, $($arg: $t),*) -> $ret {
            // SAFETY: forwarded (the caller's pointer is valid and aligned).
            unsafe {
                if self.sys {
                    a::$sys($($arg),*)
                } else {
                    a::$gpu($($arg),*)
                }
            }
        }
    };
}

/// The running kernel's global queues.
#[derive(Clone, Copy)]
pub(crate) struct GlobalQueues {
    headers: *mut GlobalQueueHeader,
    rings: *mut u32,
    cap: u32,
    control: *mut Control,
    error: *mut ErrorRecord,
    /// System scope for every access (the export queues and the completion inbox of a run
    /// on several GPUs, which other GPUs reach, `peer`); device scope otherwise.
    sys: bool,
}

impl GlobalQueues {
    /// The queues of the running kernel, read from its params in memory.
    #[inline(always)]
    pub(crate) fn of_run() -> Self {
        // SAFETY: the params of the running kernel (`super::set_params` ran first).
        let p: &Params = unsafe { &*super::params() };
        Self {
            headers: p.gq_headers as *mut GlobalQueueHeader,
            rings: p.gq_rings as *mut u32,
            cap: p.gq_cap,
            control: p.control as *mut Control,
            error: p.error as *mut ErrorRecord,
            sys: false,
        }
    }

    /// The export queues of GPU `peer` (this GPU's own too: the run's peer table holds every
    /// GPU), seen from this GPU: the `queues` rings after its overflow queues, at system
    /// scope; stops and errors are this GPU's.
    #[inline(always)]
    pub(crate) fn exports_of(peer: &PeerInfo) -> Self {
        // SAFETY: the params of the running kernel (`super::set_params` ran first).
        let queues = unsafe { (*super::params()).queues } as usize;
        Self {
            headers: (peer.gq_headers as *mut GlobalQueueHeader).wrapping_add(queues),
            rings: (peer.gq_rings as *mut u32).wrapping_add(queues * peer.gq_cap as usize),
            cap: peer.gq_cap,
            sys: true,
            ..Self::of_run()
        }
    }

    /// This GPU's completion outbox (one queue, index 0; device scope): the import-table
    /// entries of finished imports, which the courier forwards to their GPUs' inboxes. It
    /// lies after the import table's `entries` `u64` (a header, then a ring of the entries'
    /// count rounded up to a power of two; every entry is in it at most once).
    #[inline(always)]
    pub(crate) fn outbox_of(p: &Params) -> Self {
        let entries = super::peer::import_entries(p);
        let headers = (p.imports as *mut u64)
            .wrapping_add(entries as usize)
            .cast::<GlobalQueueHeader>();
        Self {
            headers,
            rings: headers.wrapping_add(1).cast::<u32>(),
            cap: entries.next_power_of_two(),
            sys: false,
            ..Self::of_run()
        }
    }

    /// GPU `peer`'s completion inbox (one queue, index 0), seen from this GPU: system scope.
    #[inline(always)]
    pub(crate) fn inbox_of(peer: &PeerInfo) -> Self {
        Self {
            headers: peer.inbox as *mut GlobalQueueHeader,
            rings: (peer.inbox as *mut GlobalQueueHeader)
                .wrapping_add(1)
                .cast::<u32>(),
            cap: peer.inbox_cap,
            sys: true,
            ..Self::of_run()
        }
    }

    /// The fence the protocol's writers and claimers run (see the module doc): at the
    /// queues' scope.
    #[inline(always)]
    pub(crate) fn fence(self) {
        if self.sys {
            a::fence_acq_rel_sys();
        } else {
            a::fence_acq_rel_gpu();
        }
    }

    // The accesses at the queues' scope (relaxed unless named).
    scoped!(ld(p: *mut u32) -> u32: ld_relaxed_sys_u32, ld_relaxed_gpu_u32);
    scoped!(ld_acquire(p: *mut u32) -> u32: ld_acquire_sys_u32, ld_acquire_gpu_u32);
    scoped!(st(p: *mut u32, v: u32) -> (): st_relaxed_sys_u32, st_relaxed_gpu_u32);
    scoped!(st_release(p: *mut u32, v: u32) -> (): st_release_sys_u32, st_release_gpu_u32);
    scoped!(add(p: *mut u32, v: u32) -> u32: atom_relaxed_sys_add_u32, atom_relaxed_gpu_add_u32);
    scoped!(cas(p: *mut u32, current: u32, new: u32) -> u32:
        atom_relaxed_sys_cas_u32, atom_relaxed_gpu_cas_u32);

    /// The header of queue `q`.
    #[inline(always)]
    pub(crate) fn header(self, q: u32) -> *mut GlobalQueueHeader {
        self.headers.wrapping_add(q as usize)
    }

    /// The entry at position `pos` of queue `q`.
    #[inline(always)]
    fn entry(self, q: u32, pos: u32) -> *mut u32 {
        self.rings
            .wrapping_add(q as usize * self.cap as usize + (pos & (self.cap - 1)) as usize)
    }

    /// Whether the run must stop (see `Warp::should_stop`).
    fn should_stop(self) -> bool {
        super::warp::stop_requested(self.control)
    }

    /// One thread of the worker: claims up to `max` committed entries from the front of queue
    /// `q`; returns (first position, count). Every thread of the worker runs
    /// `fence.acq_rel.gpu` before reading them with [`GlobalQueues::take`].
    ///
    /// # Safety
    ///
    /// `q` is below the run's queue count.
    pub(crate) unsafe fn pop(self, q: u32, max: u32) -> (u32, u32) {
        let g = self.header(q);
        // SAFETY: q < queues, a valid header.
        unsafe {
            loop {
                // Ordering: relaxed, scope .gpu (.sys on the channels between GPUs); the CAS below decides.
                let h = self.ld(addr_of_mut!((*g).head));
                // Ordering: acquire, scope .gpu (.sys on the channels between GPUs); pairs with the committing pusher's release of
                // `tail`: the entries below it (and their tasks) are written.
                let t = self.ld_acquire(addr_of_mut!((*g).tail));
                // head <= tail at all times, but the two loads are of different words: a
                // `tail` older than the `head` read before it is allowed (nothing orders a
                // relaxed load of `head` before the claimer's acquire of `tail`), and must
                // read as empty, not as 2^32 - 1 entries (the loom model `spilled_then_refilled`
                // found it).
                let avail = t.wrapping_sub(h);
                if avail == 0 || avail > self.cap {
                    return (0, 0);
                }
                let claim = if avail < max { avail } else { max };
                // Ordering: relaxed, scope .gpu (.sys on the channels between GPUs); claims positions only (the tail's acquire
                // above ordered the entries).
                if self.cas(addr_of_mut!((*g).head), h, h + claim) == h {
                    return (h, claim);
                }
            }
        }
    }

    /// Any thread: the slot at claimed position `pos` of queue `q`, and the entry zeroed for
    /// the pusher that reuses it; [`NONE`] when the run stopped first.
    ///
    /// # Safety
    ///
    /// `pos` was claimed by this worker's [`GlobalQueues::pop`] and the thread fenced since.
    pub(crate) unsafe fn take(self, q: u32, pos: u32) -> u32 {
        let e = self.entry(q, pos);
        let mut spins = 0u32;
        // SAFETY: a claimed position's entry (only this thread reads it now).
        unsafe {
            loop {
                // Ordering: relaxed, scope .gpu (.sys on the channels between GPUs); committed entries are written (the claimer
                // acquired `tail`, and every thread of the worker fenced after it).
                let v = self.ld(e);
                if v != 0 {
                    // Ordering: relaxed, scope .gpu (.sys on the channels between GPUs); the pusher `cap` positions later waits
                    // for this zero before it writes.
                    self.st(e, 0);
                    return v - 1;
                }
                spins += 1;
                if spins.is_multiple_of(SPIN_CHECK) && self.should_stop() {
                    return NONE;
                }
            }
        }
    }

    /// One thread: reserves `n` positions at the back of queue `q`; returns the first, or
    /// [`NONE`] when the ring would overflow (an error recorded for `warp`, `lane`).
    ///
    /// # Safety
    ///
    /// `q` is below the run's queue count.
    pub(crate) unsafe fn reserve(self, q: u32, n: u32, warp: u32, lane: u32) -> u32 {
        let g = self.header(q);
        // SAFETY: q < queues, a valid header.
        unsafe {
            // Ordering: relaxed, scope .gpu (.sys on the channels between GPUs); positions only.
            let base = self.add(addr_of_mut!((*g).alloc), n);
            // Ordering: relaxed, scope .gpu (.sys on the channels between GPUs); a stale head only makes the check stricter.
            let h = self.ld(addr_of_mut!((*g).head));
            if base.wrapping_add(n).wrapping_sub(h) > self.cap {
                record_error(
                    self.control,
                    self.error,
                    ERR_QUEUE_OVERFLOW,
                    warp,
                    lane,
                    0,
                    self.cap,
                    q,
                );
                return NONE;
            }
            base
        }
    }

    /// Any thread: writes `slot` at reserved position `pos` of queue `q`, once the claimer of
    /// the entry's previous occupant has zeroed it.
    ///
    /// # Safety
    ///
    /// `pos` was reserved by this worker and is written by this thread alone.
    pub(crate) unsafe fn write(self, q: u32, pos: u32, slot: u32) {
        let e = self.entry(q, pos);
        let mut spins = 0u32;
        // SAFETY: a reserved position's entry (this thread is its only writer).
        unsafe {
            // Ordering: relaxed, scope .gpu (.sys on the channels between GPUs); the previous occupant is claimed (the reserve
            // checked `pos - cap < head`), so its claimer zeroes it without waiting.
            while self.ld(e) != 0 {
                spins += 1;
                if spins.is_multiple_of(SPIN_CHECK) && self.should_stop() {
                    return;
                }
            }
            // Ordering: relaxed, scope .gpu (.sys on the channels between GPUs); published by the writers' fences and the
            // commit's release of `tail`.
            self.st(e, slot + 1);
        }
    }

    /// One thread, after every writer of `[base, base + n)` fenced and synchronized with it:
    /// waits for the pushers before it (ordered commit), then makes the entries claimable.
    ///
    /// # Safety
    ///
    /// `[base, base + n)` was reserved by this worker and written.
    pub(crate) unsafe fn commit(self, q: u32, base: u32, n: u32) {
        let g = self.header(q);
        let mut spins = 0u32;
        // SAFETY: q < queues, a valid header.
        unsafe {
            // Ordering: relaxed, scope .gpu (.sys on the channels between GPUs); only the pusher that reserved `base` moves the
            // tail past it.
            while self.ld(addr_of_mut!((*g).tail)) != base {
                spins += 1;
                if spins.is_multiple_of(SPIN_CHECK) && self.should_stop() {
                    return;
                }
            }
            // Ordering: release, scope .gpu (.sys on the channels between GPUs); after the writers' fence.acq_rel.gpu: claimers
            // that acquire the new tail see the entries and the tasks' headers and frames.
            self.st_release(addr_of_mut!((*g).tail), base.wrapping_add(n));
        }
    }
}
