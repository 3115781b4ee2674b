//! `share [N=40] [SECONDS=2] [--sms K]`: gtap beside another kernel on the same GPU. Measures,
//! each alone and then both at once, a bandwidth-bound job (device-to-device copies of 1 GiB
//! on a stream of their own) and fib(N) on gtap limited to K SMs' worth of blocks
//! (`Config::sms`): copy GB/s and fib runs per second.

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
    // The copy alone.
    let copy_alone = match copy_for(window, None) {
        Ok(gbs) => gbs,
        Err(e) => {
            eprintln!("share: the copy failed: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Both at once: the copy on its own thread and stream while fib runs.
    let running = Arc::new(AtomicBool::new(true));
    let copier = {
        let running = running.clone();
        std::thread::spawn(move || copy_for(Duration::from_secs(3600), Some(&running)))
    };
    std::thread::sleep(Duration::from_millis(100));
    let (runs_both, ok_both) = fib_for(&mut rt, n, want, window);
    ok &= ok_both;
    // Ordering: Relaxed; a flag the copier polls between copies.
    running.store(false, Ordering::Relaxed);
    let copy_both = copier.join().ok().and_then(Result::ok).unwrap_or(f64::NAN);
    println!(
        "share: fib({n}) on {} SMs' worth of blocks: {runs_alone:.1} runs/s alone, {runs_both:.1} with the copy ({:.0}%); copy of 1 GiB: {copy_alone:.0} GB/s alone, {copy_both:.0} GB/s beside gtap ({:.0}%)",
        opts.sms.map_or("all".to_string(), |s| s.to_string()),
        100.0 * runs_both / runs_alone,
        100.0 * copy_both / copy_alone
    );
    host::report("share", ok, "every fib run checked")
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
