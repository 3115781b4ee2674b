//! `pause [SCALE=1]`: pause and resume, and elastic workers, checked and measured on the GPU.
//!
//! Each case runs a program with `Runtime::start` while another thread pauses it (after a
//! delay, or every few milliseconds) or changes its `SmLimit`, resumes every pause after a
//! short gap (the GPU runs nothing of gtap's meanwhile), and checks the final answer against
//! the sequential reference:
//!
//! - fib(36 + SCALE) paused once at 0, 1, 5 and 20 ms, and every 3 ms;
//! - nqueens(13 + SCALE), cutoff 7, every 5 ms; the UTS tree of 10^7 nodes every 4 ms; a BFS
//!   of an R-MAT graph of scale 16 + 2 SCALE (a program without joins) every 2 ms;
//! - fib(38 + SCALE), UTS and the BFS while the SM limit cycles through 1/4, 3/4, 1 SM, all,
//!   1/2 of the SMs every few ms; then fib with pauses as well;
//! - the pause latency (from `PauseToken::pause` to `Outcome::Paused`), median and max;
//! - the errors: a block-level program and `run_with` refuse a pause token.
//!
//! SCALE 0 is the small size for memcheck (fib(22), nqueens(9), UTS of 10^5 nodes, R-MAT 12,
//! at most 4 pauses a run). GPU only (the CPU executor never pauses).

use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

use gtap::{Error, Outcome, PauseToken, Program, RunOptions, RunStats, Runtime, SmLimit, TaskFn};
use gtap_examples::{
    apps::bfs::{bfs_visit, Bfs},
    apps::binary_tree::{tree_block, BinaryTreeBlock},
    apps::fib::{fib, Fib},
    apps::nqueens::{nqueens, NQueens},
    apps::uts::{uts, Uts},
    host::{self, Opts},
    inputs::{rmat, Rmat},
    reference, reference_deep,
    reference_irregular::{bfs_seq, UNREACHED},
};

const USAGE: &str = "pause [SCALE=1] [--gpu] [--reps N] (GPU only)";
/// How long a paused run stays paused before it is resumed.
const GAP: Duration = Duration::from_millis(1);

/// What a driven run gave.
struct Driven<O> {
    out: O,
    pauses: usize,
    latencies_us: Vec<f64>,
    stats: RunStats,
}

/// How a run is steered: pauses after these delays (each from the start of a segment; one
/// per segment, in order), and SM limits cycled every `period` while it runs.
#[derive(Clone, Default)]
struct Plan {
    pauses: Vec<Duration>,
    sms: Vec<Option<u32>>,
    period: Duration,
}

impl Plan {
    fn pause_at(ms: &[u64]) -> Self {
        Self {
            pauses: ms.iter().map(|&m| Duration::from_millis(m)).collect(),
            ..Self::default()
        }
    }

    fn pause_every(ms: u64, times: usize) -> Self {
        Self::pause_at(&vec![ms; times])
    }

    fn with_sms(mut self, sms: Vec<Option<u32>>, period_ms: u64) -> Self {
        self.sms = sms;
        self.period = Duration::from_millis(period_ms);
        self
    }
}

/// Runs `entry(args)` under `plan`, resuming every pause after [`GAP`].
fn drive<P: Program, T: TaskFn>(
    rt: &mut Runtime,
    entry: T,
    args: T::Args,
    plan: &Plan,
) -> gtap::Result<Driven<T::Output>> {
    let pause = PauseToken::new();
    let limit = SmLimit::new();
    let options = RunOptions {
        pause: (!plan.pauses.is_empty()).then(|| pause.clone()),
        sms: (!plan.sms.is_empty()).then(|| limit.clone()),
        ..RunOptions::default()
    };
    // The pauser: one pause per segment, `delay` after the segment's start.
    let (go_tx, go_rx) = mpsc::channel::<()>();
    let (at_tx, at_rx) = mpsc::channel::<Instant>();
    let delays = plan.pauses.clone();
    let pauser = std::thread::spawn(move || {
        for d in delays {
            if go_rx.recv().is_err() {
                return;
            }
            std::thread::sleep(d);
            let at = Instant::now();
            pause.pause();
            if at_tx.send(at).is_err() {
                return;
            }
        }
    });
    // The resizer: cycles the SM limit until the run ends.
    let running = Arc::new(AtomicBool::new(true));
    let resizer = (!plan.sms.is_empty()).then(|| {
        let (running, sms, period, limit) = (
            running.clone(),
            plan.sms.clone(),
            plan.period,
            limit.clone(),
        );
        std::thread::spawn(move || {
            // Ordering: Relaxed; a stop flag, nothing is read through it.
            for s in sms.iter().cycle() {
                if !running.load(Ordering::Relaxed) {
                    break;
                }
                limit.set(*s);
                std::thread::sleep(period);
            }
        })
    });
    let (mut pauses, mut latencies_us) = (0, Vec::new());
    let _ = go_tx.send(());
    let mut outcome = rt.start::<P, T>(entry, args, &options);
    let result = loop {
        match outcome {
            Err(e) => break Err(e),
            Ok(Outcome::Done(out)) => break Ok(out),
            Ok(Outcome::Paused(paused)) => {
                let now = Instant::now();
                if let Ok(at) = at_rx.recv() {
                    latencies_us.push(now.duration_since(at).as_secs_f64() * 1e6);
                }
                pauses += 1;
                std::thread::sleep(GAP);
                let _ = go_tx.send(());
                outcome = paused.resume(&options);
            }
        }
    };
    // Ordering: Relaxed; as above.
    running.store(false, Ordering::Relaxed);
    drop(go_tx);
    pauser.join().ok();
    if let Some(r) = resizer {
        r.join().ok();
    }
    let stats = rt.last_stats().cloned().unwrap_or_default();
    result.map(|out| Driven {
        out,
        pauses,
        latencies_us,
        stats,
    })
}

/// Prints one case's line; whether it was right.
fn report<O: PartialEq + std::fmt::Debug>(
    what: &str,
    r: gtap::Result<Driven<O>>,
    want: &O,
) -> (bool, Vec<f64>) {
    match r {
        Ok(d) => {
            let ok = d.out == *want
                && d.stats.pauses as usize == d.pauses
                && (d.pauses == 0 || d.stats.rejoins > 0);
            println!(
                "{} {what}: {} pauses, {} resizes, {} rejoins, kernel {:.2} ms over all segments, {:.2} ms wall{}",
                if ok { "ok  " } else { "FAIL" },
                d.pauses,
                d.stats.resizes,
                d.stats.rejoins,
                d.stats.kernel_ms().unwrap_or(f64::NAN),
                d.stats.elapsed.as_secs_f64() * 1e3,
                if d.out == *want {
                    String::new()
                } else {
                    format!(": got {:?}, expected {want:?}", d.out)
                }
            );
            (ok, d.latencies_us)
        }
        Err(e) => {
            println!("FAIL {what}: {e}");
            (false, Vec::new())
        }
    }
}

fn main() -> ExitCode {
    let opts = Opts::from_env(USAGE);
    let scale: u32 = opts.arg(0, "SCALE", 1, USAGE);
    if scale > 4 {
        eprintln!("error: SCALE must be in 0..=4");
        return ExitCode::from(2);
    }
    let mut rt = match opts.runtime() {
        Ok(rt) if rt.backend_name() == "gpu" => rt,
        Ok(_) => {
            eprintln!("pause: needs a GPU (the CPU executor never pauses)");
            return ExitCode::FAILURE;
        }
        Err(e) => return host::fail("pause", &e),
    };
    let small = scale == 0;
    let times = if small { 4 } else { 1000 };
    let sms_all = match sm_count() {
        Ok(n) => n,
        Err(e) => {
            eprintln!("pause: {e}");
            return ExitCode::FAILURE;
        }
    };
    let mut ok = true;
    let mut latencies = Vec::new();
    let mut case = |r: (bool, Vec<f64>)| {
        ok &= r.0;
        latencies.extend(r.1);
    };

    // fib, paused once at several points, then repeatedly.
    let n = if small { 22 } else { 36 + scale };
    let want = reference::fib_seq(n);
    for ms in [0, 1, 5, 20] {
        let what = format!("fib({n}) paused once at {ms} ms");
        let r = drive::<Fib, _>(&mut rt, fib, (n,), &Plan::pause_at(&[ms]));
        case(report(&what, r, &want));
    }
    for _ in 0..opts.reps.max(1) {
        let what = format!("fib({n}) paused every 3 ms");
        let r = drive::<Fib, _>(&mut rt, fib, (n,), &Plan::pause_every(3, times));
        case(report(&what, r, &want));
    }

    // nqueens (a result in a buffer), UTS (a deep unbalanced tree), BFS (no joins).
    let q = if small { 9 } else { 13 + scale };
    let want_q = reference::nqueens_seq(q);
    let count = match rt.upload(&[0u64]) {
        Ok(c) => c,
        Err(e) => return host::fail("pause", &e),
    };
    let what = format!("nqueens({q}) paused every 5 ms");
    let r = drive::<NQueens, _>(
        &mut rt,
        nqueens,
        (q, 0, 0, 0, 0, 7, 0, count.slice()),
        &Plan::pause_every(5, times),
    )
    .and_then(|d| {
        Ok(Driven {
            out: rt.download(&count)?[0],
            pauses: d.pauses,
            latencies_us: d.latencies_us,
            stats: d.stats,
        })
    });
    case(report(&what, r, &want_q));

    let tree = if scale == 0 {
        reference_deep::UTS_SMALL
    } else {
        reference_deep::UTS_MEDIUM
    };
    let p = tree.params(0);
    let what = format!("UTS {} ({} nodes) paused every 4 ms", tree.name, tree.nodes);
    let r = drive::<Uts, _>(
        &mut rt,
        uts,
        (p, tree.seed, 0, 0, 1),
        &Plan::pause_every(4, times),
    );
    case(report(&what, r, &tree.nodes));

    let rmat_scale = if small { 12 } else { 16 + 2 * scale };
    let g = match rmat(&Rmat::graph500(rmat_scale, 1)) {
        Ok(g) => g,
        Err(e) => {
            eprintln!("pause: {e}");
            return ExitCode::FAILURE;
        }
    };
    let want_d = bfs_seq(&g, 0);
    let bfs = |rt: &mut Runtime, plan: &Plan| -> gtap::Result<Driven<Vec<u32>>> {
        let mut init = vec![UNREACHED; g.n_rows as usize];
        init[0] = 0;
        let offsets = rt.replicate(&g.offsets)?;
        let targets = rt.replicate(&g.targets)?;
        let depths = rt.upload(&init)?;
        let args = (0, 0, offsets.table(), targets.table(), depths.slice());
        let d = drive::<Bfs, _>(rt, bfs_visit, args, plan)?;
        Ok(Driven {
            out: rt.download(&depths)?,
            pauses: d.pauses,
            latencies_us: d.latencies_us,
            stats: d.stats,
        })
    };
    let what = format!("BFS R-MAT {rmat_scale} (no joins) paused every 2 ms");
    let r = bfs(&mut rt, &Plan::pause_every(2, times));
    case(report(&what, r, &want_d));

    // Elastic workers: the SM limit cycles while the run goes on; then with pauses too.
    let cycle = vec![
        Some(sms_all / 4),
        Some(3 * sms_all / 4),
        Some(1),
        None,
        Some(sms_all / 2),
    ];
    let n2 = if small { 24 } else { 38 + scale };
    let want2 = reference::fib_seq(n2);
    for _ in 0..opts.reps.max(1) {
        let what = format!("fib({n2}) with the SM limit changing every 5 ms");
        let plan = Plan::default().with_sms(cycle.clone(), 5);
        let r = drive::<Fib, _>(&mut rt, fib, (n2,), &plan);
        case(report(&what, r, &want2));
    }
    let what = format!("UTS {} with the SM limit changing every 3 ms", tree.name);
    let plan = Plan::default().with_sms(cycle.clone(), 3);
    let r = drive::<Uts, _>(&mut rt, uts, (p, tree.seed, 0, 0, 1), &plan);
    case(report(&what, r, &tree.nodes));
    let what = format!("BFS R-MAT {rmat_scale} with the SM limit changing every 2 ms");
    let r = bfs(&mut rt, &Plan::default().with_sms(cycle.clone(), 2));
    case(report(&what, r, &want_d));
    let what = format!("fib({n2}) with the SM limit changing every 5 ms and pauses every 7 ms");
    let plan = Plan::pause_every(7, times).with_sms(cycle, 5);
    let r = drive::<Fib, _>(&mut rt, fib, (n2,), &plan);
    case(report(&what, r, &want2));

    // A run after all of that, plain.
    match rt.run::<Fib, _>(fib, (n,)) {
        Ok(v) if v == want => println!("ok   fib({n}) plain after the steered runs"),
        other => {
            println!("FAIL fib({n}) plain after the steered runs: {other:?}");
            ok = false;
        }
    }

    // What cannot pause says so.
    let data = match rt.replicate(&[1.0f64; 64]) {
        Ok(d) => d,
        Err(e) => return host::fail("pause", &e),
    };
    let options = RunOptions {
        pause: Some(PauseToken::new()),
        ..RunOptions::default()
    };
    let r = rt.start::<BinaryTreeBlock, _>(tree_block, (0, 3, 0, 4, 4, data.table()), &options);
    match r {
        Err(Error::Unsupported { what, reason }) => {
            println!("ok   a block-level program refuses a pause: {what}: {reason}");
        }
        other => {
            println!(
                "FAIL a block-level program with a pause token: {:?}",
                other.map(|_| ())
            );
            ok = false;
        }
    }
    match rt.run_with::<Fib, _>(fib, (20,), &options) {
        Err(Error::Unsupported { what, .. }) => {
            println!("ok   run_with refuses a pause token ({what})")
        }
        other => {
            println!("FAIL run_with with a pause token: {other:?}");
            ok = false;
        }
    }

    // What steering costs when nothing is asked (an SM limit that is never set: the host's
    // watch loop and the resize word), against a plain run, in the same process. Both launch
    // the same kernel.
    if !small {
        let steered = RunOptions {
            sms: Some(SmLimit::new()),
            ..RunOptions::default()
        };
        let (mut plain, mut steered_ms) = (Vec::new(), Vec::new());
        for _ in 0..5 {
            for (options, times) in [(None, &mut plain), (Some(&steered), &mut steered_ms)] {
                let r = match options {
                    None => rt.run::<Fib, _>(fib, (n2,)),
                    Some(o) => rt.run_with::<Fib, _>(fib, (n2,), o),
                };
                match r {
                    Ok(v) if v == want2 => {
                        times.extend(rt.last_stats().and_then(RunStats::kernel_ms));
                    }
                    other => {
                        println!("FAIL fib({n2}) for the overhead: {other:?}");
                        ok = false;
                    }
                }
            }
        }
        println!(
            "steered, nothing asked: fib({n2}) {:.2} ms against a plain run's {:.2} ms (kernel medians of 5, same process)",
            host::median(&mut steered_ms),
            host::median(&mut plain)
        );
    }

    if latencies.is_empty() {
        println!("pause latency: no pause was measured");
        ok = false;
    } else {
        let max = latencies.iter().copied().fold(0.0, f64::max);
        let count = latencies.len();
        println!(
            "pause latency (PauseToken::pause -> Outcome::Paused): {:.0} us median, {max:.0} us max over {count} pauses",
            host::median(&mut latencies)
        );
    }
    host::report(
        "pause",
        ok,
        "every paused, resumed and resized run gave the reference answer",
    )
}

/// The SMs of GPU 0.
fn sm_count() -> Result<u32, String> {
    let ctx = cudarc::driver::CudaContext::new(0).map_err(|e| format!("{e:?}"))?;
    let n = ctx
        .attribute(
            cudarc::driver::sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
        )
        .map_err(|e| format!("{e:?}"))?;
    Ok(n.max(1) as u32)
}
