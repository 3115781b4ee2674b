//! The task code of hello-gtap. The same source is compiled twice: for the host, where the CPU
//! executor runs it, and by `build.rs` for `nvptx64-nvidia-cuda`, where the GPU runs it. Only
//! what `core` has is available here (no `Vec`, no `println!`): data comes in and goes out
//! through [`Slice`] handles to buffers the host program made.
#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]

use gtap::Slice;

/// Elements one task handles itself; larger ranges are split in two child tasks.
pub const LEAF: usize = 1024;

/// Writes `output[i] = input[i]²` for every `i` in `lo..hi` and returns the sum of those
/// squares (wrapping on overflow), by divide and conquer: a range of more than [`LEAF`]
/// elements forks two child tasks for its halves and joins them. The leaves write disjoint
/// parts of `output`, which is what makes the writes race-free.
#[gtap::function]
pub fn square_sum(input: Slice<u32>, output: Slice<u64>, lo: usize, hi: usize) -> u64 {
    if hi - lo <= LEAF {
        let mut sum = 0u64;
        let mut i = lo;
        while i < hi {
            let x = u64::from(input.get(i));
            output.set(i, x * x);
            sum = sum.wrapping_add(x * x);
            i += 1;
        }
        return sum;
    }
    let mid = lo + (hi - lo) / 2;
    let left = task!(square_sum(input, output, lo, mid)); // fork
    let right = task!(square_sum(input, output, mid, hi));
    taskwait!(); // join: `left` and `right` are filled here
    left.wrapping_add(right)
}

gtap::program!(
    /// The task functions that run together: the root's and every one it spawns.
    pub SquareSum = [square_sum]
);

// The program's persistent GPU kernel (expands to nothing on the host).
gtap::kernel!(SquareSum);
