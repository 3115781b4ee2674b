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

use super::{check, ROOT_RESULT_BYTES};
use crate::config::MAX_QUEUES;
use crate::error::Result;

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

/// Page-locked host memory from `cuMemHostAlloc`, freed on drop (the context must be current
/// then: `Inner`'s drop binds it first).
pub(super) struct Pinned {
    ptr: *mut c_void,
    bytes: usize,
}

impl Pinned {
    pub(super) const fn empty() -> Self {
        Self {
            ptr: null_mut(),
            bytes: 0,
        }
    }

    /// At least `bytes` bytes (grown, contents lost, when smaller).
    pub(super) fn reserve(&mut self, bytes: usize) -> Result<*mut c_void> {
        if self.bytes < bytes {
            self.free();
            let mut p = null_mut();
            // SAFETY: an out-pointer; the caller bound the context.
            check("cuMemHostAlloc", unsafe {
                sys::cuMemHostAlloc(&raw mut p, bytes, 0)
            })?;
            self.ptr = p;
            self.bytes = bytes;
        }
        Ok(self.ptr)
    }

    /// The headers' region (reserved first).
    pub(super) fn headers(&mut self) -> Result<*mut Headers> {
        Ok(self.reserve(size_of::<Headers>())?.cast())
    }

    /// Room for `n` warps' statistics (reserved first).
    pub(super) fn stats(&mut self, n: usize) -> Result<*mut WarpStats> {
        Ok(self.reserve(n * size_of::<WarpStats>())?.cast())
    }

    fn free(&mut self) {
        if !self.ptr.is_null() {
            // SAFETY: allocated by cuMemHostAlloc; no copy into it is in flight (see the
            // module's invariant).
            let _ = unsafe { sys::cuMemFreeHost(self.ptr) };
            self.ptr = null_mut();
            self.bytes = 0;
        }
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        self.free();
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
