//! PTX primitives: the only module of gtap with inline assembly on the GPU.
//!
//! Each function is one PTX instruction (or a fixed short sequence), named after it, with the
//! instruction in `#[doc(alias)]`. Why inline assembly and not `core::sync::atomic`: rustc 1.95
//! (LLVM 22) drops the memory order of atomic RMWs on nvptx and gives loads, stores and CAS
//! system (`.sys`) scope (DESIGN.md §5); the scheduler needs exact orders at `.gpu` scope.
//!
//! # Scopes
//!
//! | name | PTX scope | used for |
//! |---|---|---|
//! | `_shared` | `.cta`, state space `.shared` | the scheduler's per-warp and per-block words in shared memory, addressed by a [`SharedWord`] |
//! | `_cta` | `.cta` | a join's `pending` in device memory while only one block updates it |
//! | `_gpu` | `.gpu` | everything shared between warps of the run (device memory) |
//! | `_sys` | `.sys` | words in host-mapped memory (the error record) |
//!
//! Every `asm!` here leaves out `options(nomem)` unless it touches no memory, so each is also a
//! compiler barrier: the Rust code around it is not reordered across it.
//!
//! Addresses are *generic* pointers (what Rust pointers are on nvptx) unless a name says
//! `global` or `shared`; the `.global` forms need a pointer into device global memory, which
//! every allocation of the host runtime (`cuMemAlloc`) is, and the `_shared` forms take a
//! [`SharedWord`], a 32-bit address in the block's shared window.
//!
//! Sources: PTX ISA 7.8 (rustc emits `.version 7.8` for sm_90), §9.7.3 (`ld`/`st` and their
//! `.relaxed/.acquire/.release` forms), §9.7.12 (`atom`, `red`, `fence`), §9.7.8 (`shfl.sync`,
//! `vote.sync`, `match.sync`, `redux.sync`), §10 (special registers).

use core::arch::asm;

// ---------------------------------------------------------------------------------------------
// Special registers and indices

/// The calling thread's lane within its warp, `0..32`.
#[doc(alias = "%laneid")]
#[inline(always)]
#[must_use]
pub fn lane_id() -> u32 {
    let r: u32;
    // SAFETY: reads a special register; no memory is touched.
    unsafe { asm!("mov.u32 {r}, %laneid;", r = out(reg32) r, options(nomem, nostack, pure)) };
    r
}

/// Lanes of this warp below the calling one, as a mask.
#[doc(alias = "%lanemask_lt")]
#[inline(always)]
#[must_use]
pub fn lanemask_lt() -> u32 {
    let r: u32;
    // SAFETY: reads a special register; no memory is touched.
    unsafe { asm!("mov.u32 {r}, %lanemask_lt;", r = out(reg32) r, options(nomem, nostack, pure)) };
    r
}

/// `threadIdx.x`.
#[doc(alias = "%tid.x")]
#[inline(always)]
#[must_use]
pub fn thread_idx_x() -> u32 {
    let r: u32;
    // SAFETY: reads a special register; no memory is touched.
    unsafe { asm!("mov.u32 {r}, %tid.x;", r = out(reg32) r, options(nomem, nostack, pure)) };
    r
}

/// `blockIdx.x`.
#[doc(alias = "%ctaid.x")]
#[inline(always)]
#[must_use]
pub fn block_idx_x() -> u32 {
    let r: u32;
    // SAFETY: reads a special register; no memory is touched.
    unsafe { asm!("mov.u32 {r}, %ctaid.x;", r = out(reg32) r, options(nomem, nostack, pure)) };
    r
}

/// `blockDim.x`.
#[doc(alias = "%ntid.x")]
#[inline(always)]
#[must_use]
pub fn block_dim_x() -> u32 {
    let r: u32;
    // SAFETY: reads a special register; no memory is touched.
    unsafe { asm!("mov.u32 {r}, %ntid.x;", r = out(reg32) r, options(nomem, nostack, pure)) };
    r
}

/// The global nanosecond timer (same clock on every SM; resolution about 1 µs on Hopper).
#[doc(alias = "%globaltimer")]
#[inline(always)]
#[must_use]
pub fn globaltimer() -> u64 {
    let r: u64;
    // SAFETY: reads a special register; no memory is touched.
    unsafe { asm!("mov.u64 {r}, %globaltimer;", r = out(reg64) r, options(nomem, nostack)) };
    r
}

/// Sleeps the calling thread for about `ns` nanoseconds (at most 1 ms; the hardware may wake
/// it earlier).
#[doc(alias = "nanosleep.u32")]
#[inline(always)]
pub fn nanosleep(ns: u32) {
    // SAFETY: a pure delay; no memory is touched.
    unsafe { asm!("nanosleep.u32 {t};", t = in(reg32) ns, options(nomem, nostack)) };
}

/// Ends the calling thread, leaving the launch running: barriers of the block (`barrier`,
/// `barrier.red`) and warp collectives (`.sync`) wait for non-exited threads only, and a
/// shuffle that reads an exited lane gets an unspecified value. The panic path (a task's
/// panic stops the run without losing the CUDA context, `gpu/mod.rs`).
#[inline(always)]
pub fn exit() -> ! {
    // SAFETY: `exit` ends the thread's execution; it never returns.
    unsafe { asm!("exit;", options(noreturn, nostack)) }
}

/// Aborts the kernel: the launch fails and the CUDA context is lost.
#[inline(always)]
pub fn trap() -> ! {
    // SAFETY: `trap` ends the thread's execution (and the launch); it never returns.
    unsafe { asm!("trap;", options(noreturn, nostack)) }
}

// ---------------------------------------------------------------------------------------------
// Warp collectives. `mask` names the lanes taking part; every lane in it must execute the same
// call (PTX requirement for `.sync` collectives).

/// Waits until every lane in `mask` arrives; orders the memory accesses of those lanes.
#[doc(alias = "bar.warp.sync")]
#[inline(always)]
pub fn bar_warp_sync(mask: u32) {
    // SAFETY: a warp barrier; memory effects are the ordering the compiler must not move across.
    unsafe { asm!("bar.warp.sync {m};", m = in(reg32) mask, options(nostack)) };
}

/// The lanes currently executing this instruction together.
#[doc(alias = "activemask.b32")]
#[inline(always)]
#[must_use]
pub fn activemask() -> u32 {
    let r: u32;
    // SAFETY: reads the converged-lane mask; no memory is touched.
    unsafe { asm!("activemask.b32 {r};", r = out(reg32) r, options(nomem, nostack)) };
    r
}

/// `v` of lane `src` (every lane in `mask` gets it).
#[doc(alias = "shfl.sync.idx.b32")]
#[inline(always)]
#[must_use]
pub fn shfl_sync_idx_b32(mask: u32, v: u32, src: u32) -> u32 {
    let r: u32;
    // SAFETY: a register exchange among the lanes in `mask`; no memory is touched.
    unsafe {
        asm!(
            "shfl.sync.idx.b32 {r}, {v}, {s}, 31, {m};",
            r = out(reg32) r, v = in(reg32) v, s = in(reg32) src, m = in(reg32) mask,
            options(nomem, nostack)
        );
    }
    r
}

/// [`shfl_sync_idx_b32`] for a 64-bit value (two shuffles).
#[inline(always)]
#[must_use]
pub fn shfl_sync_idx_b64(mask: u32, v: u64, src: u32) -> u64 {
    let lo = shfl_sync_idx_b32(mask, v as u32, src);
    let hi = shfl_sync_idx_b32(mask, (v >> 32) as u32, src);
    (u64::from(hi) << 32) | u64::from(lo)
}

/// The lanes of `mask` whose `pred` is true.
#[doc(alias = "vote.sync.ballot.b32")]
#[inline(always)]
#[must_use]
pub fn vote_sync_ballot_b32(mask: u32, pred: bool) -> u32 {
    let r: u32;
    // SAFETY: a vote among the lanes in `mask`; no memory is touched.
    unsafe {
        asm!(
            "{{ .reg .pred p; setp.ne.u32 p, {x}, 0; vote.sync.ballot.b32 {r}, p, {m}; }}",
            r = out(reg32) r, x = in(reg32) u32::from(pred), m = in(reg32) mask,
            options(nomem, nostack)
        );
    }
    r
}

/// The lanes of `mask` whose `v` equals the calling lane's.
#[doc(alias = "match.any.sync.b32")]
#[inline(always)]
#[must_use]
pub fn match_any_sync_b32(mask: u32, v: u32) -> u32 {
    let r: u32;
    // SAFETY: a comparison among the lanes in `mask`; no memory is touched.
    unsafe {
        asm!(
            "match.any.sync.b32 {r}, {v}, {m};",
            r = out(reg32) r, v = in(reg32) v, m = in(reg32) mask,
            options(nomem, nostack)
        );
    }
    r
}

/// The sum of `v` over the lanes of `mask` (sm_80+).
#[doc(alias = "redux.sync.add.u32")]
#[inline(always)]
#[must_use]
pub fn redux_sync_add_u32(mask: u32, v: u32) -> u32 {
    let r: u32;
    // SAFETY: a reduction among the lanes in `mask`; no memory is touched.
    unsafe {
        asm!(
            "redux.sync.add.u32 {r}, {v}, {m};",
            r = out(reg32) r, v = in(reg32) v, m = in(reg32) mask,
            options(nomem, nostack)
        );
    }
    r
}

// ---------------------------------------------------------------------------------------------
// Block barriers. Every thread of the block must arrive at barrier 0, and the block size must
// be a multiple of 32. They order the memory accesses of the block's threads at CTA scope
// (shared memory, and global memory as seen by the block). These are the non-`.aligned`
// `barrier` forms: `bar.sync`/`bar.red` mean `barrier.*.aligned`, which requires every thread
// of a warp to execute the *same* instruction, and LLVM does not treat inline assembly as
// convergent, so it may duplicate a barrier into both arms of a divergent branch (a
// multi-warp block then hung at a `sync()` after an `if` in a task body).

/// Waits until every thread of the block arrives.
#[doc(alias = "barrier.sync")]
#[inline(always)]
pub fn bar_sync() {
    // SAFETY: a block barrier; memory effects are the ordering the compiler must not move across.
    unsafe { asm!("barrier.sync 0;", options(nostack)) };
}

/// A block barrier that also returns whether `pred` was true on any thread of the block.
#[doc(alias = "barrier.red.or.pred")]
#[inline(always)]
#[must_use]
pub fn bar_red_or(pred: bool) -> bool {
    let r: u32;
    // SAFETY: a block barrier with a reduction; no memory is touched besides the ordering.
    unsafe {
        asm!(
            "{{ .reg .pred p, q; setp.ne.u32 p, {x}, 0; barrier.red.or.pred q, 0, p; selp.u32 {r}, 1, 0, q; }}",
            r = out(reg32) r, x = in(reg32) u32::from(pred),
            options(nostack)
        );
    }
    r != 0
}

/// A block barrier that also returns on how many threads of the block `pred` was true.
#[doc(alias = "barrier.red.popc.u32")]
#[inline(always)]
#[must_use]
pub fn bar_red_popc(pred: bool) -> u32 {
    let r: u32;
    // SAFETY: a block barrier with a reduction; no memory is touched besides the ordering.
    unsafe {
        asm!(
            "{{ .reg .pred p; setp.ne.u32 p, {x}, 0; barrier.red.popc.u32 {r}, 0, p; }}",
            r = out(reg32) r, x = in(reg32) u32::from(pred),
            options(nostack)
        );
    }
    r
}

// ---------------------------------------------------------------------------------------------
// Fences

/// Acquire-release fence at device scope.
#[doc(alias = "fence.acq_rel.gpu")]
#[inline(always)]
pub fn fence_acq_rel_gpu() {
    // SAFETY: a fence; it only orders memory accesses.
    unsafe { asm!("fence.acq_rel.gpu;", options(nostack)) };
}

/// Sequentially consistent fence at device scope.
#[doc(alias = "fence.sc.gpu")]
#[inline(always)]
pub fn fence_sc_gpu() {
    // SAFETY: a fence; it only orders memory accesses.
    unsafe { asm!("fence.sc.gpu;", options(nostack)) };
}

/// Sequentially consistent fence at system scope (orders writes to host-mapped memory).
#[doc(alias = "fence.sc.sys")]
#[inline(always)]
pub fn fence_sc_sys() {
    // SAFETY: a fence; it only orders memory accesses.
    unsafe { asm!("fence.sc.sys;", options(nostack)) };
}

/// Acquire-release fence at system scope: orders this thread's accesses against threads of
/// other GPUs (and the host). The cross-GPU channels' release and acquire (`gpu/peer`).
#[doc(alias = "fence.acq_rel.sys")]
#[inline(always)]
pub fn fence_acq_rel_sys() {
    // SAFETY: a fence; it only orders memory accesses.
    unsafe { asm!("fence.acq_rel.sys;", options(nostack)) };
}

// ---------------------------------------------------------------------------------------------
// Loads and stores. Safety for all: `p` is valid and naturally aligned for the access.

macro_rules! load {
    ($(#[$m:meta])* $name:ident, $t:ty, $reg:ident, $ins:literal) => {
        $(#[$m])*
        #[doc(alias = $ins)]
        ///
        /// # Safety
        ///
        /// `p` is valid for this read and naturally aligned.
        #[inline(always)]
        #[must_use]
        pub unsafe fn $name(p: *const $t) -> $t {
            let r: $t;
            // SAFETY: the caller guarantees `p` is valid and aligned.
            unsafe {
                asm!(concat!($ins, " {r}, [{p}];"), r = out($reg) r, p = in(reg64) p,
                    options(nostack, readonly))
            };
            r
        }
    };
}

macro_rules! store {
    ($(#[$m:meta])* $name:ident, $t:ty, $reg:ident, $ins:literal) => {
        $(#[$m])*
        #[doc(alias = $ins)]
        ///
        /// # Safety
        ///
        /// `p` is valid for this write and naturally aligned.
        #[inline(always)]
        pub unsafe fn $name(p: *mut $t, v: $t) {
            // SAFETY: the caller guarantees `p` is valid and aligned.
            unsafe {
                asm!(concat!($ins, " [{p}], {v};"), p = in(reg64) p, v = in($reg) v,
                    options(nostack))
            };
        }
    };
}

load!(
    /// Load cached in L2 only (bypasses the SM's L1, so it sees other SMs' L2-visible writes).
    ld_global_cg_u32, u32, reg32, "ld.global.cg.u32"
);
load!(
    /// Load cached in L2 only.
    ld_global_cg_u64, u64, reg64, "ld.global.cg.u64"
);
store!(
    /// Store cached in L2 only.
    st_global_cg_u32, u32, reg32, "st.global.cg.u32"
);
load!(
    /// Relaxed load, device scope.
    ld_relaxed_gpu_u32, u32, reg32, "ld.relaxed.gpu.u32"
);
load!(
    /// Relaxed load, device scope.
    ld_relaxed_gpu_u64, u64, reg64, "ld.relaxed.gpu.u64"
);
load!(
    /// Acquire load, device scope.
    ld_acquire_gpu_u32, u32, reg32, "ld.acquire.gpu.u32"
);
load!(
    /// Relaxed load, system scope (host-mapped words).
    ld_relaxed_sys_u32, u32, reg32, "ld.relaxed.sys.u32"
);
load!(
    /// Relaxed load, system scope (the cross-GPU live counts).
    ld_relaxed_sys_u64, u64, reg64, "ld.relaxed.sys.u64"
);
load!(
    /// Acquire load, system scope (the cross-GPU channels).
    ld_acquire_sys_u32, u32, reg32, "ld.acquire.sys.u32"
);
store!(
    /// Relaxed store, device scope.
    st_relaxed_gpu_u32, u32, reg32, "st.relaxed.gpu.u32"
);
store!(
    /// Relaxed store, device scope.
    st_relaxed_gpu_u64, u64, reg64, "st.relaxed.gpu.u64"
);
store!(
    /// Release store, device scope.
    st_release_gpu_u32, u32, reg32, "st.release.gpu.u32"
);
store!(
    /// Relaxed store, system scope (host-mapped words).
    st_relaxed_sys_u32, u32, reg32, "st.relaxed.sys.u32"
);
store!(
    /// Relaxed store, system scope (host-mapped words).
    st_relaxed_sys_u64, u64, reg64, "st.relaxed.sys.u64"
);
store!(
    /// Release store, system scope (host-mapped words).
    st_release_sys_u32, u32, reg32, "st.release.sys.u32"
);

/// The address of a local of the calling frame, in the generic window: how deep this
/// thread's stack is. The stack grows down (a call lowers `R1` by the callee's frame), and a
/// thread's local window keeps its offsets, so two readings of one thread subtract to the
/// bytes between them. A sequential clone compares it with its floor before each call
/// (`gpu/worker/clone.rs`). PTX names no stack pointer an `asm!` could read (`%SP` exists
/// only in functions whose frame LLVM declares), so a local's address stands for it.
#[inline(always)]
#[must_use]
pub fn stack_pointer() -> usize {
    let probe = 0u8;
    core::hint::black_box(&raw const probe) as usize
}

/// Asks the SM's L1 to fetch the sector at `p` (a generic address in global memory) ahead of
/// the loads that will read it (`CCTL.E.PF1`): writes no register and waits for nothing, so
/// the fetch overlaps whatever the thread does until then. Its only effect is on timing.
///
/// # Safety
///
/// `p` points into global memory the thread may read.
#[doc(alias = "prefetch.L1")]
#[inline(always)]
pub unsafe fn prefetch_l1(p: *const u8) {
    // SAFETY: the caller guarantees `p` is readable global memory; a prefetch reads nothing
    // into the program's state.
    unsafe { asm!("prefetch.L1 [{p}];", p = in(reg64) p, options(nostack, readonly)) };
}

/// Plain (weak) 16-byte store of four words: one L2 request per lane where four 4-byte stores
/// are four (a task header's first half, `gpu/step.rs`).
///
/// # Safety
///
/// `p` is valid for 16 bytes, 16-aligned, and not accessed by others meanwhile (a plain store).
#[doc(alias = "st.v4.u32")]
#[inline(always)]
pub unsafe fn st_v4_u32(p: *mut u32, a: u32, b: u32, c: u32, d: u32) {
    // SAFETY: as the caller promises.
    unsafe {
        asm!(
            "st.v4.u32 [{p}], {{{a}, {b}, {c}, {d}}};",
            p = in(reg64) p,
            a = in(reg32) a,
            b = in(reg32) b,
            c = in(reg32) c,
            d = in(reg32) d,
            options(nostack, preserves_flags)
        );
    }
}

/// Plain (weak) 16-byte store of two double words (a task header's second half).
///
/// # Safety
///
/// As for [`st_v4_u32`].
#[doc(alias = "st.v2.u64")]
#[inline(always)]
pub unsafe fn st_v2_u64(p: *mut u64, a: u64, b: u64) {
    // SAFETY: as the caller promises.
    unsafe {
        asm!(
            "st.v2.u64 [{p}], {{{a}, {b}}};",
            p = in(reg64) p,
            a = in(reg64) a,
            b = in(reg64) b,
            options(nostack, preserves_flags)
        );
    }
}

/// Plain (weak) 16-byte load of four words (a task header's first half): one memory request
/// where the fields' own loads would take one each.
///
/// # Safety
///
/// `p` is valid for 16 bytes, 16-aligned, and not written by others meanwhile (a plain load).
#[doc(alias = "ld.v4.u32")]
#[inline(always)]
pub unsafe fn ld_v4_u32(p: *const u32) -> [u32; 4] {
    let (a, b, c, d): (u32, u32, u32, u32);
    // SAFETY: as the caller promises.
    unsafe {
        asm!(
            "ld.v4.u32 {{{a}, {b}, {c}, {d}}}, [{p}];",
            p = in(reg64) p,
            a = out(reg32) a,
            b = out(reg32) b,
            c = out(reg32) c,
            d = out(reg32) d,
            options(nostack, preserves_flags, readonly)
        );
    }
    [a, b, c, d]
}

/// Plain (weak) 16-byte load of two double words (a task header's second half).
///
/// # Safety
///
/// As for [`ld_v4_u32`].
#[doc(alias = "ld.v2.u64")]
#[inline(always)]
pub unsafe fn ld_v2_u64(p: *const u64) -> [u64; 2] {
    let (a, b): (u64, u64);
    // SAFETY: as the caller promises.
    unsafe {
        asm!(
            "ld.v2.u64 {{{a}, {b}}}, [{p}];",
            p = in(reg64) p,
            a = out(reg64) a,
            b = out(reg64) b,
            options(nostack, preserves_flags, readonly)
        );
    }
    [a, b]
}

// ---------------------------------------------------------------------------------------------
// Read-modify-writes. They return the previous value. Safety for all: `p` is valid, naturally
// aligned, and accessed only atomically while others may access it.

macro_rules! rmw {
    ($(#[$m:meta])* $name:ident, $t:ty, $reg:ident, $ins:literal) => {
        $(#[$m])*
        #[doc(alias = $ins)]
        ///
        /// # Safety
        ///
        /// `p` is valid, naturally aligned, and only accessed atomically by others meanwhile.
        #[inline(always)]
        pub unsafe fn $name(p: *mut $t, v: $t) -> $t {
            let r: $t;
            // SAFETY: the caller guarantees `p` is valid, aligned and atomically shared.
            unsafe {
                asm!(concat!($ins, " {r}, [{p}], {v};"), r = out($reg) r, p = in(reg64) p,
                    v = in($reg) v, options(nostack))
            };
            r
        }
    };
}

macro_rules! cas {
    ($(#[$m:meta])* $name:ident, $t:ty, $reg:ident, $ins:literal) => {
        $(#[$m])*
        #[doc(alias = $ins)]
        /// Returns the previous value; the swap happened iff it equals `current`.
        ///
        /// # Safety
        ///
        /// `p` is valid, naturally aligned, and only accessed atomically by others meanwhile.
        #[inline(always)]
        pub unsafe fn $name(p: *mut $t, current: $t, new: $t) -> $t {
            let r: $t;
            // SAFETY: the caller guarantees `p` is valid, aligned and atomically shared.
            unsafe {
                asm!(concat!($ins, " {r}, [{p}], {c}, {n};"), r = out($reg) r,
                    p = in(reg64) p, c = in($reg) current, n = in($reg) new, options(nostack))
            };
            r
        }
    };
}

rmw!(
    /// Relaxed add, device scope.
    atom_relaxed_gpu_add_u32, u32, reg32, "atom.relaxed.gpu.add.u32"
);
rmw!(
    /// Relaxed add, device scope.
    atom_relaxed_gpu_add_u64, u64, reg64, "atom.relaxed.gpu.add.u64"
);
rmw!(
    /// Acquire add, device scope: `ATOM` then an L1 invalidation (`CCTL.IVALL`), no
    /// `MEMBAR` (a shared join's decrement, `gpu/join.rs`).
    atom_acquire_gpu_add_u32, u32, reg32, "atom.acquire.gpu.add.u32"
);
rmw!(
    /// Acquire-release add, device scope.
    atom_acq_rel_gpu_add_u32, u32, reg32, "atom.acq_rel.gpu.add.u32"
);
rmw!(
    /// Relaxed add, block scope, on a word in device memory that only one block updates (a
    /// join's `pending` while no child was released). Words in shared memory use
    /// [`atom_shared_add_u32`].
    atom_relaxed_cta_add_u32, u32, reg32, "atom.relaxed.cta.add.u32"
);
rmw!(
    /// Relaxed min, device scope.
    atom_relaxed_gpu_min_u32, u32, reg32, "atom.relaxed.gpu.min.u32"
);
rmw!(
    /// Relaxed max, device scope.
    atom_relaxed_gpu_max_u32, u32, reg32, "atom.relaxed.gpu.max.u32"
);
rmw!(
    /// Release exchange, device scope.
    atom_release_gpu_exch_u32, u32, reg32, "atom.release.gpu.exch.b32"
);
rmw!(
    /// Relaxed add, system scope (the cross-GPU channels).
    atom_relaxed_sys_add_u32, u32, reg32, "atom.relaxed.sys.add.u32"
);
rmw!(
    /// Relaxed add, system scope (the cross-GPU live counts).
    atom_relaxed_sys_add_u64, u64, reg64, "atom.relaxed.sys.add.u64"
);
rmw!(
    /// Relaxed exchange, system scope (the cross-GPU channels).
    atom_relaxed_sys_exch_u32, u32, reg32, "atom.relaxed.sys.exch.b32"
);
cas!(
    /// Relaxed compare-and-swap, system scope (the cross-GPU channels).
    atom_relaxed_sys_cas_u32, u32, reg32, "atom.relaxed.sys.cas.b32"
);
cas!(
    /// Relaxed compare-and-swap, device scope.
    atom_relaxed_gpu_cas_u32, u32, reg32, "atom.relaxed.gpu.cas.b32"
);
cas!(
    /// Relaxed compare-and-swap, device scope.
    atom_relaxed_gpu_cas_u64, u64, reg64, "atom.relaxed.gpu.cas.b64"
);
cas!(
    /// Acquire compare-and-swap, device scope.
    atom_acquire_gpu_cas_u32, u32, reg32, "atom.acquire.gpu.cas.b32"
);
cas!(
    /// Acquire-release compare-and-swap, device scope.
    atom_acq_rel_gpu_cas_u32, u32, reg32, "atom.acq_rel.gpu.cas.b32"
);

// ---------------------------------------------------------------------------------------------
// Shared memory

core::arch::global_asm!(".extern .shared .align 16 .b8 GTAP_DYN_SMEM[];");

/// A generic pointer to the block's dynamic shared memory (its size is the launch's
/// `sharedMemBytes`).
#[doc(alias = "cvta.shared.u64")]
#[inline(always)]
#[must_use]
pub fn dynamic_smem() -> *mut u8 {
    let r: u64;
    // SAFETY: converts the address of the block's dynamic shared window; no memory is touched.
    unsafe {
        asm!("cvta.shared.u64 {r}, GTAP_DYN_SMEM;", r = out(reg64) r, options(nomem, nostack, pure))
    };
    r as *mut u8
}

// ---------------------------------------------------------------------------------------------
// Words in shared memory: relaxed, block scope, in the `.shared` state space
//
// The scheduler's per-warp and per-block words live in the block's dynamic shared memory. A
// Rust pointer on nvptx is generic, and a generic access compiles to `LD.E` / `ST.E` /
// `ATOM.E`: the generic address check, two registers per address, and the long scoreboard
// like a global access. A [`SharedWord`] is the 32-bit address in the shared window that
// `ld.shared` takes, so these compile to `LDS` / `STS` / `ATOMS` with one register per
// address (the block-level tree's kernel went from 96 to 80 registers and 16% faster on the
// H200: `docs/benchmarks.md`, fourteenth session).

/// The address of a `u32` word in the block's dynamic shared memory, in the shared window.
/// Made only from [`dynamic_smem_word`] and [`SharedWord::add`]; the accessors below need it
/// to lie inside the launch's `sharedMemBytes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SharedWord(u32);

impl SharedWord {
    /// The word `words` words after this one.
    #[inline(always)]
    #[must_use]
    pub const fn add(self, words: usize) -> Self {
        Self(self.0.wrapping_add(4 * words as u32))
    }

    /// The same word as a generic pointer (for plain Rust accesses to a struct there).
    #[doc(alias = "cvta.shared.u64")]
    #[inline(always)]
    #[must_use]
    pub fn generic(self) -> *mut u32 {
        let r: u64;
        // SAFETY: converts an address; no memory is touched.
        unsafe {
            asm!("{{ .reg .u64 t; cvt.u64.u32 t, {a}; cvta.shared.u64 {r}, t; }}",
                r = out(reg64) r, a = in(reg32) self.0, options(nomem, nostack, pure))
        };
        r as *mut u32
    }
}

/// The word at `bytes` bytes into the block's dynamic shared memory (`bytes` a multiple of 4).
#[doc(alias = "mov.u32")]
#[inline(always)]
#[must_use]
pub fn dynamic_smem_word(bytes: u32) -> SharedWord {
    let r: u32;
    // SAFETY: the address of the block's dynamic shared window; no memory is touched.
    unsafe { asm!("mov.u32 {r}, GTAP_DYN_SMEM;", r = out(reg32) r, options(nomem, nostack, pure)) };
    SharedWord(r.wrapping_add(bytes))
}

macro_rules! shared_op {
    ($(#[$m:meta])* load $name:ident, $ins:literal) => {
        shared_op!($(#[$m])* load $name, u32, reg32, $ins);
    };
    ($(#[$m:meta])* load $name:ident, $t:ty, $reg:ident, $ins:literal) => {
        $(#[$m])*
        #[doc(alias = $ins)]
        ///
        /// # Safety
        ///
        /// `w` lies inside the block's dynamic shared memory, aligned to the access's size (a
        /// `u32` word always is).
        #[inline(always)]
        #[must_use]
        pub unsafe fn $name(w: SharedWord) -> $t {
            let r: $t;
            // SAFETY: the caller guarantees the address is inside shared memory and aligned.
            unsafe {
                asm!(concat!($ins, " {r}, [{a}];"), r = out($reg) r, a = in(reg32) w.0,
                    options(nostack, readonly))
            };
            r
        }
    };
    ($(#[$m:meta])* store $name:ident, $ins:literal) => {
        shared_op!($(#[$m])* store $name, u32, reg32, $ins);
    };
    ($(#[$m:meta])* store $name:ident, $t:ty, $reg:ident, $ins:literal) => {
        $(#[$m])*
        #[doc(alias = $ins)]
        ///
        /// # Safety
        ///
        /// `w` lies inside the block's dynamic shared memory, aligned to the access's size (a
        /// `u32` word always is).
        #[inline(always)]
        pub unsafe fn $name(w: SharedWord, v: $t) {
            // SAFETY: as for the loads.
            unsafe {
                asm!(concat!($ins, " [{a}], {v};"), a = in(reg32) w.0, v = in($reg) v,
                    options(nostack))
            };
        }
    };
    ($(#[$m:meta])* rmw $name:ident, $ins:literal) => {
        $(#[$m])*
        #[doc(alias = $ins)]
        /// Returns the previous value.
        ///
        /// # Safety
        ///
        /// `w` lies inside the block's dynamic shared memory, and others access it only
        /// atomically meanwhile.
        #[inline(always)]
        pub unsafe fn $name(w: SharedWord, v: u32) -> u32 {
            let r: u32;
            // SAFETY: as for the loads.
            unsafe {
                asm!(concat!($ins, " {r}, [{a}], {v};"), r = out(reg32) r, a = in(reg32) w.0,
                    v = in(reg32) v, options(nostack))
            };
            r
        }
    };
}

shared_op!(
    /// Relaxed load, block scope, of a word in shared memory.
    load ld_shared_u32, "ld.relaxed.cta.shared.u32"
);
shared_op!(
    /// Relaxed store, block scope, of a word in shared memory.
    store st_shared_u32, "st.relaxed.cta.shared.u32"
);
shared_op!(
    /// Relaxed add, block scope, on a word in shared memory.
    rmw atom_shared_add_u32, "atom.relaxed.cta.shared.add.u32"
);
shared_op!(
    /// Relaxed max, block scope, on a word in shared memory.
    rmw atom_shared_max_u32, "atom.relaxed.cta.shared.max.u32"
);

shared_op!(
    /// Plain (weak) load of an 8-byte value in shared memory: data that block barriers order
    /// (the block collectives' slots, `crate::block`).
    load ld_shared_u64, u64, reg64, "ld.shared.u64"
);
shared_op!(
    /// Plain (weak) store of an 8-byte value in shared memory (see [`ld_shared_u64`]).
    store st_shared_u64, u64, reg64, "st.shared.u64"
);

// ---------------------------------------------------------------------------------------------
// User-level atomics (same names and signatures as `host.rs`; see `arch/mod.rs`). Relaxed,
// device scope, on generic addresses (a `Slice` may point anywhere in device memory).

/// # Safety
/// `p` is valid, 4-aligned, and only accessed atomically while others may access it.
#[inline]
pub unsafe fn atomic_add_u32(p: *mut u32, v: u32) -> u32 {
    // SAFETY: forwarded. Ordering: relaxed, scope .gpu; a counter ordered only by joins.
    unsafe { atom_relaxed_gpu_add_u32(p, v) }
}

/// # Safety
/// As for [`atomic_add_u32`], 8-aligned.
#[inline]
pub unsafe fn atomic_add_u64(p: *mut u64, v: u64) -> u64 {
    // SAFETY: forwarded. Ordering: relaxed, scope .gpu; a counter ordered only by joins.
    unsafe { atom_relaxed_gpu_add_u64(p, v) }
}

/// # Safety
/// As for [`atomic_add_u32`].
#[inline]
pub unsafe fn atomic_min_u32(p: *mut u32, v: u32) -> u32 {
    // SAFETY: forwarded. Ordering: relaxed, scope .gpu; only atomicity is needed.
    unsafe { atom_relaxed_gpu_min_u32(p, v) }
}

/// # Safety
/// As for [`atomic_add_u32`].
#[inline]
pub unsafe fn atomic_max_u32(p: *mut u32, v: u32) -> u32 {
    // SAFETY: forwarded. Ordering: relaxed, scope .gpu; only atomicity is needed.
    unsafe { atom_relaxed_gpu_max_u32(p, v) }
}

/// Returns the previous value; the swap happened iff it equals `current`.
///
/// # Safety
/// As for [`atomic_add_u32`].
#[inline]
pub unsafe fn atomic_cas_u32(p: *mut u32, current: u32, new: u32) -> u32 {
    // SAFETY: forwarded. Ordering: relaxed, scope .gpu; only atomicity is needed.
    unsafe { atom_relaxed_gpu_cas_u32(p, current, new) }
}

/// Returns the previous value; the swap happened iff it equals `current`.
///
/// # Safety
/// As for [`atomic_add_u64`].
#[inline]
pub unsafe fn atomic_cas_u64(p: *mut u64, current: u64, new: u64) -> u64 {
    // SAFETY: forwarded. Ordering: relaxed, scope .gpu; only atomicity is needed.
    unsafe { atom_relaxed_gpu_cas_u64(p, current, new) }
}

/// # Safety
/// As for [`atomic_add_u32`].
#[inline]
pub unsafe fn atomic_load_u32(p: *const u32) -> u32 {
    // SAFETY: forwarded. Ordering: relaxed, scope .gpu; a racy read of an atomic value.
    unsafe { ld_relaxed_gpu_u32(p) }
}

/// # Safety
/// As for [`atomic_add_u64`].
#[inline]
pub unsafe fn atomic_load_u64(p: *const u64) -> u64 {
    // SAFETY: forwarded. Ordering: relaxed, scope .gpu; a racy read of an atomic value.
    unsafe { ld_relaxed_gpu_u64(p) }
}

/// # Safety
/// As for [`atomic_add_u32`].
#[inline]
pub unsafe fn atomic_store_u32(p: *mut u32, v: u32) {
    // SAFETY: forwarded. Ordering: relaxed, scope .gpu; a racy write others read atomically.
    unsafe { st_relaxed_gpu_u32(p, v) }
}

/// # Safety
/// As for [`atomic_add_u64`].
#[inline]
pub unsafe fn atomic_store_u64(p: *mut u64, v: u64) {
    // SAFETY: forwarded. Ordering: relaxed, scope .gpu; a racy write others read atomically.
    unsafe { st_relaxed_gpu_u64(p, v) }
}

/// `a * b + c` with one rounding (`fma.rn.f64`), the same value as the host's `f64::mul_add`.
#[inline(always)]
#[must_use]
pub fn mul_add_f64(a: f64, b: f64, c: f64) -> f64 {
    let r: f64;
    // SAFETY: pure register arithmetic.
    unsafe {
        asm!(
            "fma.rn.f64 {r}, {a}, {b}, {c};",
            r = out(reg64) r,
            a = in(reg64) a,
            b = in(reg64) b,
            c = in(reg64) c,
            options(nomem, nostack, pure)
        );
    }
    r
}
