//! Read-only data that every GPU of a runtime holds a copy of: [`Replicated`].
//!
//! A lookup table that tasks only read (a tree's node data, a graph's adjacency, a matrix) is
//! best kept beside every GPU that runs those tasks: on several GPUs a task that moved to
//! another GPU then reads its own GPU's memory instead of the first GPU's over NVLink.
//! [`Runtime::replicate`](crate::Runtime::replicate) copies the data once to every GPU of the
//! runtime (host to the first GPU, then the first GPU to the others over NVLink); tasks take
//! the `Copy` handle [`Replicated::table`], a [`Table`], whose `get` reads the copy of the
//! GPU it runs on. On one GPU there is one copy; on the CPU executor the table is host memory.
//!
//! # Invariants
//!
//! - Every copy holds the same `len` initialised elements of `T` (they are copied from one
//!   `&[T]`), aligned for `T`, at the same offset of its GPU's part of the runtime's replica
//!   range (`gpu/replicas.rs`), and nothing writes them while a run can read them: a [`Table`]
//!   has no setter, and [`Runtime::replicate_into`](crate::Runtime::replicate_into) refills
//!   every copy between runs (runs take `&mut Runtime`), so a run never sees copies that
//!   differ.
//! - As with [`Buffer`](crate::Buffer), a [`Table`] handle carries no lifetime: it must not be
//!   used by runs after its `Replicated` is dropped.
//!
//! # Cost
//!
//! Device memory: the table's size on every GPU of the runtime, rounded up to the allocation
//! granularity (2 MiB on H100 and H200). Time: one host-to-device copy and one NVLink copy per
//! other GPU, when the table is made. A read: one add to the address (the GPU's offset, which
//! the compiler keeps in a register across a task's loop of lookups).

use core::marker::PhantomData;

use gtap_device::data::Table;

use crate::buffer::HostMem;
use crate::error::Result;
use crate::gpu::Replica;

/// Where a table's elements live.
pub(crate) enum Copies {
    Host(HostMem),
    Gpus(Replica),
}

/// `len` read-only elements of `T`, one copy on every GPU of the runtime; freed on drop.
pub struct Replicated<T: Copy + 'static> {
    copies: Copies,
    len: usize,
    _marker: PhantomData<T>,
}

impl<T: Copy + 'static> core::fmt::Debug for Replicated<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Replicated")
            .field("memory", &self.memory())
            .field("copies", &self.copies())
            .field("len", &self.len)
            .field("elem", &core::any::type_name::<T>())
            .finish()
    }
}

impl<T: Copy + 'static> Replicated<T> {
    /// A host table holding a copy of `data` (the CPU executor's).
    pub(crate) fn host_from(data: &[T]) -> Result<Self> {
        Ok(Self {
            copies: Copies::Host(HostMem::copy_of(data)?),
            len: data.len(),
            _marker: PhantomData,
        })
    }

    /// A table of `len` elements whose copies `replica` holds, filled.
    pub(crate) fn gpus(replica: Replica, len: usize) -> Self {
        Self {
            copies: Copies::Gpus(replica),
            len,
            _marker: PhantomData,
        }
    }

    /// The copies, to refill; the caller then sets the length with [`Replicated::set_len`].
    pub(crate) fn copies_mut(&mut self) -> &mut Copies {
        &mut self.copies
    }

    /// Sets the number of elements.
    ///
    /// # Safety
    ///
    /// Every copy holds `len` initialised elements of `T`.
    pub(crate) unsafe fn set_len(&mut self, len: usize) {
        self.len = len;
    }

    /// Refills a host table with `data`, growing the allocation only when it is too small;
    /// `false` (and nothing done) for GPU copies.
    ///
    /// # Errors
    ///
    /// [`crate::Error::OutOfMemory`] when growing fails.
    pub(crate) fn write_host(&mut self, data: &[T]) -> Result<bool> {
        let Copies::Host(mem) = &mut self.copies else {
            return Ok(false);
        };
        let r = mem.refill(data);
        self.len = if r.is_ok() { data.len() } else { 0 };
        r.map(|()| true)
    }

    /// The handle tasks read through; valid while `self` lives.
    #[must_use]
    pub fn table(&self) -> Table<T> {
        let ptr = match &self.copies {
            Copies::Host(mem) => mem.as_ptr().cast::<T>().cast_const(),
            Copies::Gpus(replica) => replica.address(0) as usize as *const T,
        };
        // SAFETY: every copy holds `len` initialised, aligned elements of T that nothing
        // writes, at the first copy's address plus each GPU's replica offset (module
        // invariants), for as long as `self` lives.
        unsafe { Table::from_raw_parts(ptr, self.len) }
    }

    /// Number of elements.
    #[must_use]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the table has no elements.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Copies of the elements: the runtime's distinct GPUs (1 for one GPU, its partitions, or
    /// the CPU executor).
    #[must_use]
    pub fn copies(&self) -> usize {
        match &self.copies {
            Copies::Host(_) => 1,
            Copies::Gpus(replica) => replica.copies(),
        }
    }

    /// `"host"` or `"device"`.
    #[must_use]
    pub fn memory(&self) -> &'static str {
        match self.copies {
            Copies::Host(_) => "host",
            Copies::Gpus(_) => "device",
        }
    }
}
