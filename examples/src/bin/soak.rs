//! `soak [RUNS=100000] [lose|keep] [--cpu|--gpu] [--devices ..]`: a long-lived program's life
//! on one runtime (`keep` leaves out part 3, for compute-sanitizer, which reports its fault).
//!
//! 1. **Small runs.** RUNS / 10 (100 to 10,000) runs of fib(10..=14) (177 to 1,219 tasks) back to
//!    back, every answer checked: the median and 90th percentile of a run's wall time and, on
//!    the GPU, the median of each host phase (`RunStats::host`). Then 200 runs each of fib(1)
//!    (one task), fib(4), fib(8), fib(12) and fib(16): the median wall and kernel time against
//!    the tree's size, which separates a run's fixed cost from its tree's critical path.
//! 2. **Soak.** RUNS runs of mixed programs (fib, a sum over an uploaded buffer, a fan of
//!    children), with an error injected every 250th run, in turn: a `Slice` read out of
//!    bounds, a `panic!` with a literal message and one with arguments, an `unwrap` on `None`, more children than `Config::max_children`, a
//!    cancel from another thread, a deadline, and (GPU) a task that outlives the 100 ms
//!    watchdog of a second runtime in the same process. Every answer and every error is
//!    checked (its kind and, for a panic, the task it names and its message), and so is the run
//!    after each error, on the same runtime.
//!
//! 3. **A fault no run can stop** (GPU): a task writes through a wild pointer. The run
//!    returns `DeviceFault`; that runtime and a second one on the same GPU answer
//!    `ContextLost`, and so does creating a third while they live. Once both are dropped, a new
//!    runtime resets the context: it either runs and transfers correctly (a driver that clears
//!    the fault) or answers `ContextLost` (one that keeps it for the process, as CUDA's do after
//!    an illegal address), never another error; which one is printed.
//!
//! Host RSS and GPU memory are printed at the start, the middle and the end of the soak; the
//! check fails if either grew by more than [`GROWTH_BOUND`].

use std::process::ExitCode;
use std::time::{Duration, Instant};

use gtap::{Buffer, CancelReason, CancelToken, Config, Error, Replicated, RunOptions, Runtime};
use gtap_examples::{
    apps::faults::{
        fan, fib_failing, slice_sum, spin, table_sum, wild_write, Fan, FibFailing, SliceSum, Spin,
        TableSum, WildWrite,
    },
    apps::fib::{fib, Fib},
    host::{self, Opts},
    reference,
};

const USAGE: &str = "soak [RUNS=100000] [lose|keep] [--cpu|--gpu] [--devices ..]";

/// The most that host RSS or GPU memory in use may grow over the soak.
const GROWTH_BOUND: u64 = 64 << 20;

/// Runs between two injected errors.
const INJECT_EVERY: u64 = 250;

/// Elements of the buffer the slice sums read.
const DATA_LEN: u32 = 4096;

fn main() -> ExitCode {
    let opts = Opts::from_env(USAGE);
    let runs: u64 = opts.arg(0, "RUNS", 100_000, USAGE);
    let lose = match opts.arg(1, "lose|keep", "lose".to_owned(), USAGE).as_str() {
        "lose" => true,
        "keep" => false,
        other => {
            eprintln!("error: expected `lose` or `keep`, got `{other}`\nusage: {USAGE}");
            return ExitCode::from(2);
        }
    };
    let mut rt = match opts.runtime() {
        Ok(rt) => rt,
        Err(e) => return host::fail("soak", &e),
    };
    let gpu = rt.backend_name() == "gpu";
    let mut ok = small_runs(&mut rt, (runs / 10).clamp(100, 10_000));
    // A second runtime in the process, for the hang (its watchdog is short).
    let mut short = if gpu {
        match opts.runtime_with(Config {
            watchdog: Duration::from_millis(100),
            ..Config::default()
        }) {
            Ok(rt) => Some(rt),
            Err(e) => return host::fail("soak", &e),
        }
    } else {
        None
    };
    match Soak::new(&mut rt) {
        Ok(mut soak) => ok &= soak.run(&mut rt, short.as_mut(), runs),
        Err(e) => return host::fail("soak", &e),
    }
    if gpu && lose {
        drop(short);
        ok &= lost_context(&opts, rt);
    }
    host::report(
        "soak",
        ok,
        "every answer and every injected error as expected, the run after each error right, memory flat",
    )
}

/// Part 1: the fixed cost of a small run.
fn small_runs(rt: &mut Runtime, n: u64) -> bool {
    let mut wall = Vec::with_capacity(n as usize);
    let mut phases: [Vec<f64>; 5] = Default::default();
    let mut wrong = 0;
    for i in 0..n {
        let k = 10 + (i % 5) as u32;
        let t0 = Instant::now();
        let r = rt.run::<Fib, _>(fib, (k,));
        wall.push(t0.elapsed().as_secs_f64() * 1e6);
        if r.as_ref().ok() != Some(&reference::fib_seq(k)) {
            wrong += 1;
            if wrong <= 3 {
                println!("small runs: fib({k}) gave {r:?}");
            }
        }
        if let Some(st) = rt.last_stats() {
            let h = st.host;
            let kernel = st.kernel_time.unwrap_or_default();
            for (v, d) in phases
                .iter_mut()
                .zip([h.setup, h.launch, h.wait, h.readback, kernel])
            {
                v.push(d.as_secs_f64() * 1e6);
            }
        }
    }
    let total: f64 = wall.iter().sum();
    let p90 = percentile(&mut wall, 0.9);
    let median = host::median(&mut wall);
    println!(
        "small runs on {}: {n} runs of fib(10..=14) in {:.2} s: {median:.1} us a run (median), {p90:.1} us (90th percentile); {wrong} wrong",
        rt.backend_name(),
        total / 1e6
    );
    if rt.backend_name() == "gpu" {
        let [setup, launch, wait, readback, kernel] = phases.map(|mut v| host::median(&mut v));
        println!(
            "small runs, host phases (medians): setup {setup:.1} us, launch {launch:.1} us, wait {wait:.1} us (the kernel's events: {kernel:.1} us), readback {readback:.1} us"
        );
    }
    wrong == 0 && by_size(rt)
}

/// Part 1's second half: the cost of a run against its tree's size and depth.
fn by_size(rt: &mut Runtime) -> bool {
    let mut ok = true;
    for k in [1u32, 4, 8, 12, 16] {
        let (mut wall, mut kernel) = (Vec::with_capacity(200), Vec::with_capacity(200));
        for _ in 0..200 {
            let t0 = Instant::now();
            let r = rt.run::<Fib, _>(fib, (k,));
            wall.push(t0.elapsed().as_secs_f64() * 1e6);
            if r.as_ref().ok() != Some(&reference::fib_seq(k)) {
                println!("small runs: fib({k}) gave {r:?}");
                ok = false;
                break;
            }
            if let Some(t) = rt.last_stats().and_then(|s| s.kernel_time) {
                kernel.push(t.as_secs_f64() * 1e6);
            }
        }
        let kernel = if kernel.is_empty() {
            String::new()
        } else {
            format!(", kernel {:.1} us", host::median(&mut kernel))
        };
        println!(
            "small runs by size: fib({k}) ({} tasks, depth {k}): {:.1} us a run (median of 200){kernel}",
            2 * reference::fib_seq(k + 1) - 1,
            host::median(&mut wall)
        );
    }
    ok
}

fn percentile(xs: &mut [f64], q: f64) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[((xs.len() - 1) as f64 * q) as usize]
}

/// The errors injected in turn.
#[derive(Clone, Copy, Debug)]
enum Fault {
    OutOfBounds,
    Panic,
    FormattedPanic,
    UnwrapNone,
    TooManyChildren,
    Cancel,
    Deadline,
    Hang,
}

const FAULTS: [Fault; 8] = [
    Fault::OutOfBounds,
    Fault::Panic,
    Fault::FormattedPanic,
    Fault::UnwrapNone,
    Fault::TooManyChildren,
    Fault::Cancel,
    Fault::Deadline,
    Fault::Hang,
];

/// Part 2's state: the uploaded data (a buffer, and the same values as a table on every GPU)
/// and the fan's counter.
struct Soak {
    data: Buffer<u64>,
    table: Replicated<u64>,
    prefix: Vec<u64>,
    counter: Buffer<u64>,
    rng: u64,
    answers: u64,
    faults: u64,
    failures: u64,
}

impl Soak {
    fn new(rt: &mut Runtime) -> gtap::Result<Self> {
        let values: Vec<u64> = (0..u64::from(DATA_LEN)).map(|i| i * 3 + 1).collect();
        let mut prefix = vec![0];
        for v in &values {
            prefix.push(prefix.last().copied().unwrap_or(0) + v);
        }
        Ok(Self {
            data: rt.upload(&values)?,
            table: rt.replicate(&values)?,
            prefix,
            counter: rt.alloc_zeroed(1)?,
            rng: 0x9e37_79b9_7f4a_7c15,
            answers: 0,
            faults: 0,
            failures: 0,
        })
    }

    fn next(&mut self) -> u64 {
        // xorshift64
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    fn fail(&mut self, what: String) {
        self.failures += 1;
        if self.failures <= 10 {
            println!("soak: {what}");
        }
    }

    fn run(&mut self, rt: &mut Runtime, mut short: Option<&mut Runtime>, runs: u64) -> bool {
        // One of each program and of each fault first, so that the start's memory includes
        // their pools at their high-water marks (a stopped fib(40) grows the CPU executor's
        // arena once).
        for i in 0..3 {
            self.answer(rt, i);
        }
        for fault in FAULTS {
            self.inject(rt, short.as_deref_mut(), fault);
        }
        let start = memory(rt);
        let mut middle = start;
        let t0 = Instant::now();
        let mut fault_turn = 0;
        for i in 0..runs {
            if i % INJECT_EVERY == INJECT_EVERY - 1 {
                let fault = FAULTS[fault_turn % FAULTS.len()];
                fault_turn += 1;
                self.inject(rt, short.as_deref_mut(), fault);
                // The next run on the same runtime must be right.
                self.answer(rt, 0);
            } else {
                let pick = self.next();
                self.answer(rt, pick);
            }
            if i == runs / 2 {
                middle = memory(rt);
            }
        }
        let end = memory(rt);
        println!(
            "soak on {}: {runs} runs in {:.1} s, {} answers checked, {} errors injected, {} failures",
            rt.backend_name(),
            t0.elapsed().as_secs_f64(),
            self.answers,
            self.faults,
            self.failures
        );
        for (name, m) in [("start", start), ("middle", middle), ("end", end)] {
            println!(
                "soak memory at the {name}: host RSS {:.1} MiB, GPU memory in use {}",
                m.0 as f64 / (1 << 20) as f64,
                m.1.map_or("-".into(), |b| format!(
                    "{:.1} MiB",
                    b as f64 / (1 << 20) as f64
                ))
            );
        }
        let rss_growth = end.0.saturating_sub(start.0);
        let gpu_growth = end.1.unwrap_or(0).saturating_sub(start.1.unwrap_or(0));
        let flat = rss_growth <= GROWTH_BOUND && gpu_growth <= GROWTH_BOUND;
        if !flat {
            println!(
                "soak: memory grew by {rss_growth} bytes (host) and {gpu_growth} (GPU), over the bound of {GROWTH_BOUND}"
            );
        }
        self.failures == 0 && flat
    }

    /// One run of a program whose answer is known, checked.
    fn answer(&mut self, rt: &mut Runtime, pick: u64) {
        self.answers += 1;
        match pick % 3 {
            0 => {
                let n = 5 + (pick >> 8) as u32 % 16;
                let r = rt.run::<Fib, _>(fib, (n,));
                if r.as_ref().ok() != Some(&reference::fib_seq(n)) {
                    self.fail(format!("fib({n}) gave {r:?}"));
                }
            }
            1 => {
                let a = (pick >> 8) as u32 % DATA_LEN;
                let b = (pick >> 24) as u32 % DATA_LEN;
                let (lo, hi) = (a.min(b), a.max(b) + 1);
                let want = self.prefix[hi as usize] - self.prefix[lo as usize];
                // Every other sum reads the replicated table.
                let (r, what) = if pick >> 40 & 1 == 0 {
                    let r = rt.run::<SliceSum, _>(slice_sum, (self.data.slice(), lo, hi));
                    (r, "slice_sum")
                } else {
                    let r = rt.run::<TableSum, _>(table_sum, (self.table.table(), lo, hi));
                    (r, "table_sum")
                };
                if r.as_ref().ok() != Some(&want) {
                    self.fail(format!("{what}({lo}, {hi}) gave {r:?}, expected {want}"));
                }
            }
            _ => {
                let width = 1 + (pick >> 8) as u32 % 64;
                let want = u64::from(width) * u64::from(width + 1) / 2;
                let r = rt
                    .upload_into(&mut self.counter, &[0])
                    .and_then(|()| rt.run::<Fan, _>(fan, (width, self.counter.slice())))
                    .and_then(|()| rt.download(&self.counter));
                if r.as_deref().ok() != Some(&[want][..]) {
                    self.fail(format!("fan({width}) counted {r:?}, expected {want}"));
                }
            }
        }
    }

    /// One run that must fail with `fault`'s error.
    fn inject(&mut self, rt: &mut Runtime, short: Option<&mut Runtime>, fault: Fault) {
        self.faults += 1;
        // The CPU executor's panics go through the process's panic hook, which would print
        // each injected one: silenced for the injection.
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let r = self.provoke(rt, short, fault);
        std::panic::set_hook(hook);
        let Some(r) = r else {
            return;
        };
        let expected = match (fault, r.as_ref().map_err(Error::innermost)) {
            // The CPU executor reports the panic's message; the GPU its location (in
            // faults.rs, by which the runtime names the task).
            (Fault::OutOfBounds, Err(Error::TaskPanicked { task, message })) => {
                matches!(*task, "slice_sum" | "table_sum") && said(message, "out of bounds")
            }
            (Fault::Panic, Err(Error::TaskPanicked { task, message })) => {
                *task == "fib_failing" && said(message, "fib_failing reached its failure point")
            }
            (Fault::FormattedPanic, Err(Error::TaskPanicked { task, message })) => {
                *task == "fib_failing" && said(message, "fib_failing reached n = 3")
            }
            (Fault::UnwrapNone, Err(Error::TaskPanicked { task, message })) => {
                *task == "fib_failing" && said(message, "on a `None` value")
            }
            (Fault::TooManyChildren, Err(Error::PoolExhausted { limit, .. })) => {
                *limit == "Config::max_children"
            }
            (Fault::Cancel, Err(Error::Cancelled { reason, .. })) => *reason == CancelReason::Token,
            (Fault::Deadline, Err(Error::Cancelled { reason, .. })) => {
                *reason == CancelReason::Deadline
            }
            (Fault::Hang, Err(Error::Hang { .. })) => true,
            _ => false,
        };
        if !expected {
            self.fail(format!("injected {fault:?}: got {r:?}"));
        }
    }

    /// Runs what must fail with `fault`'s error (`None`: nothing to inject on this backend).
    fn provoke(
        &mut self,
        rt: &mut Runtime,
        short: Option<&mut Runtime>,
        fault: Fault,
    ) -> Option<gtap::Result<u64>> {
        let r = match fault {
            // The buffer and the table in turn.
            Fault::OutOfBounds if self.faults.is_multiple_of(2) => {
                rt.run::<SliceSum, _>(slice_sum, (self.data.slice(), 0, DATA_LEN + 1))
            }
            Fault::OutOfBounds => {
                rt.run::<TableSum, _>(table_sum, (self.table.table(), 0, DATA_LEN + 1))
            }
            Fault::Panic => rt.run::<FibFailing, _>(fib_failing, (12, 3, 1)),
            Fault::UnwrapNone => rt.run::<FibFailing, _>(fib_failing, (12, 3, 2)),
            Fault::FormattedPanic => rt.run::<FibFailing, _>(fib_failing, (12, 3, 3)),
            Fault::TooManyChildren => rt
                .run::<Fan, _>(fan, (rt.config().max_children + 1, self.counter.slice()))
                .map(|()| 0),
            Fault::Cancel => {
                let token = CancelToken::new();
                let canceller = {
                    let token = token.clone();
                    std::thread::spawn(move || {
                        std::thread::sleep(Duration::from_micros(300));
                        token.cancel();
                    })
                };
                let options = RunOptions {
                    cancel: Some(token),
                    ..RunOptions::default()
                };
                let r = rt.run_with::<Fib, _>(fib, (40,), &options);
                canceller.join().ok();
                r
            }
            Fault::Deadline => {
                let options = RunOptions {
                    deadline: Some(Duration::from_millis(1)),
                    ..RunOptions::default()
                };
                rt.run_with::<Fib, _>(fib, (40,), &options)
            }
            Fault::Hang => match short {
                // A task that spins 400 ms under a 100 ms watchdog.
                Some(short) => {
                    let r = short.run::<Spin, _>(spin, (400_000_000,));
                    let next = short.run::<Fib, _>(fib, (15,));
                    if next.as_ref().ok() != Some(&reference::fib_seq(15)) {
                        self.fail(format!("the run after a hang gave {next:?}"));
                    }
                    r
                }
                // The CPU executor has no watchdog: nothing to inject.
                None => return None,
            },
        };
        Some(r)
    }
}

/// Part 3: a fault that loses the GPU's context, and a new runtime after it.
fn lost_context(opts: &Opts, mut rt: Runtime) -> bool {
    let mut ok = true;
    let mut expect = |what: &str, good: bool, got: &dyn std::fmt::Debug| {
        println!(
            "lost context: {what}: {}",
            if good { "ok" } else { "WRONG" }
        );
        if !good {
            println!("  got {got:?}");
        }
        ok &= good;
    };
    let other = opts.runtime();
    let r = rt.run::<WildWrite, _>(wild_write, (16,));
    expect(
        "a wild write -> DeviceFault",
        matches!(
            r.as_ref().map_err(Error::innermost),
            Err(Error::DeviceFault { .. })
        ),
        &r,
    );
    let r = rt.run::<Fib, _>(fib, (10,));
    expect(
        "the same runtime -> ContextLost",
        matches!(
            r.as_ref().map_err(Error::innermost),
            Err(Error::ContextLost)
        ),
        &r,
    );
    if let Ok(mut other) = other {
        let r = other.run::<Fib, _>(fib, (10,));
        expect(
            "another runtime on the GPU -> ContextLost",
            matches!(
                r.as_ref().map_err(Error::innermost),
                Err(Error::ContextLost)
            ),
            &r,
        );
        let third = opts.runtime();
        expect(
            "a new runtime while they live -> ContextLost",
            matches!(third, Err(Error::ContextLost)),
            &third.map(|_| ()),
        );
    }
    drop(rt);
    let fresh = opts.runtime().and_then(|mut rt| {
        let v = rt.run::<Fib, _>(fib, (20,))?;
        let data: Vec<u64> = (0..1000).collect();
        let buf = rt.upload(&data)?;
        let sum = rt.run::<SliceSum, _>(slice_sum, (buf.slice(), 0, 1000))?;
        Ok((v, sum))
    });
    let cleared = fresh.as_ref().ok() == Some(&(reference::fib_seq(20), 499_500));
    let kept = matches!(
        fresh.as_ref().map_err(Error::innermost),
        Err(Error::ContextLost)
    );
    expect(
        if kept {
            "after dropping both, a new runtime -> ContextLost (the driver keeps the fault for the process)"
        } else {
            "after dropping both, a new runtime runs fib(20) and a slice sum (the driver cleared the fault)"
        },
        cleared || kept,
        &fresh,
    );
    ok
}

/// Whether a panic's message is `text` (the CPU executor's) or the GPU's location in
/// `faults.rs` (the GPU records where a task panicked, not what it said).
fn said(message: &str, text: &str) -> bool {
    message.contains(text) || (message.contains("faults.rs:") && message.contains("location only"))
}

/// Host RSS in bytes, and the GPU memory in use (the driver's count) on the GPU.
fn memory(rt: &Runtime) -> (u64, Option<u64>) {
    let rss = std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<u64>().ok())
        .map_or(0, |pages| pages * 4096);
    let gpu = rt
        .device_memory()
        .ok()
        .flatten()
        .map(|(free, total)| (total - free) as u64);
    (rss, gpu)
}
