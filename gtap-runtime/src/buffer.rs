//! User data that tasks reach through [`Slice`] handles: [`Buffer`].
//!
//! A `Buffer<T>` owns `len` elements of `T` in the memory of its runtime's backend (host memory
//! for the CPU executor, device memory for the GPU) and frees them on drop. Tasks see it through
//! the `Copy` handle [`Buffer::slice`]; the host reads it back with
//! [`Runtime::download`](crate::Runtime::download) or
//! [`Runtime::download_into`](crate::Runtime::download_into), and refills it with
//! [`Runtime::upload_into`](crate::Runtime::upload_into), which reuses the allocation unless
//! the new data is larger than [`Buffer::capacity`] (like a `Vec`).
//!
//! # Invariants
//!
//! - The allocation is valid for `capacity() >= len` elements, aligned for `T` (host memory to
//!   64 bytes).
//! - Every element is initialised: buffers are made by copying a `&[T]` or by zeroing a
//!   [`Zeroable`] type.
//! - A [`Slice`] handle carries no lifetime (it must cross into tasks as a plain argument), so it
//!   must not be used after its buffer is dropped; the runtime only runs tasks inside
//!   [`Runtime::run`](crate::Runtime::run), so a handle is safe to use as long as the buffer
//!   outlives the runs that use it. A [`Runtime::upload_into`](crate::Runtime::upload_into)
//!   that grows the buffer moves it: handles taken before are invalid after.

use core::marker::PhantomData;
use core::ptr::NonNull;
use std::alloc::Layout;

use gtap_device::data::Slice;

use crate::error::{Error, Result};
use crate::gpu::DeviceBuffer;

/// Types for which all-zero bytes are a valid value, so that
/// [`Runtime::alloc_zeroed`](crate::Runtime::alloc_zeroed) can make them.
///
/// # Safety
///
/// The all-zero bit pattern must be a valid `Self`.
pub unsafe trait Zeroable: Copy + 'static {}

macro_rules! zeroable {
    ($($t:ty),*) => {$(
        // SAFETY: zero is a valid value of every primitive integer, float and bool.
        unsafe impl Zeroable for $t {}
    )*};
}
zeroable!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64, bool);
// SAFETY: an array of zeroable elements is zeroable element by element.
unsafe impl<T: Zeroable, const N: usize> Zeroable for [T; N] {}

/// Host memory, aligned to 64 bytes; freed on drop.
pub(crate) struct HostMem {
    ptr: NonNull<u8>,
    layout: Layout,
}

// SAFETY: `HostMem` uniquely owns its allocation; sharing it between threads is what `Slice`
// handles do, under the data-race rule of `gtap_device::data`.
unsafe impl Send for HostMem {}
// SAFETY: as above; `&HostMem` gives no access to the bytes by itself.
unsafe impl Sync for HostMem {}

impl HostMem {
    /// `bytes` zeroed bytes aligned to `align.max(64)`.
    pub(crate) fn zeroed(bytes: usize, align: usize) -> Result<Self> {
        let layout =
            Layout::from_size_align(bytes, align.max(64)).map_err(|_| Error::OutOfMemory {
                bytes,
                memory: "host",
            })?;
        if bytes == 0 {
            // A well-aligned dangling pointer without provenance (strict provenance: no
            // integer-to-pointer cast that Miri would have to guess about); nothing is
            // allocated or freed.
            let ptr = NonNull::new(std::ptr::without_provenance_mut::<u8>(layout.align()))
                .unwrap_or(NonNull::dangling());
            return Ok(Self { ptr, layout });
        }
        // SAFETY: `layout` has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) };
        let ptr = NonNull::new(ptr).ok_or(Error::OutOfMemory {
            bytes,
            memory: "host",
        })?;
        Ok(Self { ptr, layout })
    }

    /// Memory holding a copy of `data`.
    pub(crate) fn copy_of<T: Copy>(data: &[T]) -> Result<Self> {
        let mut mem = Self::zeroed(0, align_of::<T>())?;
        mem.refill(data)?;
        Ok(mem)
    }

    /// Copies `data` to the start, growing the allocation first when it is too small (the old
    /// one is freed before the larger one is made). On an error the allocation is empty.
    pub(crate) fn refill<T: Copy>(&mut self, data: &[T]) -> Result<()> {
        let bytes = size_of_val(data);
        if self.capacity() < bytes {
            *self = Self::zeroed(0, align_of::<T>())?;
            *self = Self::zeroed(bytes, align_of::<T>())?;
        }
        // SAFETY: the allocation holds at least `bytes` bytes aligned for T (`zeroed` aligns to
        // `align_of::<T>()` at least, and a kept allocation was made for this element type),
        // and does not overlap `data` (it is this value's own).
        unsafe {
            core::ptr::copy_nonoverlapping(
                data.as_ptr(),
                self.ptr.as_ptr().cast::<T>(),
                data.len(),
            );
        }
        Ok(())
    }

    /// The first byte.
    pub(crate) fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// Bytes allocated.
    pub(crate) fn capacity(&self) -> usize {
        self.layout.size()
    }
}

impl Drop for HostMem {
    fn drop(&mut self) {
        if self.layout.size() != 0 {
            // SAFETY: allocated in `zeroed` with exactly this layout and not freed before.
            unsafe { std::alloc::dealloc(self.ptr.as_ptr(), self.layout) };
        }
    }
}

/// Where a buffer's elements live.
pub(crate) enum Storage {
    Host(HostMem),
    Device(DeviceBuffer),
}

/// `len` elements of `T` that tasks can reach through [`Buffer::slice`]; freed on drop.
pub struct Buffer<T: Copy + 'static> {
    storage: Storage,
    len: usize,
    _marker: PhantomData<T>,
}

impl<T: Copy + 'static> core::fmt::Debug for Buffer<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Buffer")
            .field("memory", &self.memory())
            .field("len", &self.len)
            .field("elem", &core::any::type_name::<T>())
            .finish()
    }
}

impl<T: Copy + 'static> Buffer<T> {
    /// A host buffer holding a copy of `data`.
    pub(crate) fn host_from(data: &[T]) -> Result<Self> {
        Ok(Self {
            storage: Storage::Host(HostMem::copy_of(data)?),
            len: data.len(),
            _marker: PhantomData,
        })
    }

    /// A device buffer of `len` elements.
    pub(crate) fn device(buf: DeviceBuffer, len: usize) -> Self {
        Self {
            storage: Storage::Device(buf),
            len,
            _marker: PhantomData,
        }
    }

    pub(crate) fn storage(&self) -> &Storage {
        &self.storage
    }

    /// The storage, to refill; the caller then sets the length with [`Buffer::set_len`].
    pub(crate) fn storage_mut(&mut self) -> &mut Storage {
        &mut self.storage
    }

    /// Sets the number of elements.
    ///
    /// # Safety
    ///
    /// The storage holds `len` initialised elements of `T`.
    pub(crate) unsafe fn set_len(&mut self, len: usize) {
        self.len = len;
    }

    /// Elements the allocation can hold: [`Runtime::upload_into`](crate::Runtime::upload_into)
    /// reuses it for up to this many.
    #[must_use]
    pub fn capacity(&self) -> usize {
        let bytes = match &self.storage {
            Storage::Host(mem) => mem.capacity(),
            Storage::Device(buf) => buf.capacity(),
        };
        bytes.checked_div(size_of::<T>()).unwrap_or(usize::MAX)
    }

    /// Number of elements.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// `"host"` or `"device"`.
    #[must_use]
    pub fn memory(&self) -> &'static str {
        match self.storage {
            Storage::Host(_) => "host",
            Storage::Device(_) => "device",
        }
    }

    /// The handle tasks use; valid while `self` lives (see the module docs).
    #[must_use]
    pub fn slice(&self) -> Slice<T> {
        let ptr = match &self.storage {
            Storage::Host(mem) => mem.ptr.as_ptr().cast::<T>(),
            Storage::Device(buf) => buf.ptr() as usize as *mut T,
        };
        // SAFETY: the storage holds `len` initialised, aligned elements of T for as long as
        // `self` lives (module invariants); using the handle after that is the documented
        // misuse of `Slice`.
        unsafe { Slice::from_raw_parts(ptr, self.len) }
    }

    /// Copies the elements of a host buffer; `None` for device memory.
    pub(crate) fn read_host(&self) -> Option<Vec<T>> {
        match &self.storage {
            Storage::Host(mem) => {
                // SAFETY: the allocation holds `len` initialised elements of T (invariants);
                // no task runs while the host holds `&self` outside `Runtime::run`.
                let data =
                    unsafe { core::slice::from_raw_parts(mem.ptr.as_ptr().cast::<T>(), self.len) };
                Some(data.to_vec())
            }
            Storage::Device(_) => None,
        }
    }

    /// Copies the elements of a host buffer into `out` (of the same length); `false` for
    /// device memory.
    pub(crate) fn read_host_into(&self, out: &mut [T]) -> bool {
        let Storage::Host(mem) = &self.storage else {
            return false;
        };
        assert_eq!(out.len(), self.len, "checked by the caller");
        // SAFETY: the allocation holds `len` initialised elements of T (invariants), `out` as
        // many, and `out` is a unique borrow, so they do not overlap.
        unsafe {
            core::ptr::copy_nonoverlapping(
                mem.ptr.as_ptr().cast::<T>(),
                out.as_mut_ptr(),
                self.len,
            );
        }
        true
    }

    /// Refills a host buffer with `data`, growing the allocation only when it is too small;
    /// `false` (and nothing done) for device memory.
    ///
    /// # Errors
    ///
    /// [`Error::OutOfMemory`] when growing fails; the buffer is then empty.
    pub(crate) fn write_host(&mut self, data: &[T]) -> Result<bool> {
        let Storage::Host(mem) = &mut self.storage else {
            return Ok(false);
        };
        let r = mem.refill(data);
        self.len = if r.is_ok() { data.len() } else { 0 };
        r.map(|()| true)
    }
}

impl<T: Zeroable> Buffer<T> {
    /// A host buffer of `len` zeroed elements.
    pub(crate) fn host_zeroed(len: usize) -> Result<Self> {
        let bytes = len.checked_mul(size_of::<T>()).ok_or(Error::OutOfMemory {
            bytes: usize::MAX,
            memory: "host",
        })?;
        let mem = HostMem::zeroed(bytes, align_of::<T>())?;
        Ok(Self {
            storage: Storage::Host(mem),
            len,
            _marker: PhantomData,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn host_round_trip_and_alignment() {
        let data: Vec<u64> = (0..1000).map(|i| i * 3).collect();
        let buf = Buffer::host_from(&data).unwrap();
        assert_eq!(buf.slice().as_ptr() as usize % 64, 0);
        assert_eq!(buf.read_host().unwrap(), data);
        let z = Buffer::<u32>::host_zeroed(17).unwrap();
        assert_eq!(z.read_host().unwrap(), vec![0; 17]);
        let e = Buffer::<u8>::host_from(&[]).unwrap();
        assert!(e.is_empty() && e.read_host().unwrap().is_empty());
    }

    #[test]
    fn host_refill_reuses_until_it_grows() {
        let mut buf = Buffer::host_from(&[1u32, 2, 3, 4]).unwrap();
        let (ptr, cap) = (buf.slice().as_ptr(), buf.capacity());
        assert_eq!(cap, 4, "an allocation of exactly 4 u32s");
        assert!(buf.write_host(&[7, 8]).unwrap());
        assert_eq!((buf.len(), buf.capacity()), (2, cap));
        assert_eq!(buf.slice().as_ptr(), ptr, "shrinking reuses the allocation");
        let mut out = [0u32; 2];
        assert!(buf.read_host_into(&mut out));
        assert_eq!(out, [7, 8]);
        let big: Vec<u32> = (0..1000).collect();
        assert!(buf.write_host(&big).unwrap());
        assert_eq!(buf.len(), 1000);
        assert!(buf.capacity() >= 1000);
        assert_eq!(buf.read_host().unwrap(), big);
        assert_eq!(buf.slice().as_ptr() as usize % 64, 0);
    }
}
