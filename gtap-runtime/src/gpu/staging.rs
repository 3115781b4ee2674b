//! Pinned host memory ([`Pinned`]) and the GPU's [`Lane`]: two pinned staging chunks, a
//! stream of its own, and one event per chunk that marks the end of the chunk's last DMA.
//!
//! Every driver call here needs the CUDA context bound to the calling thread; the lanes run on
//! threads of their own, which bind it first (`transfer.rs`).

use std::ffi::c_void;
use std::ptr::null_mut;

use cudarc::driver::sys;

use super::pipeline::{Lane, SLOTS};
use super::{check, CuResult, OK};
use crate::error::{Error, Result};

/// Page-locked host memory from `cuMemHostAlloc`; freed on drop.
pub(crate) struct Pinned {
    ptr: *mut u8,
    bytes: usize,
}

impl Pinned {
    /// `bytes` bytes of pinned host memory (the context must be bound).
    pub(crate) fn new(bytes: usize) -> Result<Self> {
        let mut p: *mut c_void = null_mut();
        // SAFETY: an out-pointer; flags 0 ask for plain pinned memory of this context.
        let r = unsafe { sys::cuMemHostAlloc(&raw mut p, bytes.max(1), 0) };
        match r {
            OK if !p.is_null() => Ok(Self {
                ptr: p.cast(),
                bytes,
            }),
            OK | CuResult::CUDA_ERROR_OUT_OF_MEMORY => Err(Error::OutOfMemory {
                bytes,
                memory: "pinned host (staging chunks: see Config::transfer)",
            }),
            r => Err(super::driver("cuMemHostAlloc", r)),
        }
    }

    pub(crate) fn ptr(&self) -> *mut u8 {
        self.ptr
    }

    pub(crate) fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for Pinned {
    fn drop(&mut self) {
        // SAFETY: allocated by `cuMemHostAlloc` in `new` and freed once; no DMA uses it (the
        // pipeline waits for every copy before it returns).
        unsafe {
            let _ = sys::cuMemFreeHost(self.ptr.cast());
        }
    }
}

/// A lane of the staged path on the GPU.
pub(crate) struct GpuLane {
    stream: sys::CUstream,
    slots: [Pinned; SLOTS],
    /// `done[s]` is recorded on `stream` after each copy that uses slot `s`.
    done: [sys::CUevent; SLOTS],
}

// SAFETY: the stream and event handles are valid on any thread that binds the context, which
// every lane thread does before using the lane; the pinned memory is owned by the lane and
// reached only through `&mut GpuLane`.
unsafe impl Send for GpuLane {}

impl GpuLane {
    /// A lane with two chunks of `chunk_bytes` (the context must be bound).
    pub(crate) fn new(chunk_bytes: usize) -> Result<Self> {
        let slots = [Pinned::new(chunk_bytes)?, Pinned::new(chunk_bytes)?];
        let mut lane = Self {
            stream: null_mut(),
            slots,
            done: [null_mut(); SLOTS],
        };
        // A lane that fails half-way is dropped, which destroys what was created.
        let flags = sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32;
        // SAFETY: out-pointers to fields of `lane`; the context is bound.
        check("cuStreamCreate", unsafe {
            sys::cuStreamCreate(&raw mut lane.stream, flags)
        })?;
        let ev = sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32;
        for e in &mut lane.done {
            // SAFETY: as above.
            check("cuEventCreate", unsafe { sys::cuEventCreate(e, ev) })?;
        }
        Ok(lane)
    }

    /// Bytes per chunk.
    pub(crate) fn chunk_bytes(&self) -> usize {
        self.slots[0].bytes()
    }
}

impl Lane for GpuLane {
    fn slot(&mut self, slot: usize) -> *mut u8 {
        self.slots[slot].ptr()
    }

    fn start_to_device(&mut self, slot: usize, dev: u64, len: usize) -> Result<()> {
        // SAFETY: the slot holds at least `len` bytes (the plan's chunks fit a slot) and stays
        // untouched until `wait(slot)`; the caller of the pipeline guarantees the device range.
        unsafe {
            check(
                "cuMemcpyHtoDAsync",
                sys::cuMemcpyHtoDAsync_v2(dev, self.slots[slot].ptr().cast(), len, self.stream),
            )?;
            check(
                "cuEventRecord",
                sys::cuEventRecord(self.done[slot], self.stream),
            )
        }
    }

    fn start_to_host(&mut self, slot: usize, dev: u64, len: usize) -> Result<()> {
        // SAFETY: as in `start_to_device`, in the other direction.
        unsafe {
            check(
                "cuMemcpyDtoHAsync",
                sys::cuMemcpyDtoHAsync_v2(self.slots[slot].ptr().cast(), dev, len, self.stream),
            )?;
            check(
                "cuEventRecord",
                sys::cuEventRecord(self.done[slot], self.stream),
            )
        }
    }

    fn wait(&mut self, slot: usize) -> Result<()> {
        // SAFETY: an event created in `new`.
        check("cuEventSynchronize", unsafe {
            sys::cuEventSynchronize(self.done[slot])
        })
    }
}

impl Drop for GpuLane {
    fn drop(&mut self) {
        // SAFETY: handles created in `new` (null ones skipped), destroyed once; the pinned
        // slots are freed after this, by their own `Drop`, once the stream is gone.
        unsafe {
            if !self.stream.is_null() {
                let _ = sys::cuStreamSynchronize(self.stream);
            }
            for e in self.done {
                if !e.is_null() {
                    let _ = sys::cuEventDestroy_v2(e);
                }
            }
            if !self.stream.is_null() {
                let _ = sys::cuStreamDestroy_v2(self.stream);
            }
        }
    }
}
