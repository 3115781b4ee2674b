//! The pinned host memory a run's readback lands in: the control block, the spill and queue
//! headers, the root's result and the per-warp statistics, all copied on the run's stream
//! and waited for once. Copies into pageable memory each wait for the stream on their own
//! (a round trip apiece); into pinned memory they queue behind the kernel and one
//! synchronization covers them all.
//!
//! Invariant: the host reads a region only after the stream synchronization that follows the
//! copies into it (`Inner::finish`), and the next run's copies are queued only after that.

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys;
use gtap_device::gpu::layout::{Control, GlobalQueueHeader, SpillHeader, WarpStats};

use super::{check, staging, ROOT_RESULT_BYTES};
use crate::config::MAX_QUEUES;
use crate::error::{Error, Result};

/// The fixed part of a run's readback.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct Headers {
    pub(super) control: Control,
    pub(super) spill: SpillHeader,
    /// The overflow queues' headers, then (several GPUs) the export queues'.
    pub(super) queues: [GlobalQueueHeader; 2 * MAX_QUEUES as usize],
    pub(super) inbox: GlobalQueueHeader,
    pub(super) root: [u8; ROOT_RESULT_BYTES],
}

/// A pinned region ([`staging::Pinned`]) grown to the largest size asked for.
#[derive(Default)]
pub(super) struct Pinned {
    mem: Option<staging::Pinned>,
}

impl Pinned {
    /// At least `bytes` bytes (grown, contents lost, when smaller; the caller bound the
    /// context).
    fn reserve(&mut self, bytes: usize) -> Result<*mut c_void> {
        if self.mem.as_ref().is_none_or(|m| m.bytes() < bytes) {
            self.mem = None;
            let mem = staging::Pinned::new(bytes).map_err(|e| match e {
                Error::OutOfMemory { bytes, .. } => Error::OutOfMemory {
                    bytes,
                    memory: "pinned host (a run's readback)",
                },
                e => e,
            })?;
            self.mem = Some(mem);
        }
        Ok(self.mem.as_ref().map_or(null_mut(), |m| m.ptr().cast()))
    }

    /// The headers' region (reserved first).
    pub(super) fn headers(&mut self) -> Result<*mut Headers> {
        Ok(self.reserve(size_of::<Headers>())?.cast())
    }

    /// Room for `n` warps' statistics (reserved first).
    pub(super) fn stats(&mut self, n: usize) -> Result<*mut WarpStats> {
        Ok(self.reserve(n * size_of::<WarpStats>())?.cast())
    }
}

/// Queues a copy of `bytes` bytes from device address `src` into pinned `dst` on `s`.
///
/// # Safety
///
/// `dst` is pinned host memory valid for `bytes` bytes until the stream is synchronized, and
/// `src` holds that many bytes.
pub(super) unsafe fn queue(
    dst: *mut c_void,
    src: u64,
    bytes: usize,
    s: sys::CUstream,
) -> Result<()> {
    // SAFETY: forwarded from the caller.
    check("cuMemcpyDtoHAsync", unsafe {
        sys::cuMemcpyDtoHAsync_v2(dst, src, bytes, s)
    })
}
