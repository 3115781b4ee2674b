//! Host implementations of the user-level atomics (see `arch/mod.rs` for the table).
//!
//! Relaxed ordering everywhere: ordering between tasks comes from the join protocol (a child's
//! writes happen-before its parent's continuation), not from these operations.

use core::sync::atomic::{AtomicU32, AtomicU64, Ordering};

/// # Safety
/// `p` is valid, 4-aligned, and only accessed atomically while others may access it.
#[inline]
pub unsafe fn atomic_add_u32(p: *mut u32, v: u32) -> u32 {
    // SAFETY: the caller guarantees `p` is valid and aligned; AtomicU32 has u32's layout.
    // Ordering: Relaxed; a counter, ordered with other tasks only through joins.
    unsafe { AtomicU32::from_ptr(p) }.fetch_add(v, Ordering::Relaxed)
}

/// # Safety
/// As for [`atomic_add_u32`], 8-aligned.
#[inline]
pub unsafe fn atomic_add_u64(p: *mut u64, v: u64) -> u64 {
    // SAFETY: as above.
    // Ordering: Relaxed; a counter, ordered with other tasks only through joins.
    unsafe { AtomicU64::from_ptr(p) }.fetch_add(v, Ordering::Relaxed)
}

/// # Safety
/// As for [`atomic_add_u32`].
#[inline]
pub unsafe fn atomic_min_u32(p: *mut u32, v: u32) -> u32 {
    // SAFETY: as above.
    // Ordering: Relaxed; label-correcting algorithms only need the RMW to be atomic.
    unsafe { AtomicU32::from_ptr(p) }.fetch_min(v, Ordering::Relaxed)
}

/// # Safety
/// As for [`atomic_add_u32`].
#[inline]
pub unsafe fn atomic_max_u32(p: *mut u32, v: u32) -> u32 {
    // SAFETY: as above.
    // Ordering: Relaxed; only atomicity is needed.
    unsafe { AtomicU32::from_ptr(p) }.fetch_max(v, Ordering::Relaxed)
}

/// Returns the previous value; the swap happened iff it equals `current`.
///
/// # Safety
/// As for [`atomic_add_u32`].
#[inline]
pub unsafe fn atomic_cas_u32(p: *mut u32, current: u32, new: u32) -> u32 {
    // SAFETY: as above.
    // Ordering: Relaxed on both paths; only atomicity is needed.
    match unsafe { AtomicU32::from_ptr(p) }.compare_exchange(
        current,
        new,
        Ordering::Relaxed,
        Ordering::Relaxed,
    ) {
        Ok(v) | Err(v) => v,
    }
}

/// Returns the previous value; the swap happened iff it equals `current`.
///
/// # Safety
/// As for [`atomic_add_u64`].
#[inline]
pub unsafe fn atomic_cas_u64(p: *mut u64, current: u64, new: u64) -> u64 {
    // SAFETY: as above.
    // Ordering: Relaxed on both paths; only atomicity is needed.
    match unsafe { AtomicU64::from_ptr(p) }.compare_exchange(
        current,
        new,
        Ordering::Relaxed,
        Ordering::Relaxed,
    ) {
        Ok(v) | Err(v) => v,
    }
}

/// # Safety
/// As for [`atomic_add_u32`].
#[inline]
pub unsafe fn atomic_load_u32(p: *const u32) -> u32 {
    // SAFETY: as above.
    // Ordering: Relaxed; a racy read of a value others update atomically.
    unsafe { AtomicU32::from_ptr(p.cast_mut()) }.load(Ordering::Relaxed)
}

/// # Safety
/// As for [`atomic_add_u64`].
#[inline]
pub unsafe fn atomic_load_u64(p: *const u64) -> u64 {
    // SAFETY: as above.
    // Ordering: Relaxed; a racy read of a value others update atomically.
    unsafe { AtomicU64::from_ptr(p.cast_mut()) }.load(Ordering::Relaxed)
}

/// # Safety
/// As for [`atomic_add_u32`].
#[inline]
pub unsafe fn atomic_store_u32(p: *mut u32, v: u32) {
    // SAFETY: as above.
    // Ordering: Relaxed; a racy write others read atomically.
    unsafe { AtomicU32::from_ptr(p) }.store(v, Ordering::Relaxed);
}

/// # Safety
/// As for [`atomic_add_u64`].
#[inline]
pub unsafe fn atomic_store_u64(p: *mut u64, v: u64) {
    // SAFETY: as above.
    // Ordering: Relaxed; a racy write others read atomically.
    unsafe { AtomicU64::from_ptr(p) }.store(v, Ordering::Relaxed);
}

// The crate is `no_std` outside its own tests; the host half may still use std.
#[cfg(not(test))]
extern crate std;

/// `a * b + c` with one rounding, the same value as `fma.rn.f64` on the GPU.
#[inline]
#[must_use]
pub fn mul_add_f64(a: f64, b: f64, c: f64) -> f64 {
    a.mul_add(b, c)
}

/// Nanoseconds since the Unix epoch (the GPU's `%globaltimer` counts the same way).
#[inline]
#[must_use]
pub fn globaltimer() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// The stack pointer of the calling frame: the CPU executor's measure of how deep its native
/// stack is. Read from the register, not from a local's address, so that the function asking
/// has no local whose address escapes (one would keep LLVM from turning a sequential clone's
/// last self-call into a loop; `docs/cpu-executor.md`, "Where it stands against its targets").
///
/// Under Miri, which runs no inline assembly and keeps a stack of its own, it is the address
/// of a local of the caller's frame: the depth it measures is the interpreter's, and the CPU
/// executor's limit (`docs/cpu-executor.md`, "Under Miri") then guards what it guards on the
/// machine, that a chain of nested calls goes on as records past its budget, not the native
/// stack's size.
#[inline(always)]
#[must_use]
pub fn stack_pointer() -> usize {
    #[cfg(miri)]
    {
        let probe = 0u8;
        core::hint::black_box(&raw const probe).addr()
    }
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        let sp: usize;
        // SAFETY: copies the stack pointer register into a general register; reads and writes
        // no memory, does not touch the stack and keeps the flags.
        unsafe {
            core::arch::asm!("mov {}, rsp", out(reg) sp, options(nomem, nostack, preserves_flags));
        }
        sp
    }
    #[cfg(all(target_arch = "aarch64", not(miri)))]
    {
        let sp: usize;
        // SAFETY: as above.
        unsafe {
            core::arch::asm!("mov {}, sp", out(reg) sp, options(nomem, nostack, preserves_flags));
        }
        sp
    }
    #[cfg(all(not(any(target_arch = "x86_64", target_arch = "aarch64")), not(miri)))]
    {
        let probe = 0u8;
        core::hint::black_box(&raw const probe).addr()
    }
}
