//! GPU backend (stub: the real one replaces this file).
#![allow(
    dead_code,
    clippy::extra_unused_type_parameters,
    reason = "stub until the GPU backend lands"
)]

use gtap_device::task::{Program, TaskFn};

use crate::{
    config::Config,
    error::{Error, Result},
    stats::RunStats,
};

fn not_built() -> Error {
    Error::NoGpu {
        reason: "this build of gtap has no GPU backend yet".into(),
    }
}

/// Whether a CUDA driver is present and a device exists; never panics.
pub(crate) fn available() -> bool {
    false
}

/// A runtime on one GPU.
pub(crate) struct GpuBackend;

impl GpuBackend {
    pub(crate) fn new(_config: &Config, _ptx: &'static str) -> Result<Self> {
        Err(not_built())
    }

    pub(crate) fn run<P: Program, T: TaskFn>(
        &mut self,
        _entry: &T,
        _args: T::Args,
        _stride: usize,
    ) -> Result<(T::Output, RunStats)> {
        Err(not_built())
    }

    pub(crate) fn upload<T: Copy>(&self, _data: &[T]) -> Result<DeviceBuffer> {
        Err(not_built())
    }

    pub(crate) fn alloc_zeroed(&self, _bytes: usize) -> Result<DeviceBuffer> {
        Err(not_built())
    }

    pub(crate) fn download<T: Copy>(&self, _buf: &DeviceBuffer, _out: &mut [T]) -> Result<()> {
        Err(not_built())
    }
}

/// Device memory; freed on drop.
pub(crate) struct DeviceBuffer {
    ptr: u64,
    bytes: usize,
}

impl DeviceBuffer {
    pub(crate) fn ptr(&self) -> u64 {
        self.ptr
    }
}
