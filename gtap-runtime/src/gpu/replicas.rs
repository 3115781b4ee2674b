//! Read-only tables held by every GPU of a runtime (`Runtime::replicate`; the tasks' handle is
//! `gtap_device::data::Table`).
//!
//! # Layout
//!
//! One range of virtual addresses, reserved at the first table, `copies * span` bytes long:
//! copy `c` (the `c`-th distinct device of the runtime; the first GPU's is copy 0) owns
//! `[base + c * span, base + (c + 1) * span)`. A table of `bytes` bytes takes the same offset
//! `o` in every copy's part, each part backed by memory of its own device (`cuMemCreate`,
//! mapped with `cuMemMap`). A task on GPU `g` finds its copy at the handle's address (copy 0's)
//! plus `copy(g) * span`, `Params::replica_offset`: one add, the same for every table, so the
//! device needs no table of tables. Partitions of one GPU share its one copy (offset 0).
//!
//! # Invariants
//!
//! - `span` is a power of two at least as large as every device's memory, so a copy's part
//!   never runs out of addresses before its device runs out of memory.
//! - Offsets and sizes are multiples of the allocation granularity (the largest of the
//!   devices' minimum granularities).
//! - Every byte of `[0, span)` is either in `free` or in exactly one live [`Replica`], which
//!   maps it on every copy and unmaps it (and gives it back) when dropped.
//! - Every device of the runtime may read and write every copy (`cuMemSetAccess`): the first
//!   GPU's transfer stream fills copy 0 from the host and the others from copy 0.
//! - Nothing is unmapped, released or freed through a lost context (the first GPU's
//!   [`Token`]; a fault marks every device lost, `contexts.rs`): the reset reclaims it.
//!
//! # Ordering
//!
//! No atomics: every copy into a table (host to copy 0, copy 0 to the others) is waited for on
//! the host (`cuStreamSynchronize`) before `replicate` or `replicate_into` returns, and runs
//! take `&mut Runtime`, so each kernel of a later run is launched after the copies completed
//! and reads their bytes on every GPU. A refill needs `&Runtime` and so happens between runs;
//! dropping a `Replicated` while a run still uses its handle is the misuse every handle's
//! docs forbid (as for buffers).

use std::sync::{Arc, Mutex, PoisonError};

use cudarc::driver::{sys, CudaContext};

use super::contexts::Token;
use super::{check, driver, CuResult, OK};
use crate::error::{Error, Result};

/// The address range of a runtime's tables and the allocator of its offsets.
pub(crate) struct ReplicaSpace {
    /// The first GPU's context, bound for every driver call here.
    ctx: Arc<CudaContext>,
    token: Token,
    /// The CUDA devices holding a copy, in copy order.
    devices: Vec<sys::CUdevice>,
    span: u64,
    state: Mutex<SpaceState>,
}

struct SpaceState {
    /// The reservation's start; 0 until the first table.
    base: u64,
    granularity: u64,
    free: FreeRanges,
}

/// The free offsets of `[0, span)`: `(offset, bytes)` ranges, sorted, never adjacent.
#[derive(Debug, PartialEq, Eq)]
struct FreeRanges(Vec<(u64, u64)>);

impl FreeRanges {
    /// The first range of at least `size` bytes, taken from its start.
    fn take(&mut self, size: u64) -> Option<u64> {
        let i = self.0.iter().position(|&(_, len)| len >= size)?;
        let (offset, len) = self.0[i];
        if len == size {
            self.0.remove(i);
        } else {
            self.0[i] = (offset + size, len - size);
        }
        Some(offset)
    }

    /// Gives `[offset, offset + size)` back, merged with the ranges it touches.
    fn give_back(&mut self, offset: u64, size: u64) {
        let free = &mut self.0;
        let i = free.partition_point(|&(o, _)| o < offset);
        free.insert(i, (offset, size));
        if i + 1 < free.len() && free[i].0 + free[i].1 == free[i + 1].0 {
            free[i].1 += free[i + 1].1;
            free.remove(i + 1);
        }
        if i > 0 && free[i - 1].0 + free[i - 1].1 == free[i].0 {
            free[i - 1].1 += free[i].1;
            free.remove(i);
        }
    }
}

impl ReplicaSpace {
    /// The space of a runtime whose GPUs are on `devices` (CUDA device handles, one per GPU of
    /// the runtime, partitions repeating theirs); reserves nothing yet.
    pub(crate) fn new(
        ctx: Arc<CudaContext>,
        token: Token,
        devices: &[sys::CUdevice],
    ) -> Result<Self> {
        let mut distinct: Vec<sys::CUdevice> = Vec::new();
        let mut largest = 0usize;
        for &d in devices {
            if distinct.contains(&d) {
                continue;
            }
            distinct.push(d);
            let mut bytes = 0usize;
            // SAFETY: an out-pointer and a valid device handle.
            check("cuDeviceTotalMem", unsafe {
                sys::cuDeviceTotalMem_v2(&raw mut bytes, d)
            })?;
            largest = largest.max(bytes);
        }
        let span = (largest.max(1) as u64).next_power_of_two();
        Ok(Self {
            ctx,
            token,
            devices: distinct,
            span,
            state: Mutex::new(SpaceState {
                base: 0,
                granularity: 0,
                free: FreeRanges(vec![(0, span)]),
            }),
        })
    }

    /// `Params::replica_offset` of a GPU on `device`: its copy's distance from copy 0.
    pub(crate) fn offset_of(&self, device: sys::CUdevice) -> u64 {
        let copy = self.devices.iter().position(|&d| d == device).unwrap_or(0);
        copy as u64 * self.span
    }

    /// Copies of every table: one per distinct device.
    pub(crate) fn copies(&self) -> usize {
        self.devices.len()
    }

    /// Where copy `c` of the byte at offset `offset` is.
    fn address(&self, base: u64, c: usize, offset: u64) -> u64 {
        base + c as u64 * self.span + offset
    }

    fn bind(&self) -> Result<()> {
        self.ctx
            .bind_to_thread()
            .map_err(|e| super::cudarc_error("binding the CUDA context", e))
    }

    /// Memory for a table of `bytes` bytes on every copy, mapped and accessible to every
    /// device; its contents are unspecified.
    pub(crate) fn alloc(self: &Arc<Self>, bytes: usize) -> Result<Replica> {
        self.bind()?;
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.base == 0 {
            self.reserve(&mut state)?;
        }
        let size = (bytes.max(1) as u64).next_multiple_of(state.granularity);
        let Some(offset) = state.free.take(size) else {
            return Err(Error::OutOfMemory {
                bytes,
                memory: "device (the address range of replicated tables)",
            });
        };
        let base = state.base;
        drop(state);
        let mut replica = Replica {
            space: self.clone(),
            base,
            offset,
            size,
            handles: Vec::with_capacity(self.devices.len()),
        };
        // On an error, dropping `replica` unmaps and releases what was made.
        for c in 0..self.devices.len() {
            replica.map_copy(c)?;
        }
        Ok(replica)
    }

    /// Reserves the address range and learns the granularity (the state's lock is held).
    fn reserve(&self, state: &mut SpaceState) -> Result<()> {
        let mut granularity = 0usize;
        for &d in &self.devices {
            let prop = allocation_prop(d);
            let mut g = 0usize;
            // SAFETY: out-pointer and a valid property struct.
            check("cuMemGetAllocationGranularity", unsafe {
                sys::cuMemGetAllocationGranularity(
                    &raw mut g,
                    &raw const prop,
                    sys::CUmemAllocationGranularity_flags::CU_MEM_ALLOC_GRANULARITY_MINIMUM,
                )
            })?;
            granularity = granularity.max(g);
        }
        let total = self.span * self.devices.len() as u64;
        let mut base = 0u64;
        // SAFETY: an out-pointer; the first GPU's context is bound.
        let r =
            unsafe { sys::cuMemAddressReserve(&raw mut base, total as usize, granularity, 0, 0) };
        if r == CuResult::CUDA_ERROR_OUT_OF_MEMORY {
            return Err(Error::OutOfMemory {
                bytes: total as usize,
                memory: "device (the address range of replicated tables)",
            });
        }
        check("cuMemAddressReserve", r)?;
        state.base = base;
        state.granularity = granularity as u64;
        Ok(())
    }

    /// Gives a dropped table's offsets back.
    fn give_back(&self, offset: u64, size: u64) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.free.give_back(offset, size);
    }
}

impl Drop for ReplicaSpace {
    fn drop(&mut self) {
        let base = self
            .state
            .get_mut()
            .unwrap_or_else(PoisonError::into_inner)
            .base;
        if base != 0 && self.token.current() && self.bind().is_ok() {
            let total = self.span * self.devices.len() as u64;
            // SAFETY: reserved in `reserve` and freed once; every `Replica` holds an `Arc` of
            // this space, so none is mapped any more.
            unsafe {
                let _ = sys::cuMemAddressFree(base, total as usize);
            }
        }
    }
}

/// Pinned device memory of `device`, no export handle.
fn allocation_prop(device: sys::CUdevice) -> sys::CUmemAllocationProp {
    // SAFETY: a plain C struct for which all-zero bytes are valid (no type, no flags).
    let mut prop: sys::CUmemAllocationProp = unsafe { core::mem::zeroed() };
    prop.type_ = sys::CUmemAllocationType::CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type_ = sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop
}

/// One table's memory on every copy; unmapped and released on drop.
pub(crate) struct Replica {
    space: Arc<ReplicaSpace>,
    base: u64,
    offset: u64,
    size: u64,
    /// One physical allocation per copy mapped so far, in copy order.
    handles: Vec<sys::CUmemGenericAllocationHandle>,
}

impl Replica {
    /// Copy `c`'s address (copy 0's is the tasks' handle).
    pub(crate) fn address(&self, c: usize) -> u64 {
        self.space.address(self.base, c, self.offset)
    }

    /// Copies of the table.
    pub(crate) fn copies(&self) -> usize {
        self.space.copies()
    }

    /// Bytes each copy holds.
    pub(crate) fn capacity(&self) -> usize {
        self.size as usize
    }

    /// Backs copy `c` with memory of its device and opens it to every device.
    fn map_copy(&mut self, c: usize) -> Result<()> {
        let prop = allocation_prop(self.space.devices[c]);
        let mut handle = 0;
        // SAFETY: out-pointer and a valid property struct; the size is a multiple of the
        // granularity.
        let r =
            unsafe { sys::cuMemCreate(&raw mut handle, self.size as usize, &raw const prop, 0) };
        if r == CuResult::CUDA_ERROR_OUT_OF_MEMORY {
            return Err(Error::OutOfMemory {
                bytes: self.size as usize,
                memory: "device",
            });
        }
        check("cuMemCreate", r)?;
        let at = self.address(c);
        // SAFETY: `[at, at + size)` is reserved and unmapped (the free list's invariant); the
        // handle was just created with `size` bytes.
        let r = unsafe { sys::cuMemMap(at, self.size as usize, 0, handle, 0) };
        if r != OK {
            // SAFETY: created above and not mapped.
            unsafe {
                let _ = sys::cuMemRelease(handle);
            }
            return Err(driver("cuMemMap", r));
        }
        self.handles.push(handle);
        let access: Vec<sys::CUmemAccessDesc> = self
            .space
            .devices
            .iter()
            .map(|&d| sys::CUmemAccessDesc {
                location: sys::CUmemLocation {
                    type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE,
                    id: d,
                },
                flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
            })
            .collect();
        // SAFETY: the range was just mapped; `access` holds `len` descriptors.
        check("cuMemSetAccess", unsafe {
            sys::cuMemSetAccess(at, self.size as usize, access.as_ptr(), access.len())
        })
    }
}

impl Drop for Replica {
    fn drop(&mut self) {
        if !self.space.token.current() || self.space.bind().is_err() {
            return;
        }
        for (c, &handle) in self.handles.iter().enumerate() {
            // SAFETY: copy `c` was mapped with this handle in `map_copy` and is unmapped once;
            // no run reads it (runs borrow the runtime mutably and the table's owner is being
            // dropped, so no run is in flight with its handle).
            unsafe {
                let _ = sys::cuMemUnmap(self.address(c), self.size as usize);
                let _ = sys::cuMemRelease(handle);
            }
        }
        self.space.give_back(self.offset, self.size);
    }
}

#[cfg(test)]
mod tests {
    use super::FreeRanges;

    #[test]
    fn ranges_are_taken_first_fit_and_merge_when_given_back() {
        let mut free = FreeRanges(vec![(0, 16)]);
        assert_eq!(free.take(4), Some(0));
        assert_eq!(free.take(4), Some(4));
        assert_eq!(free.take(8), Some(8));
        assert_eq!(free.take(1), None);
        free.give_back(4, 4);
        assert_eq!(free, FreeRanges(vec![(4, 4)]));
        assert_eq!(free.take(8), None, "no range of 8 is free");
        free.give_back(12, 4);
        free.give_back(0, 4);
        assert_eq!(free, FreeRanges(vec![(0, 8), (12, 4)]));
        free.give_back(8, 4);
        assert_eq!(free, FreeRanges(vec![(0, 16)]), "all three merge into one");
        assert_eq!(free.take(16), Some(0));
    }
}
