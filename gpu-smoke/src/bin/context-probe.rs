//! `context-probe [none|reset|release|other]`: what the CUDA driver lets a process do after a
//! kernel writes to an illegal address, the fact `gtap-runtime/src/gpu/contexts.rs` is built
//! on. Outside gtap, with the driver API alone: a good kernel runs, a kernel stores to address
//! 0x10, and then, after one of
//!
//! - `none`: nothing;
//! - `reset`: `cuDevicePrimaryCtxReset` of the device;
//! - `release`: every retain of the primary context released (the context is destroyed);
//! - `other`: nothing, and the rest runs on device 1 instead of device 0;
//!
//! the good kernel is tried twice more. Each driver call's answer is printed, and the last line
//! says whether the process got a working GPU back. The exit status is 0 either way (this is a
//! probe of the driver, not a check of gtap); 1 when the probe itself could not run.

use std::ffi::{c_void, CString};
use std::process::ExitCode;
use std::ptr::null_mut;

use cudarc::driver::sys::{self, CUresult};

/// A kernel that stores 7 through its pointer argument.
const STORE: &str = r"
.version 8.0
.target sm_90
.address_size 64
.visible .entry store(.param .u64 p) {
  .reg .u64 %a;
  .reg .u32 %v;
  ld.param.u64 %a, [p];
  mov.u32 %v, 7;
  st.global.u32 [%a], %v;
  ret;
}
";

/// Prints a driver call's answer; whether it succeeded.
fn said(call: &str, r: CUresult) -> bool {
    println!("  {call}: {r:?}");
    r == CUresult::CUDA_SUCCESS
}

/// Retains `dev`'s primary context, loads the kernel and runs it on `target` (a fresh
/// allocation when `None`): whether every step and the synchronization succeeded.
fn store(dev: sys::CUdevice, target: Option<u64>) -> bool {
    let src = CString::new(STORE).expect("no NUL in the PTX");
    let (mut ctx, mut module, mut function, mut buffer) = (null_mut(), null_mut(), null_mut(), 0);
    // SAFETY: driver calls with out-pointers to locals; the kernel's one parameter is a u64
    // read from `address`, which lives across the launch and the synchronization.
    unsafe {
        if !(said("retain", sys::cuDevicePrimaryCtxRetain(&raw mut ctx, dev))
            && said("set current", sys::cuCtxSetCurrent(ctx))
            && said(
                "load module",
                sys::cuModuleLoadData(&raw mut module, src.as_ptr().cast()),
            )
            && said(
                "get function",
                sys::cuModuleGetFunction(&raw mut function, module, c"store".as_ptr()),
            )
            && said("allocate", sys::cuMemAlloc_v2(&raw mut buffer, 4096)))
        {
            return false;
        }
        let mut address = target.unwrap_or(buffer);
        let mut params = [(&raw mut address).cast::<c_void>()];
        let launched = sys::cuLaunchKernel(
            function,
            1,
            1,
            1,
            1,
            1,
            1,
            0,
            null_mut(),
            params.as_mut_ptr(),
            null_mut(),
        );
        said("launch", launched) && said("synchronize", sys::cuCtxSynchronize())
    }
}

fn main() -> ExitCode {
    let mode = std::env::args().nth(1).unwrap_or_else(|| "none".into());
    if !["none", "reset", "release", "other"].contains(&mode.as_str()) {
        eprintln!("context-probe: unknown mode `{mode}`: give none, reset, release or other");
        return ExitCode::FAILURE;
    }
    let mut dev = 0;
    // SAFETY: plain driver calls with out-pointers to locals.
    let opened = unsafe {
        said("init", sys::cuInit(0)) && said("device 0", sys::cuDeviceGet(&raw mut dev, 0))
    };
    println!("a good kernel:");
    if !opened || !store(dev, None) {
        eprintln!("context-probe: the GPU does not run a good kernel before any fault");
        return ExitCode::FAILURE;
    }
    println!("a store to address 0x10:");
    store(dev, Some(0x10));
    println!("then `{mode}`:");
    let mut after = dev;
    // SAFETY: plain driver calls on an opened device; `store` retained its context twice.
    unsafe {
        match mode.as_str() {
            "reset" => {
                said("reset", sys::cuDevicePrimaryCtxReset_v2(dev));
            }
            "release" => {
                for _ in 0..2 {
                    said("release", sys::cuDevicePrimaryCtxRelease_v2(dev));
                }
            }
            "other" => {
                said("device 1", sys::cuDeviceGet(&raw mut after, 1));
            }
            _ => {}
        }
    }
    println!("a good kernel again:");
    store(after, None);
    println!("and once more:");
    let back = store(after, None);
    println!(
        "context-probe {mode}: {}",
        if back {
            "the process has a working GPU again"
        } else {
            "the process has no working GPU"
        }
    );
    ExitCode::SUCCESS
}
