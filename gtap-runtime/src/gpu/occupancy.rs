//! The default number of resident blocks per SM: the occupancy query's, unless the threads'
//! stack frames would not fit in the SM's L1 cache together.
//!
//! A body with a large local array (nqueens' leaf solver keeps an explicit stack of 736 bytes
//! per thread) makes every resident thread hold that much local memory, which the SM caches
//! in its L1. At the occupancy query's 16 warps per SM, nqueens' frames (377 KB) outgrow the
//! 256 KB of an H200's L1, and local accesses go to L2: nqueens(16) ran in 69.6 ms at 16 warps
//! per SM and 65.3 at 10 (`docs/benchmarks.md`, tenth session). Every other example kernel has
//! a 176-byte frame (90 KB at 16 warps per SM) and keeps the query's occupancy.
//!
//! # Invariants
//!
//! - The result is never above the occupancy query's blocks per SM (the co-residency bound
//!   every persistent grid must keep) and never below half of it, nor below 1: fewer warps
//!   also hide less latency, so L1 is traded for at most half the warps.
//! - Only the default grid follows it: an explicit `Config::grid` is checked against the
//!   occupancy query alone.

/// Bytes of the unified L1/shared-memory array of an SM beyond the most shared memory a
/// block may use (`CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR`): 256 KB
/// against 228 KB on sm_90 (H100, H200), 192 against 164 on sm_80, 128 against 100 on
/// sm_86 and sm_89 (CUDA C++ Programming Guide, "Technical Specifications").
pub(super) const L1_BEYOND_MAX_SHARED: u32 = 28 << 10;

/// Blocks per SM for the default grid: `per_sm` (the occupancy query's) lowered, down to
/// half of it, until the stack frames (`local_bytes` per thread, the kernel's
/// `CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES`) of all resident threads (`block` per block) fit in
/// `l1_bytes` less the shared memory the blocks take (`smem` per block).
pub(super) fn default_blocks_per_sm(
    per_sm: u32,
    block: u32,
    smem: u32,
    local_bytes: u32,
    l1_bytes: u32,
) -> u32 {
    let floor = (per_sm / 2).max(1);
    if local_bytes == 0 || block == 0 || per_sm <= floor {
        return per_sm;
    }
    let mut n = per_sm;
    while n > floor {
        let frames = u64::from(n) * u64::from(block) * u64::from(local_bytes);
        let l1_left = u64::from(l1_bytes).saturating_sub(u64::from(n) * u64::from(smem));
        if frames <= l1_left {
            break;
        }
        n -= 1;
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An H200: 228 KB of shared memory at most, 256 KB of L1 in all.
    const H200_L1: u32 = (228 << 10) + L1_BEYOND_MAX_SHARED;

    #[test]
    fn small_frames_keep_the_query() {
        // Every example kernel but nqueens: 176 bytes, 16 warps of 32 threads per SM.
        assert_eq!(default_blocks_per_sm(16, 32, 96, 176, H200_L1), 16);
        // No stack at all.
        assert_eq!(default_blocks_per_sm(23, 32, 96, 0, H200_L1), 23);
    }

    #[test]
    fn a_large_frame_fits_its_warps_in_l1() {
        // nqueens: 736 bytes per thread; 11 warps of frames (259 KB) fit next to 11 blocks'
        // shared words, 12 (283 KB) do not.
        let n = default_blocks_per_sm(16, 32, 96, 736, H200_L1);
        assert_eq!(n, 11);
        assert!(u64::from(n) * 32 * 736 <= u64::from(H200_L1));
        assert!(u64::from(n + 1) * 32 * 736 > u64::from(H200_L1));
        // Block-level workers: 128 threads per block.
        assert_eq!(default_blocks_per_sm(4, 128, 1024, 736, H200_L1), 2);
    }

    #[test]
    fn never_below_half_the_query_nor_zero() {
        assert_eq!(default_blocks_per_sm(16, 32, 96, 64 << 10, H200_L1), 8);
        assert_eq!(default_blocks_per_sm(1, 1024, 0, 64 << 10, H200_L1), 1);
        assert_eq!(default_blocks_per_sm(3, 32, 0, 64 << 10, H200_L1), 1);
        assert_eq!(default_blocks_per_sm(0, 32, 0, 736, H200_L1), 0);
    }

    #[test]
    fn shared_memory_takes_its_part_of_l1() {
        // Two blocks of 110 KB of shared memory leave 36 KB, less than two blocks' frames of
        // 736 bytes (46 KB); one block's leave 146 KB.
        assert_eq!(default_blocks_per_sm(2, 32, 110 << 10, 736, H200_L1), 1);
        assert_eq!(default_blocks_per_sm(2, 32, 100 << 10, 736, H200_L1), 2);
    }
}
