//! User data on the GPU: the device memory behind a `Buffer` ([`DeviceBuffer`]), the copies
//! between it and the host ([`Transfers`]), and the backend's data methods that the `Runtime`
//! calls (`GpuBackend::{upload, upload_into, alloc_zeroed, download}`), by the path
//! `Config::transfer` names (see
//! `crate::transfer` for the paths and why staging is the default; `docs/gpu-runtime.md`,
//! "Data path", for the whole picture).
//!
//! # Ordering with runs
//!
//! Every copy and memset here runs on streams of its own (the transfer stream, or a staging
//! lane's) and is waited for before the call returns, so a run launched afterwards on the run
//! stream sees the data, and a run has finished (its stream synchronized) before a download
//! can start. Nothing is left in flight between calls: a `Buffer` can be dropped, and the
//! caller's slice reused, as soon as a call returns. The non-blocking streams never wait on the
//! legacy default stream, which is why even the direct path uses an `Async` copy on the
//! transfer stream followed by a synchronize, not the legacy synchronous calls (a pageable
//! `cuMemcpyHtoD` may return before its last DMA lands).
//!
//! # Locking
//!
//! The lanes (pinned chunks, streams, events) sit behind a mutex: two threads transferring
//! through one runtime at once take turns. A staged transfer spawns its extra lanes as scoped
//! threads for the call, so nothing outlives it.

use std::ffi::c_void;
use std::mem::MaybeUninit;
use std::ptr::null_mut;
use std::sync::{Arc, Mutex, PoisonError};

use cudarc::driver::{sys, CudaContext};

use super::contexts::Token;

use super::pipeline::{self, Plan};
use super::staging::GpuLane;
use super::{check, dev_alloc, driver, CuResult, OK};
use crate::error::{Error, Result};
use crate::transfer::{Transfer, TransferPath};

/// Device memory of `capacity` bytes; freed on drop.
pub(crate) struct DeviceBuffer {
    /// 0 only while empty after a failed regrowth (see [`Transfers::reserve`]).
    ptr: u64,
    capacity: usize,
    ctx: Arc<CudaContext>,
    /// The context it was allocated in (not freed through a lost one: `contexts.rs`).
    token: Token,
}

impl DeviceBuffer {
    pub(crate) fn ptr(&self) -> u64 {
        self.ptr
    }

    /// Bytes allocated: a `Buffer` of this memory holds at most this many bytes of elements.
    pub(crate) fn capacity(&self) -> usize {
        self.capacity
    }

    /// Frees the memory now (the context is bound by the caller); the buffer is empty after.
    fn release(&mut self) {
        if self.ptr != 0 {
            // SAFETY: allocated by `dev_alloc` in this context and freed once (`ptr` is
            // cleared); no copy or run uses it (every call waits for its copies, and runs
            // only borrow it while the caller holds the `Buffer`).
            unsafe {
                let _ = sys::cuMemFree_v2(self.ptr);
            }
        }
        self.ptr = 0;
        self.capacity = 0;
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        if self.token.current() && self.ctx.bind_to_thread().is_ok() {
            self.release();
        }
    }
}

/// Moves user data between host and device for one GPU runtime.
pub(crate) struct Transfers {
    ctx: Arc<CudaContext>,
    /// The runtime's context (`contexts.rs`): nothing is freed through it once it is lost.
    token: Token,
    config: Transfer,
    /// The direct and registered paths' copies and every memset.
    stream: sys::CUstream,
    /// Staging lanes, made on first use and kept (a transfer takes as many as its plan needs).
    lanes: Mutex<Vec<GpuLane>>,
}

// SAFETY: the stream handle is valid on any thread that binds the context (each method binds
// it first) and driver calls on it are thread-safe; the lanes are behind the mutex.
unsafe impl Send for Transfers {}
// SAFETY: as above: `&Transfers` reaches the lanes only through the mutex.
unsafe impl Sync for Transfers {}

impl Transfers {
    /// No pinned memory yet: the staging lanes are made by the first staged transfer.
    pub(crate) fn new(ctx: Arc<CudaContext>, token: Token, config: Transfer) -> Result<Self> {
        let mut me = Self {
            ctx,
            token,
            config,
            stream: null_mut(),
            lanes: Mutex::new(Vec::new()),
        };
        me.bind()?;
        let flags = sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32;
        // SAFETY: an out-pointer; the context is bound.
        check("cuStreamCreate", unsafe {
            sys::cuStreamCreate(&raw mut me.stream, flags)
        })?;
        Ok(me)
    }

    fn bind(&self) -> Result<()> {
        bind(&self.ctx)
    }

    /// `bytes` bytes of device memory, contents unspecified (every byte is written before a
    /// `Buffer` exposes it).
    pub(crate) fn alloc(&self, bytes: usize) -> Result<DeviceBuffer> {
        self.bind()?;
        Ok(DeviceBuffer {
            ptr: dev_alloc(bytes.max(1))?,
            capacity: bytes,
            ctx: self.ctx.clone(),
            token: self.token,
        })
    }

    /// `bytes` zeroed bytes of device memory.
    pub(crate) fn alloc_zeroed(&self, bytes: usize) -> Result<DeviceBuffer> {
        let buf = self.alloc(bytes)?;
        if bytes > 0 {
            // SAFETY: the allocation holds `bytes` bytes; the memset is waited for.
            unsafe {
                check(
                    "cuMemsetD8Async",
                    sys::cuMemsetD8Async(buf.ptr, 0, bytes, self.stream),
                )?;
                check("cuStreamSynchronize", sys::cuStreamSynchronize(self.stream))?;
            }
        }
        Ok(buf)
    }

    /// Makes `buf` hold at least `bytes` bytes: nothing when it does; otherwise it frees the old
    /// memory first and allocates anew (contents lost). On an error `buf` is left empty
    /// (capacity 0).
    pub(crate) fn reserve(&self, buf: &mut DeviceBuffer, bytes: usize) -> Result<()> {
        if buf.capacity >= bytes && buf.ptr != 0 {
            return Ok(());
        }
        self.bind()?;
        buf.release();
        buf.ptr = dev_alloc(bytes.max(1))?;
        buf.capacity = bytes;
        Ok(())
    }

    /// Copies `bytes` host bytes at `src` to device address `dst`; returns when they are there.
    ///
    /// # Safety
    ///
    /// `src` is valid for reads of `bytes` bytes and `dst` for device writes of as many, and
    /// neither is written by anyone else during the call.
    pub(crate) unsafe fn to_device(&self, dst: u64, src: *const u8, bytes: usize) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        self.bind()?;
        match self.config.path {
            TransferPath::Staged => {
                let plan = Plan::new(bytes, self.config.chunk_bytes, self.config.threads);
                let src = src as usize;
                self.with_lanes(plan, |i, lane| {
                    // SAFETY: lane `i` copies its own range of the plan, within `bytes`; the
                    // caller guarantees both sides over all of them.
                    unsafe { pipeline::upload(lane, src as *const u8, dst, &plan.lane(i)) }
                })
            }
            TransferPath::Registered => {
                // SAFETY: forwarded from the caller; the copy is waited for before `src` is
                // unpinned.
                unsafe {
                    self.pinned(src.cast_mut(), bytes, true, |s| {
                        sys::cuMemcpyHtoDAsync_v2(dst, src.cast(), bytes, s)
                    })
                }
            }
            // SAFETY: forwarded from the caller; the copy is waited for.
            TransferPath::Direct => unsafe {
                self.on_stream("cuMemcpyHtoDAsync", |s| {
                    sys::cuMemcpyHtoDAsync_v2(dst, src.cast(), bytes, s)
                })
            },
        }
    }

    /// Copies `bytes` bytes at device address `src` to host address `dst`; returns when they
    /// are there.
    ///
    /// # Safety
    ///
    /// `dst` is valid for writes of `bytes` bytes and `src` for device reads of as many, and
    /// neither is written by anyone else during the call.
    pub(crate) unsafe fn to_host(&self, dst: *mut u8, src: u64, bytes: usize) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        self.bind()?;
        match self.config.path {
            TransferPath::Staged => {
                let plan = Plan::new(bytes, self.config.chunk_bytes, self.config.threads);
                let dst = dst as usize;
                self.with_lanes(plan, |i, lane| {
                    // SAFETY: lane `i` writes its own range of the plan, within `bytes`; the
                    // caller guarantees both sides over all of them.
                    unsafe { pipeline::download(lane, src, dst as *mut u8, &plan.lane(i)) }
                })
            }
            // SAFETY: forwarded from the caller; the copy is waited for before `dst` is
            // unpinned.
            TransferPath::Registered => unsafe {
                self.pinned(dst, bytes, false, |s| {
                    sys::cuMemcpyDtoHAsync_v2(dst.cast(), src, bytes, s)
                })
            },
            // SAFETY: forwarded from the caller; the copy is waited for.
            TransferPath::Direct => unsafe {
                self.on_stream("cuMemcpyDtoHAsync", |s| {
                    sys::cuMemcpyDtoHAsync_v2(dst.cast(), src, bytes, s)
                })
            },
        }
    }

    /// Copies `bytes` bytes from device address `src` to device address `dst` (on this GPU or
    /// one its copy engines reach: peer access, or memory opened to it with
    /// `cuMemSetAccess`); returns when they are there.
    ///
    /// # Safety
    ///
    /// `src` is valid for device reads of `bytes` bytes and `dst` for device writes of as
    /// many, they do not overlap, and neither is written by anyone else during the call.
    pub(crate) unsafe fn device_to_device(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        if bytes == 0 {
            return Ok(());
        }
        self.bind()?;
        // SAFETY: forwarded from the caller; the copy is waited for.
        unsafe {
            self.on_stream("cuMemcpyDtoDAsync", |s| {
                sys::cuMemcpyDtoDAsync_v2(dst, src, bytes, s)
            })
        }
    }

    /// Runs `f` on the lanes `plan` needs (made if missing), lane 0 on this thread, each other
    /// on a scoped thread that binds the context first.
    fn with_lanes<F>(&self, plan: Plan, f: F) -> Result<()>
    where
        F: Fn(usize, &mut GpuLane) -> Result<()> + Sync,
    {
        let mut lanes = self.lanes.lock().unwrap_or_else(PoisonError::into_inner);
        while lanes.len() < plan.lanes() {
            lanes.push(GpuLane::new(self.config.chunk_bytes)?);
        }
        let ctx = &self.ctx;
        pipeline::for_each_lane(&mut lanes, plan.lanes(), |i, lane| {
            debug_assert!(plan.chunk() <= lane.chunk_bytes(), "a chunk fits a slot");
            if i > 0 {
                bind(ctx)?;
            }
            f(i, lane)
        })
    }

    /// Issues one copy on the transfer stream with `issue` and waits for it.
    ///
    /// # Safety
    ///
    /// What `issue` enqueues must be valid (the callers forward their own contracts).
    unsafe fn on_stream(
        &self,
        what: &str,
        issue: impl FnOnce(sys::CUstream) -> CuResult,
    ) -> Result<()> {
        check(what, issue(self.stream))?;
        // SAFETY: the transfer stream, created in `new`.
        check("cuStreamSynchronize", unsafe {
            sys::cuStreamSynchronize(self.stream)
        })
    }

    /// Pins `bytes` host bytes at `host` (read-only when `read_only`, for uploads), runs the
    /// copy `issue` enqueues, waits for it and unpins. Memory someone else already pinned is
    /// used as it is.
    ///
    /// # Safety
    ///
    /// `host` is valid for `bytes` bytes (for writes unless `read_only`) during the call, and
    /// what `issue` enqueues is valid.
    unsafe fn pinned(
        &self,
        host: *mut u8,
        bytes: usize,
        read_only: bool,
        issue: impl FnOnce(sys::CUstream) -> CuResult,
    ) -> Result<()> {
        let ptr = host.cast::<c_void>();
        let flags = if read_only {
            sys::CU_MEMHOSTREGISTER_READ_ONLY
        } else {
            0
        };
        // SAFETY: the caller guarantees the range; registering only locks its pages.
        let mut r = unsafe { sys::cuMemHostRegister_v2(ptr, bytes, flags) };
        if r != OK && r != CuResult::CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED && flags != 0 {
            // Devices without read-only registration: pin it read-write (nothing writes it).
            // SAFETY: as above.
            r = unsafe { sys::cuMemHostRegister_v2(ptr, bytes, 0) };
        }
        let pinned_here = match r {
            OK => true,
            CuResult::CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED => false,
            r => return Err(driver("cuMemHostRegister", r)),
        };
        // SAFETY: forwarded from the caller.
        let copied = unsafe { self.on_stream("cuMemcpyAsync (registered)", issue) };
        if pinned_here {
            // SAFETY: registered above; the copy is over (waited for, or failed).
            let r = unsafe { sys::cuMemHostUnregister(ptr) };
            copied?;
            return check("cuMemHostUnregister", r);
        }
        copied
    }
}

impl Drop for Transfers {
    fn drop(&mut self) {
        if !self.token.current() || self.bind().is_err() {
            // Made in a context a fault lost: leak (its reset reclaims them).
            std::mem::forget(std::mem::take(
                self.lanes.get_mut().unwrap_or_else(PoisonError::into_inner),
            ));
            return;
        }
        // The lanes free their pinned chunks, events and streams with the context bound.
        self.lanes
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .clear();
        if !self.stream.is_null() {
            // SAFETY: created in `new`, destroyed once; nothing is in flight on it.
            unsafe {
                let _ = sys::cuStreamDestroy_v2(self.stream);
            }
        }
    }
}

/// The data methods of the GPU backend (the rest is in `mod.rs`).
impl super::GpuBackend {
    /// [`Error::ContextLost`] after a fault (every driver call would fail).
    fn live(&self) -> Result<()> {
        if self.inner.lost() {
            Err(Error::ContextLost)
        } else {
            Ok(())
        }
    }

    /// New device memory holding a copy of `data`.
    pub(crate) fn upload<T: Copy>(&self, data: &[T]) -> Result<DeviceBuffer> {
        self.live()?;
        let buf = self.transfers.alloc(size_of_val(data))?;
        self.write(&buf, data)?;
        Ok(buf)
    }

    /// Copies `data` into `buf`, which is reallocated only when it is too small.
    pub(crate) fn upload_into<T: Copy>(&self, buf: &mut DeviceBuffer, data: &[T]) -> Result<()> {
        self.live()?;
        self.transfers.reserve(buf, size_of_val(data))?;
        self.write(buf, data)
    }

    fn write<T: Copy>(&self, buf: &DeviceBuffer, data: &[T]) -> Result<()> {
        let bytes = size_of_val(data);
        holds(buf, bytes, "bytes to upload into a device buffer")?;
        // SAFETY: `data` is valid for `bytes` bytes and `buf` holds at least as many; the
        // device memory is ours alone while `&self`'s caller holds the buffer and no run is in
        // flight (runs take `&mut Runtime`).
        unsafe {
            self.transfers
                .to_device(buf.ptr(), data.as_ptr().cast(), bytes)
        }
    }

    /// A table holding `data` on every GPU of the runtime (`replicas.rs`): copy 0 filled from
    /// the host by the configured path, the others from copy 0 over NVLink.
    pub(crate) fn replicate<T: Copy>(&self, data: &[T]) -> Result<super::Replica> {
        self.live()?;
        let replica = self.replicas.alloc(size_of_val(data))?;
        self.fill_copies(&replica, data)?;
        Ok(replica)
    }

    /// Refills `replica` with `data` on every copy, reallocated only when it is too small.
    pub(crate) fn replicate_into<T: Copy>(
        &self,
        replica: &mut super::Replica,
        data: &[T],
    ) -> Result<()> {
        self.live()?;
        if replica.capacity() < size_of_val(data) {
            *replica = self.replicas.alloc(size_of_val(data))?;
        }
        self.fill_copies(replica, data)
    }

    /// Copies `data` to copy 0 of `replica` from the host, then to the others from copy 0.
    fn fill_copies<T: Copy>(&self, replica: &super::Replica, data: &[T]) -> Result<()> {
        let bytes = size_of_val(data);
        let first = replica.address(0);
        // SAFETY: `data` is valid for `bytes` bytes and every copy of `replica` holds at least
        // as many (`capacity`); no run is in flight (runs take `&mut Runtime`), so nothing else
        // reads or writes the copies.
        unsafe {
            self.transfers
                .to_device(first, data.as_ptr().cast(), bytes)?;
            for c in 1..replica.copies() {
                self.transfers
                    .device_to_device(replica.address(c), first, bytes)?;
            }
        }
        Ok(())
    }

    pub(crate) fn alloc_zeroed(&self, bytes: usize) -> Result<DeviceBuffer> {
        self.live()?;
        self.transfers.alloc_zeroed(bytes)
    }

    /// Fills all of `out` from the start of `buf`.
    pub(crate) fn download<T: Copy>(
        &self,
        buf: &DeviceBuffer,
        out: &mut [MaybeUninit<T>],
    ) -> Result<()> {
        self.live()?;
        let bytes = size_of_val(out);
        holds(buf, bytes, "bytes to download from a device buffer")?;
        // SAFETY: `out` is valid for writes of `bytes` bytes (any bytes are a valid
        // `MaybeUninit`), `buf` holds at least as many, and no run is in flight.
        unsafe {
            self.transfers
                .to_host(out.as_mut_ptr().cast(), buf.ptr(), bytes)
        }
    }
}

/// Binds `ctx` to the calling thread.
fn bind(ctx: &CudaContext) -> Result<()> {
    ctx.bind_to_thread()
        .map_err(|e| super::cudarc_error("binding the CUDA context", e))
}

/// Whether `buf` holds `bytes` bytes: [`Error::LengthMismatch`] naming `what` if not.
fn holds(buf: &DeviceBuffer, bytes: usize, what: &'static str) -> Result<()> {
    if bytes > buf.capacity() {
        return Err(Error::LengthMismatch {
            what,
            buffer: buf.capacity(),
            slice: bytes,
        });
    }
    Ok(())
}
