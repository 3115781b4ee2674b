//! How user data crosses between host and GPU: [`Transfer`], the `Config::transfer` field.
//!
//! [`Runtime::upload`](crate::Runtime::upload), [`Runtime::upload_into`](crate::Runtime::upload_into),
//! [`Runtime::download`](crate::Runtime::download) and
//! [`Runtime::download_into`](crate::Runtime::download_into) copy through one of three paths
//! ([`TransferPath`]); the default, [`TransferPath::Staged`], is the fast one for the pageable
//! memory (`Vec`s, slices) users hold. The CPU executor ignores all of this: its buffers are
//! host memory and a transfer is one `memcpy`.
//!
//! # Why staging, and why several threads
//!
//! A DMA engine reads and writes only page-locked ("pinned") host memory. Given pageable memory,
//! the driver copies it through its own small pinned buffer, one piece at a time, on the
//! calling thread, without overlapping that copy with the DMA. The three ways around it:
//!
//! - **Pin the user's memory** (`cuMemHostRegister`): then the DMA reads it directly, at the
//!   link's rate. But pinning faults in, walks and locks every page, and unpinning undoes it,
//!   on every call: the registration cannot be cached across calls, because the caller may
//!   free or reuse the memory once the call returns (and memory must be unpinned before it is
//!   freed). It pays off only when the pinning costs less than the copy it saves.
//!   [`TransferPath::Registered`] does it per call, so that the two can be measured.
//! - **Copy through our own pinned chunks, overlapped** ([`TransferPath::Staged`]): the host
//!   copies chunk `i + 1` into one pinned chunk while the DMA engine moves chunk `i` out of the
//!   other (double buffering). One core's `memcpy` (typically 8-15 GB/s) is slower than the
//!   host link (PCIe 5 x16: about 50 GB/s per direction), so the range is split over
//!   [`Transfer::threads`] lanes, each a thread with its own two chunks and CUDA stream, all
//!   feeding the same copy engine. The pinned chunks are allocated once, on first use, and
//!   reused by every later transfer.
//! - **Hand the pageable memory to the driver** ([`TransferPath::Direct`]): the path before
//!   staging existed, kept as the baseline of the measurement.
//!
//! `bench only=transfer` times all three on the GPU at the sorts' size; `docs/benchmarks.md`
//! ("What a user pays") has the numbers.

use crate::error::{Error, Result};

/// Which path [`Runtime`](crate::Runtime) transfers to and from the GPU take (see the module
/// docs for the measurements behind the default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum TransferPath {
    /// Through reusable pinned chunks, double-buffered per lane, over
    /// [`Transfer::threads`] lanes in parallel (the default).
    #[default]
    Staged,
    /// Pin the caller's memory for the duration of the copy (`cuMemHostRegister`), DMA
    /// directly, unpin. For measurements.
    Registered,
    /// Synchronous pageable copies by the driver (`cuMemcpyHtoD` / `cuMemcpyDtoH`). For
    /// measurements.
    Direct,
}

/// How host data crosses to and from the GPU (`Config::transfer`). The CPU executor ignores it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Transfer {
    /// The path (default [`TransferPath::Staged`]).
    pub path: TransferPath,
    /// Bytes per pinned staging chunk, the largest piece one DMA moves: a multiple of 4096 in
    /// 64 KiB..=256 MiB (default 4 MiB: a chunk's DMA takes about 80 µs at 50 GB/s, long
    /// enough to hide the few µs of driver calls around it, short enough that the first and
    /// last chunk of a lane, which do not overlap, cost little). Each lane holds two.
    pub chunk_bytes: usize,
    /// Lanes (host threads, each with two chunks and a stream) that copy a large transfer in
    /// parallel, `1..=64` (default: the available parallelism, at most 8, which is enough
    /// `memcpy` bandwidth to keep one host link busy). A transfer takes one lane per 2 MiB
    /// (two chunks of at least 1 MiB each), so transfers under 4 MiB stay on the calling
    /// thread, and a medium one (40 MB) still uses every lane with smaller chunks.
    pub threads: usize,
}

/// Bytes per staging chunk by default.
pub const DEFAULT_CHUNK_BYTES: usize = 4 << 20;

impl Default for Transfer {
    fn default() -> Self {
        Self {
            path: TransferPath::Staged,
            chunk_bytes: DEFAULT_CHUNK_BYTES,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get().min(8)),
        }
    }
}

impl Transfer {
    /// Checks the fields' ranges.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidConfig`] naming the field (`transfer.chunk_bytes`, `transfer.threads`).
    pub fn validate(&self) -> Result<()> {
        if !(64 << 10..=256 << 20).contains(&self.chunk_bytes)
            || !self.chunk_bytes.is_multiple_of(4096)
        {
            return Err(Error::InvalidConfig {
                field: "transfer.chunk_bytes",
                value: self.chunk_bytes.to_string(),
                expected: "a multiple of 4096 in 64 KiB..=256 MiB",
            });
        }
        if !(1..=64).contains(&self.threads) {
            return Err(Error::InvalidConfig {
                field: "transfer.threads",
                value: self.threads.to_string(),
                expected: "1..=64",
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_is_valid_and_bounded() {
        let t = Transfer::default();
        t.validate().unwrap();
        assert!((1..=8).contains(&t.threads));
        assert_eq!(t.path, TransferPath::Staged);
    }

    #[test]
    fn out_of_range_fields_are_named() {
        for (field, t) in [
            (
                "transfer.chunk_bytes",
                Transfer {
                    chunk_bytes: 4097 * 64,
                    ..Transfer::default()
                },
            ),
            (
                "transfer.chunk_bytes",
                Transfer {
                    chunk_bytes: 4096,
                    ..Transfer::default()
                },
            ),
            (
                "transfer.threads",
                Transfer {
                    threads: 0,
                    ..Transfer::default()
                },
            ),
        ] {
            match t.validate() {
                Err(Error::InvalidConfig { field: f, .. }) => assert_eq!(f, field),
                other => panic!("{t:?}: expected InvalidConfig for {field}, got {other:?}"),
            }
        }
    }
}
