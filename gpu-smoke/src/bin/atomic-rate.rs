//! `atomic-rate`: the H200's throughput of relaxed device-scope `atom.add.u32`, the operation the
//! scheduler's deques, join counters and free lists are built on, so that fib's task rate can be
//! read against it. Three patterns: every thread on its own word (no contention), one word per
//! warp (32-way contention, what a deque `count` sees at worst), and a single word for the
//! whole grid.

use std::ffi::{c_void, CString};
use std::process::ExitCode;
use std::ptr::null_mut;
use std::time::Instant;

use cudarc::driver::{sys, CudaContext};

const PTX: &str = include_str!(env!("GTAP_PTX"));

fn check(what: &str, r: sys::CUresult) -> Result<(), String> {
    if r == sys::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(format!("{what} failed: {r:?}"))
    }
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("atomic-rate: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let ctx = CudaContext::new(0).map_err(|e| format!("no CUDA device: {e:?}"))?;
    ctx.bind_to_thread().map_err(|e| format!("{e:?}"))?;
    let sms = ctx
        .attribute(sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .map_err(|e| format!("{e:?}"))? as u32;
    let src = CString::new(PTX).map_err(|_| "PTX contains a NUL byte".to_owned())?;
    let name = CString::new("gtap_atomic_rate").expect("no NUL");
    let (block, grid, iters) = (256u32, sms * 8, 2000u32);
    let threads = u64::from(block) * u64::from(grid);
    let mut module: sys::CUmodule = null_mut();
    let mut func: sys::CUfunction = null_mut();
    let mut buf: sys::CUdeviceptr = 0;
    // SAFETY: plain driver calls on the bound primary context; every out-pointer is a local,
    // the kernel's parameters match its signature (u64 pointer, u32, u32), and the buffer
    // holds one u32 per thread, the most any pattern below indexes.
    unsafe {
        check(
            "cuModuleLoadData",
            sys::cuModuleLoadData(&raw mut module, src.as_ptr().cast()),
        )?;
        check(
            "cuModuleGetFunction",
            sys::cuModuleGetFunction(&raw mut func, module, name.as_ptr()),
        )?;
        check(
            "cuMemAlloc",
            sys::cuMemAlloc_v2(&raw mut buf, threads as usize * 4),
        )?;
        println!("atomic.add.u32 relaxed .gpu, {grid} blocks x {block} threads, {iters} adds each (median of 5)");
        for (pattern, spread) in [
            ("own word per thread", threads as u32),
            ("one word per warp (32-way)", (threads / 32) as u32),
            ("one word for the grid", 1),
        ] {
            let mut rates = Vec::new();
            for rep in 0..6 {
                check("cuMemsetD32", sys::cuMemsetD32_v2(buf, 0, threads as usize))?;
                check("cuCtxSynchronize", sys::cuCtxSynchronize())?;
                let mut b = buf;
                let (mut it, mut sp) = (iters, spread);
                let mut params = [
                    (&raw mut b).cast::<c_void>(),
                    (&raw mut it).cast(),
                    (&raw mut sp).cast(),
                ];
                let t = Instant::now();
                check(
                    "cuLaunchKernel",
                    sys::cuLaunchKernel(
                        func,
                        grid,
                        1,
                        1,
                        block,
                        1,
                        1,
                        0,
                        null_mut(),
                        params.as_mut_ptr(),
                        null_mut(),
                    ),
                )?;
                check("cuCtxSynchronize", sys::cuCtxSynchronize())?;
                let secs = t.elapsed().as_secs_f64();
                let mut first = 0u32;
                check(
                    "cuMemcpyDtoH",
                    sys::cuMemcpyDtoH_v2((&raw mut first).cast(), buf, 4),
                )?;
                let want = u64::from(iters) * threads / u64::from(spread);
                if u64::from(first) != want & 0xffff_ffff {
                    return Err(format!("{pattern}: counter 0 is {first}, expected {want}"));
                }
                if rep > 0 {
                    rates.push(threads as f64 * f64::from(iters) / secs / 1e9);
                }
            }
            rates.sort_by(f64::total_cmp);
            println!(
                "  {pattern:<30} {:>8.1} G atomics/s",
                rates[rates.len() / 2]
            );
        }
        check("cuMemFree", sys::cuMemFree_v2(buf))?;
        check("cuModuleUnload", sys::cuModuleUnload(module))?;
    }
    Ok(())
}
