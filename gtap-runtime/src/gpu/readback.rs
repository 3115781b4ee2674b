//! The pinned host memory of a run's fixed-size traffic: its setup is staged here (the
//! control block, the spill and queue headers, the params and the root's record) and its
//! readback lands here (the same headers as the kernel left them, the root's result and the
//! per-warp statistics).
//!
//! The device keeps the control block, the spill and queue headers and the root's result in
//! one region laid out as [`Headers`] (`Inner::run_block`), so that a run's setup writes them
//! with one copy and its readback reads them with one. Copies from and into pinned memory queue
//! on the run's stream without waiting (a pageable copy is staged by the driver, a round trip
//! apiece), and one synchronization covers them all.
//!
//! Invariants: the host reads a readback region only after the stream synchronization that
//! follows the copies into it (`Inner::finish`), and writes a staging region only when no copy
//! from it is queued (`Inner::setup_pending`: the stream is synchronized first when one may
//! be).

use std::ffi::c_void;
use std::ptr::null_mut;

use gtap_device::gpu::layout::{
    Control, GlobalQueueHeader, Params, SpillHeader, WarpStats, HEADER_BYTES,
};

use super::{staging, ROOT_RESULT_BYTES};
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

/// The bytes of [`Headers`] a run's setup writes (everything before the root's result).
pub(super) const SETUP_BYTES: usize = core::mem::offset_of!(Headers, root);

/// A run's staged setup: the headers' image, the params, then the root's record (its header
/// and arguments; `root_bytes` long).
#[repr(C)]
pub(super) struct Staged {
    pub(super) headers: Headers,
    pub(super) params: Params,
}

impl Staged {
    /// Where the root's record starts (16-byte aligned, like a slot).
    pub(super) const ROOT: usize = size_of::<Self>().next_multiple_of(16);
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
                    memory: "pinned host (a run's setup and readback)",
                },
                e => e,
            })?;
            self.mem = Some(mem);
        }
        Ok(self.mem.as_ref().map_or(null_mut(), |m| m.ptr().cast()))
    }

    /// The size of the current allocation (0: none); it changes only when `reserve` grows it.
    pub(super) fn bytes(&self) -> usize {
        self.mem.as_ref().map_or(0, staging::Pinned::bytes)
    }

    /// A staged setup with room for a root record of `root_bytes` (reserved first).
    pub(super) fn staged(&mut self, root_bytes: usize) -> Result<*mut Staged> {
        debug_assert!(root_bytes >= HEADER_BYTES as usize);
        Ok(self.reserve(Staged::ROOT + root_bytes)?.cast())
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
