//! `cancel [N=46] [AFTER_MS=50]`: stops fib(N) from outside and measures how long the stop
//! takes. Each repetition runs fib(N) with a `CancelToken` that another thread cancels after
//! AFTER_MS; the latency is from that `cancel()` call to `run_with` returning
//! `Error::Cancelled`. Then the same with a deadline of AFTER_MS (how far past it the run
//! returned), and after each stop a fib(25) on the same runtime, checked.

use std::process::ExitCode;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use gtap::{CancelReason, CancelToken, Error, RunOptions};
use gtap_examples::{
    apps::fib::{fib, Fib},
    host::{self, Opts},
    reference,
};

const USAGE: &str = "cancel [N=46] [AFTER_MS=50] [--cpu|--gpu] [--reps N] [--devices ..]";

fn main() -> ExitCode {
    let opts = Opts::from_env(USAGE);
    let n: u32 = opts.arg(0, "N", 46, USAGE);
    let after_ms: u64 = opts.arg(1, "AFTER_MS", 50, USAGE);
    if n > 60 {
        eprintln!("error: N must be at most 60");
        return ExitCode::from(2);
    }
    let mut rt = match opts.runtime() {
        Ok(rt) => rt,
        Err(e) => return host::fail("cancel", &e),
    };
    let after = Duration::from_millis(after_ms);
    let check = reference::fib_seq(25);
    let (mut token_us, mut deadline_us) = (Vec::new(), Vec::new());
    let mut ok = true;
    for _ in 0..opts.reps.max(1) {
        // A token cancelled by another thread.
        let token = CancelToken::new();
        let (tx, rx) = mpsc::channel();
        let canceller = {
            let token = token.clone();
            std::thread::spawn(move || {
                std::thread::sleep(after);
                let at = Instant::now();
                token.cancel();
                tx.send(at).ok();
            })
        };
        let options = RunOptions {
            cancel: Some(token),
            ..RunOptions::default()
        };
        let r = rt.run_with::<Fib, _>(fib, (n,), &options);
        let returned = Instant::now();
        canceller.join().ok();
        let cancelled_at = rx.recv().ok();
        match (&r, cancelled_at) {
            (
                Err(Error::Cancelled {
                    reason: CancelReason::Token,
                    ..
                }),
                Some(at),
            ) => {
                token_us.push(returned.duration_since(at).as_secs_f64() * 1e6);
            }
            (other, _) => {
                println!("token: expected Cancelled, got {other:?} (fib({n}) finished within {after_ms} ms? raise N)");
                ok = false;
            }
        }
        ok &= next_run_ok(&mut rt, check);
        // A deadline.
        let options = RunOptions {
            deadline: Some(after),
            ..RunOptions::default()
        };
        let t0 = Instant::now();
        let r = rt.run_with::<Fib, _>(fib, (n,), &options);
        let took = t0.elapsed();
        match &r {
            Err(Error::Cancelled {
                reason: CancelReason::Deadline,
                ..
            }) => {
                deadline_us.push(took.saturating_sub(after).as_secs_f64() * 1e6);
            }
            other => {
                println!("deadline: expected Cancelled, got {other:?}");
                ok = false;
            }
        }
        ok &= next_run_ok(&mut rt, check);
    }
    let stat = |xs: &mut Vec<f64>| {
        if xs.is_empty() {
            return (f64::NAN, f64::NAN);
        }
        let max = xs.iter().copied().fold(0.0, f64::max);
        (host::median(xs), max)
    };
    let (tm, tx) = stat(&mut token_us);
    let (dm, dx) = stat(&mut deadline_us);
    println!(
        "cancel fib({n}) after {after_ms} ms on {}: token -> Cancelled in {tm:.0} us median, {tx:.0} us max; deadline -> returned {dm:.0} us median, {dx:.0} us max past it ({} reps); fib(25) after each stop checked",
        rt.backend_name(),
        token_us.len()
    );
    host::report(
        "cancel",
        ok,
        "every stop returned Cancelled and the next run was right",
    )
}

fn next_run_ok(rt: &mut gtap::Runtime, want: u64) -> bool {
    match rt.run::<Fib, _>(fib, (25,)) {
        Ok(v) if v == want => true,
        other => {
            println!("the run after a stop: expected {want}, got {other:?}");
            false
        }
    }
}
