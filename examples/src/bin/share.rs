//! `share [N=40] [SECONDS=2] [--sms K]`: gtap beside another kernel on the same GPU. Measures,
//! each alone and then both at once, fib(N) on gtap limited to K SMs' worth of blocks
//! (`Config::sms`) and a neighbour on a stream of its own: a bandwidth-bound one
//! (device-to-device copies of 1 GiB, GB/s) and a compute-bound one (a kernel of independent
//! FP32 FMA chains filling every SM, GFLOP/s); fib in runs per second.

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use cudarc::driver::CudaContext;
use gtap_examples::{
    apps::fib::{fib, Fib},
    host::{self, Opts},
    reference,
};

const USAGE: &str = "share [N=40] [SECONDS=2] [--sms K] (GPU only)";
const COPY_BYTES: usize = 1 << 30;

fn main() -> ExitCode {
    let opts = Opts::from_env(USAGE);
    let n: u32 = opts.arg(0, "N", 40, USAGE);
    let secs: f64 = opts.arg(1, "SECONDS", 2.0, USAGE);
    let window = Duration::from_secs_f64(secs);
    let mut rt = match opts.runtime() {
        Ok(rt) if rt.backend_name() == "gpu" => rt,
        Ok(_) => {
            eprintln!("share: needs a GPU");
            return ExitCode::FAILURE;
        }
        Err(e) => return host::fail("share", &e),
    };
    let want = reference::fib_seq(n);
    let mut ok = true;
    // fib alone.
    let (runs_alone, ok_alone) = fib_for(&mut rt, n, want, window);
    ok &= ok_alone;
    let sms = opts.sms.map_or("all".to_string(), |s| s.to_string());
    for neighbour in [Neighbour::Copy, Neighbour::Compute] {
        // The neighbour alone.
        let alone = match neighbour.run_for(window, None) {
            Ok(rate) => rate,
            Err(e) => {
                eprintln!("share: the {} failed: {e}", neighbour.name());
                return ExitCode::FAILURE;
            }
        };
        // Both at once: the neighbour on its own thread and stream while fib runs.
        let running = Arc::new(AtomicBool::new(true));
        let worker = {
            let running = running.clone();
            std::thread::spawn(move || neighbour.run_for(Duration::from_secs(3600), Some(&running)))
        };
        std::thread::sleep(Duration::from_millis(100));
        let (runs_both, ok_both) = fib_for(&mut rt, n, want, window);
        ok &= ok_both;
        // Ordering: Relaxed; a flag the neighbour polls between its launches.
        running.store(false, Ordering::Relaxed);
        let both = worker.join().ok().and_then(Result::ok).unwrap_or(f64::NAN);
        println!(
            "share: fib({n}) on {sms} SMs' worth of blocks: {runs_alone:.1} runs/s alone, {runs_both:.1} with the {} ({:.0}%); {}: {alone:.0} {unit} alone, {both:.0} {unit} beside gtap ({:.0}%)",
            neighbour.name(),
            100.0 * runs_both / runs_alone,
            neighbour.what(),
            100.0 * both / alone,
            unit = neighbour.unit(),
        );
    }
    host::report("share", ok, "every fib run checked")
}

/// The kernel that runs beside gtap.
#[derive(Clone, Copy)]
enum Neighbour {
    /// Device-to-device copies of 1 GiB (bandwidth-bound).
    Copy,
    /// FMA chains on every SM (compute-bound).
    Compute,
}

impl Neighbour {
    fn name(self) -> &'static str {
        match self {
            Self::Copy => "copy",
            Self::Compute => "FMA kernel",
        }
    }

    fn what(self) -> &'static str {
        match self {
            Self::Copy => "copy of 1 GiB",
            Self::Compute => "FMA kernel (8 chains per thread, 4 blocks of 256 per SM)",
        }
    }

    fn unit(self) -> &'static str {
        match self {
            Self::Copy => "GB/s",
            Self::Compute => "GFLOP/s",
        }
    }

    /// Runs for `window` (or while `running`); its rate.
    fn run_for(self, window: Duration, running: Option<&AtomicBool>) -> Result<f64, String> {
        match self {
            Self::Copy => copy_for(window, running),
            Self::Compute => fma_for(window, running),
        }
    }
}

/// Runs fib(n) for `window`; runs per second, and whether every result was right.
fn fib_for(rt: &mut gtap::Runtime, n: u32, want: u64, window: Duration) -> (f64, bool) {
    let t0 = Instant::now();
    let (mut runs, mut ok) = (0u32, true);
    while t0.elapsed() < window {
        match rt.run::<Fib, _>(fib, (n,)) {
            Ok(v) => ok &= v == want,
            Err(e) => {
                eprintln!("share: fib failed: {e}");
                return (0.0, false);
            }
        }
        runs += 1;
    }
    (f64::from(runs) / t0.elapsed().as_secs_f64(), ok)
}

/// The compute-bound neighbour: each thread runs `iters` rounds of eight independent FP32
/// FMA chains (16 FLOP per round) and stores their sum, so nothing is optimized away.
const FMA_PTX: &str = r#"
.version 8.0
.target sm_90
.address_size 64
.visible .entry fma_chains(.param .u64 out, .param .u32 iters)
{
    .reg .pred %p;
    .reg .b32 %r<6>;
    .reg .f32 %f<12>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r1, [iters];
    mov.u32 %r2, %tid.x;
    mov.u32 %r3, %ctaid.x;
    mov.u32 %r4, %ntid.x;
    mad.lo.u32 %r2, %r3, %r4, %r2;
    cvt.rn.f32.u32 %f0, %r2;
    mov.f32 %f9, 0f3F7FFFEF;
    mov.f32 %f10, 0f3A83126F;
    add.f32 %f1, %f0, 0f3F800000;
    add.f32 %f2, %f0, 0f40000000;
    add.f32 %f3, %f0, 0f40400000;
    add.f32 %f4, %f0, 0f40800000;
    add.f32 %f5, %f0, 0f40A00000;
    add.f32 %f6, %f0, 0f40C00000;
    add.f32 %f7, %f0, 0f40E00000;
    add.f32 %f8, %f0, 0f41000000;
    mov.u32 %r5, 0;
LOOP:
    fma.rn.f32 %f1, %f1, %f9, %f10;
    fma.rn.f32 %f2, %f2, %f9, %f10;
    fma.rn.f32 %f3, %f3, %f9, %f10;
    fma.rn.f32 %f4, %f4, %f9, %f10;
    fma.rn.f32 %f5, %f5, %f9, %f10;
    fma.rn.f32 %f6, %f6, %f9, %f10;
    fma.rn.f32 %f7, %f7, %f9, %f10;
    fma.rn.f32 %f8, %f8, %f9, %f10;
    add.u32 %r5, %r5, 1;
    setp.lt.u32 %p, %r5, %r1;
    @%p bra LOOP;
    add.f32 %f1, %f1, %f2;
    add.f32 %f3, %f3, %f4;
    add.f32 %f5, %f5, %f6;
    add.f32 %f7, %f7, %f8;
    add.f32 %f1, %f1, %f3;
    add.f32 %f5, %f5, %f7;
    add.f32 %f1, %f1, %f5;
    mul.wide.u32 %rd2, %r2, 4;
    add.u64 %rd3, %rd1, %rd2;
    st.global.f32 [%rd3], %f1;
    ret;
}
"#;

/// Launches the FMA kernel (4 blocks of 256 threads per SM, about 10 ms each) on a stream of
/// its own for `window` (or while `running`); GFLOP/s.
fn fma_for(window: Duration, running: Option<&AtomicBool>) -> Result<f64, String> {
    use cudarc::driver::{LaunchConfig, PushKernelArg};
    let err = |e: cudarc::driver::DriverError| format!("{e:?}");
    let ctx = CudaContext::new(0).map_err(err)?;
    let sms = ctx
        .attribute(
            cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
        )
        .map_err(err)? as u32;
    let module = ctx
        .load_module(cudarc::nvrtc::Ptx::from_src(FMA_PTX))
        .map_err(err)?;
    let f = module.load_function("fma_chains").map_err(err)?;
    let stream = ctx.new_stream().map_err(err)?;
    let (blocks, threads, iters) = (4 * sms, 256u32, 1u32 << 16);
    let mut out = stream
        .alloc_zeros::<f32>((blocks * threads) as usize)
        .map_err(err)?;
    let cfg = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    };
    let t0 = Instant::now();
    let mut launches = 0u32;
    // Ordering: Relaxed; a stop flag, nothing is read through it.
    while t0.elapsed() < window && running.is_none_or(|r| r.load(Ordering::Relaxed)) {
        let mut launch = stream.launch_builder(&f);
        launch.arg(&mut out).arg(&iters);
        // SAFETY: `fma_chains(out, iters)` writes one f32 per thread of the grid, and `out`
        // holds one per thread.
        unsafe { launch.launch(cfg) }.map_err(err)?;
        stream.synchronize().map_err(err)?;
        launches += 1;
    }
    let flops = 16.0 * f64::from(iters) * f64::from(blocks * threads) * f64::from(launches);
    Ok(flops / t0.elapsed().as_secs_f64() / 1e9)
}

/// Copies 1 GiB device to device on a stream of its own for `window` (or while `running`);
/// GB/s (read plus write).
fn copy_for(window: Duration, running: Option<&AtomicBool>) -> Result<f64, String> {
    let ctx = CudaContext::new(0).map_err(|e| format!("{e:?}"))?;
    let stream = ctx.new_stream().map_err(|e| format!("{e:?}"))?;
    let src = stream
        .alloc_zeros::<u8>(COPY_BYTES)
        .map_err(|e| format!("{e:?}"))?;
    let mut dst = stream
        .alloc_zeros::<u8>(COPY_BYTES)
        .map_err(|e| format!("{e:?}"))?;
    stream.synchronize().map_err(|e| format!("{e:?}"))?;
    let t0 = Instant::now();
    let mut copies = 0u32;
    // Ordering: Relaxed; a stop flag, nothing is read through it.
    while t0.elapsed() < window && running.is_none_or(|r| r.load(Ordering::Relaxed)) {
        stream
            .memcpy_dtod(&src, &mut dst)
            .map_err(|e| format!("{e:?}"))?;
        stream.synchronize().map_err(|e| format!("{e:?}"))?;
        copies += 1;
    }
    Ok(2.0 * COPY_BYTES as f64 * f64::from(copies) / t0.elapsed().as_secs_f64() / 1e9)
}
