//! What a CUDA driver call's result means for the runtime: success, an error in the driver's
//! words ([`Error::Driver`]), or a sticky error, after which the process's CUDA contexts
//! answer every call with the same error ([`Error::DeviceFault`] for the call that meets it,
//! every device marked lost: `contexts.rs`).
//!
//! Invariant: every driver call of the GPU backend whose failure is reported goes through
//! [`check`] or [`driver`] (or [`cudarc_error`] for `cudarc`'s safe API), so a fault is
//! recognized whichever call meets it first.

use cudarc::driver::sys;

use super::contexts;
use crate::error::{Error, Result};

pub(super) type CuResult = sys::CUresult;
pub(super) const OK: CuResult = CuResult::CUDA_SUCCESS;

/// The error of a failed driver call. A sticky error means a kernel of this process faulted:
/// whichever call sees it first (a stream query, a copy, a launch, creating a context), it is
/// [`Error::DeviceFault`] and every device is marked lost (`contexts.rs`), so that later calls
/// answer [`Error::ContextLost`] instead of the driver's words.
pub(super) fn driver(what: &str, r: CuResult) -> Error {
    if is_sticky(r) {
        contexts::fault_seen();
        return Error::DeviceFault {
            code: r as u32,
            detail: format!(
                "{what} failed with {r:?}: a kernel faulted and the CUDA context is lost; drop every Runtime that uses the GPU, and the next Runtime gets a fresh context"
            ),
        };
    }
    Error::Driver(format!("{what} failed: {r:?}"))
}

/// [`driver`] for an error of `cudarc`'s safe API.
pub(super) fn cudarc_error(what: &str, e: cudarc::driver::DriverError) -> Error {
    driver(what, e.0)
}

/// Whether `r` is one of the errors after which the CUDA context answers every call with the
/// same error (a kernel's illegal address, trap, misaligned access, ... and an uncorrectable
/// ECC error): the context is unusable until it is reset.
pub(super) fn is_sticky(r: CuResult) -> bool {
    use CuResult as R;
    matches!(
        r,
        R::CUDA_ERROR_ILLEGAL_ADDRESS
            | R::CUDA_ERROR_LAUNCH_TIMEOUT
            | R::CUDA_ERROR_ASSERT
            | R::CUDA_ERROR_HARDWARE_STACK_ERROR
            | R::CUDA_ERROR_ILLEGAL_INSTRUCTION
            | R::CUDA_ERROR_MISALIGNED_ADDRESS
            | R::CUDA_ERROR_INVALID_ADDRESS_SPACE
            | R::CUDA_ERROR_INVALID_PC
            | R::CUDA_ERROR_LAUNCH_FAILED
            | R::CUDA_ERROR_ECC_UNCORRECTABLE
    )
}

pub(super) fn check(what: &str, r: CuResult) -> Result<()> {
    if r == OK {
        Ok(())
    } else {
        Err(driver(what, r))
    }
}

/// Whether a CUDA driver is present and a device exists; never panics.
pub(crate) fn available() -> bool {
    // SAFETY: `is_culib_present` only tries to load the library; the other calls run only when
    // it is there, so cudarc's loader does not panic.
    unsafe {
        if !sys::is_culib_present() {
            return false;
        }
        if sys::cuInit(0) != OK {
            return false;
        }
        let mut n = 0;
        sys::cuDeviceGetCount(&raw mut n) == OK && n > 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_kernels_faults_lose_the_context() {
        for r in [
            CuResult::CUDA_ERROR_ILLEGAL_ADDRESS,
            CuResult::CUDA_ERROR_LAUNCH_FAILED,
            CuResult::CUDA_ERROR_MISALIGNED_ADDRESS,
            CuResult::CUDA_ERROR_ASSERT,
        ] {
            assert!(is_sticky(r), "{r:?}");
        }
        for r in [
            CuResult::CUDA_ERROR_OUT_OF_MEMORY,
            CuResult::CUDA_ERROR_NOT_FOUND,
            CuResult::CUDA_ERROR_INVALID_VALUE,
            CuResult::CUDA_ERROR_NOT_READY,
        ] {
            assert!(!is_sticky(r), "{r:?}");
            // Not sticky: the registry is not touched, and the error keeps the driver's words.
            assert!(
                matches!(driver("cuX", r), Error::Driver(m) if m.contains("cuX failed")),
                "{r:?}"
            );
        }
    }
}
