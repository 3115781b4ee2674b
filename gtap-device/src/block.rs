//! What the body of a block-level task (`#[gtap::function(block)]`) can ask of its block.
//!
//! A block-level task runs on every thread of a thread block at once (SPMD): each thread runs
//! the whole body with its own locals. [`thread_index`] and [`size`] tell a thread where it is;
//! [`sync`] and the collectives ([`any`], [`count`], [`sum_f64`], [`sum_u64`], [`max_u32`],
//! [`broadcast`]) are block barriers that exchange values through the device layer's shared
//! memory.
//!
//! # Rules (checked by `#[gtap::function]` where it can)
//!
//! - **Barriers are uniform.** Every thread of the block must reach the same [`sync`] /
//!   collective / `taskwait!()` the same number of times: none of them may sit under control
//!   flow that depends on [`thread_index`] (or on a value derived from it). The macro rejects
//!   a `taskwait!()` or a collective under such a condition, or after a `return`/`break` under
//!   one.
//! - **`task!` is per thread.** Every thread that executes a `task!` spawns its own child with
//!   its own argument values, and a `let x = task!(..)` result is delivered to that thread's
//!   `x`. To spawn one child for the whole block, guard the spawn with
//!   `if gtap::block::thread_index() == 0 { .. }` and share the joined result with
//!   [`broadcast`].
//! - **Locals are per thread,** also across a `taskwait!()`: the scheduler keeps one copy of a
//!   joining block task's frame per thread. Shared memory does not survive a `taskwait!()`
//!   (another task may run on the block meanwhile).
//! - **The result** of a block-level task is the value thread 0 returns.
//!
//! # Where they work
//!
//! On block-level GPU workers, over the launch's block (`Config::block_threads`, a multiple
//! of 32). On the CPU executor a block-level task runs on a block of one thread:
//! `thread_index() == 0`, `size() == 1`, barriers do nothing and every collective returns its
//! own argument, so block code written with strided loops (`(t..n).step_by(size)`) is correct
//! on both. Called from a thread-level task these functions are meaningless; the macro rejects
//! them there.
//!
//! # Reduction order (so a CPU reference can reproduce [`sum_f64`] bit for bit)
//!
//! Lane `l` of each warp holds `x[l]`; for `off` in 16, 8, 4, 2, 1 every lane computes
//! `x[l] = x[l] + x[l ^ off]`; then the warp totals `w[0..W]` are added in order,
//! `((w[0] + w[1]) + w[2]) + ..`. [`sum_f64_reference`] does exactly this on the host.

/// This thread's index in the block, `0..size()`.
#[inline(always)]
#[must_use]
pub fn thread_index() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        crate::arch::nvptx::thread_idx_x()
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        0
    }
}

/// The number of threads running the task together.
#[inline(always)]
#[must_use]
pub fn size() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        crate::arch::nvptx::block_dim_x()
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        1
    }
}

/// Whether this is thread 0, the thread whose return value is the task's result.
#[inline(always)]
#[must_use]
pub fn is_leader() -> bool {
    thread_index() == 0
}

/// A block barrier: every thread waits until all have arrived; memory written before it by
/// any thread of the block is visible to all after it.
#[inline(always)]
pub fn sync() {
    #[cfg(target_arch = "nvptx64")]
    crate::arch::nvptx::bar_sync();
}

/// A barrier that returns whether `pred` is true on any thread.
#[inline(always)]
#[must_use]
pub fn any(pred: bool) -> bool {
    #[cfg(target_arch = "nvptx64")]
    {
        crate::arch::nvptx::bar_red_or(pred)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        pred
    }
}

/// A barrier that returns on how many threads `pred` is true.
#[inline(always)]
#[must_use]
pub fn count(pred: bool) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        crate::arch::nvptx::bar_red_popc(pred)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        u32::from(pred)
    }
}

#[cfg(target_arch = "nvptx64")]
mod gpu {
    use crate::arch::nvptx as a;
    use crate::gpu::layout::{BLOCK_SMEM_COLLECTIVE, BLOCK_SMEM_COLLECTIVE_BYTES};

    /// The block's collective area in shared memory (see `gpu::layout`; 16-aligned), as a
    /// shared-window address: the reductions' slots are read and written as `.shared`
    /// accesses (`LDS`/`STS`), not through a generic pointer.
    #[inline(always)]
    pub(super) fn area() -> a::SharedWord {
        const { assert!(BLOCK_SMEM_COLLECTIVE.is_multiple_of(16)) };
        a::dynamic_smem_word(BLOCK_SMEM_COLLECTIVE)
    }

    /// Adds a per-warp partial (every lane gets the warp's total) and then the warp totals in
    /// order; the module docs give the exact order.
    #[inline(always)]
    pub(super) fn reduce<T: Copy>(
        v: T,
        bits: fn(T) -> u64,
        from: fn(u64) -> T,
        add: fn(T, T) -> T,
    ) -> T {
        let lane = a::lane_id();
        let mut x = v;
        let mut off = 16;
        while off > 0 {
            let other = from(a::shfl_sync_idx_b64(0xffff_ffff, bits(x), lane ^ off));
            x = add(x, other);
            off >>= 1;
        }
        let warps = a::block_dim_x() / 32;
        // Warp w's slot: the 8 bytes at 8 * w (two words).
        let slot = |w: u32| area().add(2 * w as usize);
        a::bar_sync(); // the area is free: an earlier collective's reads are done
        if lane == 0 {
            // SAFETY: warp < 32 (blocks of at most 1024 threads): inside the 256-byte area,
            // 8-aligned; only this warp's lane 0 writes it before the barrier.
            unsafe { a::st_shared_u64(slot(a::thread_idx_x() / 32), bits(x)) };
        }
        a::bar_sync();
        // SAFETY: every warp's slot was written before the barrier; none is written again
        // before the next collective's first barrier.
        let mut total = from(unsafe { a::ld_shared_u64(slot(0)) });
        for w in 1..warps {
            // SAFETY: as above.
            total = add(total, from(unsafe { a::ld_shared_u64(slot(w)) }));
        }
        total
    }

    /// Thread 0's `v`, for every thread.
    #[inline(always)]
    pub(super) fn broadcast<T: Copy>(v: T) -> T {
        const { assert!(core::mem::size_of::<T>() <= BLOCK_SMEM_COLLECTIVE_BYTES as usize) };
        const { assert!(core::mem::align_of::<T>() <= 16) };
        // Any `Copy` type: plain Rust accesses through the area's generic address.
        let p = area().generic().cast::<T>();
        a::bar_sync(); // the area is free
        if a::thread_idx_x() == 0 {
            // SAFETY: T fits the 16-aligned area (checked above).
            unsafe { p.write(v) };
        }
        a::bar_sync();
        // SAFETY: written by thread 0 before the barrier.
        unsafe { p.read() }
    }
}

/// The sum of `v` over the block's threads, in the order given in the module docs; every
/// thread gets it.
#[inline(always)]
#[must_use]
pub fn sum_f64(v: f64) -> f64 {
    #[cfg(target_arch = "nvptx64")]
    {
        gpu::reduce(v, f64::to_bits, f64::from_bits, |x, y| x + y)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        v
    }
}

/// The wrapping sum of `v` over the block's threads; every thread gets it.
#[inline(always)]
#[must_use]
pub fn sum_u64(v: u64) -> u64 {
    #[cfg(target_arch = "nvptx64")]
    {
        gpu::reduce(v, |x| x, |x| x, u64::wrapping_add)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        v
    }
}

/// The largest `v` over the block's threads; every thread gets it.
#[inline(always)]
#[must_use]
pub fn max_u32(v: u32) -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        gpu::reduce(v, u64::from, |x| x as u32, u32::max)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        v
    }
}

/// Thread 0's `v`, for every thread (at most 256 bytes, 16-aligned at most).
#[inline(always)]
#[must_use]
pub fn broadcast<T: Copy>(v: T) -> T {
    #[cfg(target_arch = "nvptx64")]
    {
        gpu::broadcast(v)
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        v
    }
}

/// What [`sum_f64`] returns on a block whose thread `t` passes `partials[t]`
/// (`partials.len()` a multiple of 32, or 1 for the CPU executor's block of one), computed on
/// the host in the same order, for references that must match the GPU bit for bit.
#[must_use]
pub fn sum_f64_reference(partials: &[f64]) -> f64 {
    if partials.len() == 1 {
        return partials[0];
    }
    let mut total = None;
    for warp in partials.chunks(32) {
        let mut x = [0.0f64; 32];
        x[..warp.len()].copy_from_slice(warp);
        let mut off = 16;
        while off > 0 {
            let prev = x;
            for (l, v) in x.iter_mut().enumerate() {
                *v = prev[l] + prev[l ^ off];
            }
            off >>= 1;
        }
        total = Some(match total {
            None => x[0],
            Some(t) => t + x[0],
        });
    }
    total.unwrap_or(0.0)
}
