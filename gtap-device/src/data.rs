//! `Copy` handles to user data that tasks take as arguments.
//!
//! A [`Slice<T>`] is a pointer and a length, nothing more: on the GPU it points into device
//! memory, on the CPU executor into host memory. The host API in `gtap-runtime`
//! (`Runtime::upload`, `Runtime::download`, `Runtime::alloc`) creates the buffers these handles
//! point into and frees them when the buffer is dropped; a handle must not outlive its buffer.
//!
//! A [`Table<T>`] is the read-only kind, made by `Runtime::replicate`: every GPU of the
//! runtime holds a copy of its elements at the same offset of its part of one address range,
//! and a task reads its own GPU's copy (the handle's address plus the GPU's
//! `Params::replica_offset`), so lookups from tasks that moved to another GPU never cross
//! NVLink. Nothing writes a table while a run can read it (`Runtime::replicate` takes the data
//! once; the handle has no setter).
//!
//! # Data races
//!
//! Handles are `Copy` and shared by many tasks at once, like raw pointers in GTaP. The rule that
//! keeps programs race-free is the fork-join one: tasks that may run at the same time write
//! disjoint elements (use [`Slice::split_at`] / [`Slice::slice`] to hand out disjoint parts), or
//! use the atomic methods in [`crate::atomic`]. A child's writes are visible to its parent after
//! the `taskwait!()` that joins it.
//!
//! # Bounds
//!
//! `get`/`set` check the index and panic out of bounds (a trap on the GPU, which the host runtime
//! reports as a device fault); the `_unchecked` variants leave it to the caller.

use core::marker::PhantomData;

/// A shared, `Copy` view of `len` elements of `T` that every task of a run can reach.
#[repr(C)]
pub struct Slice<T> {
    ptr: *mut T,
    len: usize,
    _marker: PhantomData<T>,
}

impl<T> Clone for Slice<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Slice<T> {}

// SAFETY: a Slice is a handle to memory shared by all tasks of a run; the data-race rule in the
// module docs is the user's contract, as with raw pointers shared between GPU threads.
unsafe impl<T: Send> Send for Slice<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Slice<T> {}

impl<T> core::fmt::Debug for Slice<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Slice")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}

impl<T> Slice<T> {
    /// An empty handle.
    #[must_use]
    pub const fn empty() -> Self {
        Self {
            ptr: core::ptr::NonNull::dangling().as_ptr(),
            len: 0,
            _marker: PhantomData,
        }
    }

    /// A handle to `len` elements at `ptr`.
    ///
    /// # Safety
    ///
    /// `ptr` is valid for reads and writes of `len` elements for as long as any task may use the
    /// handle, and aligned for `T`.
    #[must_use]
    pub const unsafe fn from_raw_parts(ptr: *mut T, len: usize) -> Self {
        Self {
            ptr,
            len,
            _marker: PhantomData,
        }
    }

    /// Number of elements.
    #[must_use]
    pub const fn len(self) -> usize {
        self.len
    }

    /// Whether the handle has no elements.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.len == 0
    }

    /// The first element's address.
    #[must_use]
    pub const fn as_ptr(self) -> *mut T {
        self.ptr
    }

    /// Elements `start..end`.
    ///
    /// # Panics
    ///
    /// If `start > end` or `end > len`.
    #[must_use]
    #[inline]
    #[track_caller]
    pub fn slice(self, start: usize, end: usize) -> Self {
        assert!(
            start <= end && end <= self.len,
            "Slice::slice out of bounds"
        );
        // SAFETY: start <= len, so the offset stays inside (or one past) the allocation.
        let ptr = unsafe { self.ptr.add(start) };
        Self {
            ptr,
            len: end - start,
            _marker: PhantomData,
        }
    }

    /// Elements `..mid` and `mid..`.
    ///
    /// # Panics
    ///
    /// If `mid > len`.
    #[must_use]
    #[inline]
    #[track_caller]
    pub fn split_at(self, mid: usize) -> (Self, Self) {
        (self.slice(0, mid), self.slice(mid, self.len))
    }
}

impl<T: Copy> Slice<T> {
    /// Element `i`.
    ///
    /// # Panics
    ///
    /// If `i >= len`.
    #[must_use]
    #[inline]
    #[track_caller]
    pub fn get(self, i: usize) -> T {
        assert!(i < self.len, "Slice::get index out of bounds");
        // SAFETY: i < len and the handle is valid (from_raw_parts' contract).
        unsafe { self.ptr.add(i).read() }
    }

    /// Sets element `i` to `value`.
    ///
    /// # Panics
    ///
    /// If `i >= len`.
    #[inline]
    #[track_caller]
    pub fn set(self, i: usize, value: T) {
        assert!(i < self.len, "Slice::set index out of bounds");
        // SAFETY: i < len and the handle is valid (from_raw_parts' contract).
        unsafe { self.ptr.add(i).write(value) }
    }

    /// Element `i` without a bounds check.
    ///
    /// # Safety
    ///
    /// `i < len`.
    #[must_use]
    #[inline]
    pub unsafe fn get_unchecked(self, i: usize) -> T {
        // SAFETY: the caller guarantees i < len.
        unsafe { self.ptr.add(i).read() }
    }

    /// Sets element `i` without a bounds check.
    ///
    /// # Safety
    ///
    /// `i < len`.
    #[inline]
    pub unsafe fn set_unchecked(self, i: usize, value: T) {
        // SAFETY: the caller guarantees i < len.
        unsafe { self.ptr.add(i).write(value) }
    }

    /// Swaps elements `i` and `j`.
    ///
    /// # Panics
    ///
    /// If either index is out of bounds.
    #[inline]
    #[track_caller]
    pub fn swap(self, i: usize, j: usize) {
        let (a, b) = (self.get(i), self.get(j));
        self.set(i, b);
        self.set(j, a);
    }

    /// Copies `count` elements from `src[src_start..]` to `self[dst_start..]` (regions of
    /// different slices or non-overlapping regions of one).
    ///
    /// # Panics
    ///
    /// If either range is out of bounds.
    #[inline]
    #[track_caller]
    pub fn copy_from(self, dst_start: usize, src: Slice<T>, src_start: usize, count: usize) {
        assert!(
            dst_start + count <= self.len && src_start + count <= src.len,
            "Slice::copy_from out of bounds"
        );
        for k in 0..count {
            // SAFETY: both indices were checked above.
            unsafe { self.set_unchecked(dst_start + k, src.get_unchecked(src_start + k)) };
        }
    }
}

/// A read-only, `Copy` view of `len` elements of `T` of which every GPU of the runtime holds a
/// copy (`Runtime::replicate`): [`Table::get`] reads the copy of the GPU the task runs on. On
/// one GPU and on the CPU executor it reads the one copy there is.
#[repr(C)]
pub struct Table<T> {
    /// The first GPU's copy (host memory on the CPU executor).
    ptr: *const T,
    len: usize,
    _marker: PhantomData<T>,
}

impl<T> Clone for Table<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Table<T> {}

// SAFETY: a Table is a read-only handle to memory that nothing writes while tasks can read it.
unsafe impl<T: Sync> Send for Table<T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for Table<T> {}

impl<T> core::fmt::Debug for Table<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Table")
            .field("ptr", &self.ptr)
            .field("len", &self.len)
            .finish()
    }
}

impl<T> Table<T> {
    /// An empty table.
    #[must_use]
    pub const fn empty() -> Self {
        Self {
            ptr: core::ptr::NonNull::dangling().as_ptr(),
            len: 0,
            _marker: PhantomData,
        }
    }

    /// A table of `len` elements at `ptr`.
    ///
    /// # Safety
    ///
    /// `ptr` is valid for reads of `len` elements, aligned for `T`, and not written, for as
    /// long as any task may use the handle; on a GPU run, every GPU of the run holds the same
    /// elements at `ptr` plus its `Params::replica_offset` (what `Runtime::replicate` makes).
    #[must_use]
    pub const unsafe fn from_raw_parts(ptr: *const T, len: usize) -> Self {
        Self {
            ptr,
            len,
            _marker: PhantomData,
        }
    }

    /// Number of elements.
    #[must_use]
    pub const fn len(self) -> usize {
        self.len
    }

    /// Whether the table has no elements.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.len == 0
    }

    /// Elements `start..end`.
    ///
    /// # Panics
    ///
    /// If `start > end` or `end > len`.
    #[must_use]
    #[inline]
    #[track_caller]
    pub fn slice(self, start: usize, end: usize) -> Self {
        assert!(
            start <= end && end <= self.len,
            "Table::slice out of bounds"
        );
        Self {
            // Offsets within the first copy; `here` moves them to the running GPU's.
            ptr: self.ptr.wrapping_add(start),
            len: end - start,
            _marker: PhantomData,
        }
    }

    /// The address of element 0 in the copy of the GPU this code runs on.
    #[inline(always)]
    fn here(self) -> *const T {
        #[cfg(target_arch = "nvptx64")]
        {
            self.ptr
                .cast::<u8>()
                .wrapping_add(crate::gpu::replica_offset() as usize)
                .cast::<T>()
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            self.ptr
        }
    }
}

impl<T> Table<T> {
    /// The copy of the GPU this code runs on, found once: reads through it cost what a
    /// [`Slice`]'s do. [`Table::get`] finds the copy at each call, which the compiler folds
    /// into one lookup per loop, except where the loop also runs an atomic or spawns a task
    /// (either makes it look the GPU's offset up again): take the local view before such a
    /// loop. Passed to another task it stays correct (every GPU may read every copy), but
    /// reads this GPU's copy from wherever that task runs.
    #[must_use]
    #[inline(always)]
    pub fn local(self) -> LocalTable<T> {
        LocalTable {
            ptr: self.here(),
            len: self.len,
            _marker: PhantomData,
        }
    }
}

/// One GPU's copy of a [`Table`] ([`Table::local`]).
#[repr(C)]
pub struct LocalTable<T> {
    ptr: *const T,
    len: usize,
    _marker: PhantomData<T>,
}

impl<T> Clone for LocalTable<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for LocalTable<T> {}

// SAFETY: as for `Table`: read-only memory that nothing writes while tasks can read it.
unsafe impl<T: Sync> Send for LocalTable<T> {}
// SAFETY: as above.
unsafe impl<T: Sync> Sync for LocalTable<T> {}

impl<T> LocalTable<T> {
    /// Number of elements.
    #[must_use]
    pub const fn len(self) -> usize {
        self.len
    }

    /// Whether the table has no elements.
    #[must_use]
    pub const fn is_empty(self) -> bool {
        self.len == 0
    }
}

impl<T: Copy> LocalTable<T> {
    /// Element `i`.
    ///
    /// # Panics
    ///
    /// If `i >= len`.
    #[must_use]
    #[inline]
    #[track_caller]
    pub fn get(self, i: usize) -> T {
        assert!(i < self.len, "Table::get index out of bounds");
        // SAFETY: i < len, and the copy holds the table's elements (Table::from_raw_parts'
        // contract; every GPU may read every copy).
        unsafe { self.ptr.add(i).read() }
    }

    /// Element `i` without a bounds check.
    ///
    /// # Safety
    ///
    /// `i < len`.
    #[must_use]
    #[inline]
    pub unsafe fn get_unchecked(self, i: usize) -> T {
        // SAFETY: the caller guarantees i < len.
        unsafe { self.ptr.add(i).read() }
    }
}

impl<T: Copy> Table<T> {
    /// Element `i`, from this GPU's copy.
    ///
    /// # Panics
    ///
    /// If `i >= len`.
    #[must_use]
    #[inline]
    #[track_caller]
    pub fn get(self, i: usize) -> T {
        assert!(i < self.len, "Table::get index out of bounds");
        // SAFETY: i < len, and this GPU's copy holds the table's elements (from_raw_parts'
        // contract).
        unsafe { self.here().add(i).read() }
    }

    /// Element `i` without a bounds check.
    ///
    /// # Safety
    ///
    /// `i < len`.
    #[must_use]
    #[inline]
    pub unsafe fn get_unchecked(self, i: usize) -> T {
        // SAFETY: the caller guarantees i < len; this GPU's copy holds the elements.
        unsafe { self.here().add(i).read() }
    }
}
