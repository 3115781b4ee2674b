//! The CPU executor against its targets (`only=cpu_scaling`, with `--cpu`): fib(32) a task per
//! call, nqueens(13) detached to depth 5, UTS binomial 1e5 and the chain of 10^6 dependent
//! tasks, each on 1 worker, 2 workers and every core, beside rayon on as many threads, the
//! sequential code and the executor's earlier design (every child a record,
//! `Config::cpu_inline_children = false`), all in one run. Every answer is checked. The table at the end states each
//! target of the CPU executor and whether this run met it.

use gtap::{Backend, Config, Runtime};
use gtap_examples::{
    apps::{
        chain::{chain, Chain},
        fib::{fib, Fib},
        nqueens::{nqueens, NQueens},
        uts::{uts, Uts},
    },
    host, reference,
    reference_deep::{chain_rayon, chain_seq, deep_pool_of, uts_rayon, uts_seq, UTS_SMALL},
};

use super::{baseline, err, measure, print_table, Bench, Timing};

/// One workload's contenders at one worker count: gtap and rayon.
struct AtCount {
    workers: usize,
    gtap: Timing,
    records: Timing,
    rayon: Timing,
}

/// The worker counts of the rows: 1, 2 and every core (without repeats).
fn counts() -> Vec<usize> {
    let all = std::thread::available_parallelism().map_or(1, usize::from);
    let mut c = vec![1, 2.min(all), all];
    c.dedup();
    c
}

/// A CPU runtime with `workers` workers; `inline`: children run as calls while nobody is idle.
fn cpu_runtime(workers: usize, inline: bool) -> Result<Runtime, String> {
    let config = Config {
        backend: Backend::Cpu,
        workers,
        cpu_inline_children: inline,
        ..Config::default()
    };
    Runtime::with_ptx(config, host::PTX).map_err(err)
}

/// Runs `gtap` on a CPU runtime and `rayon` in a pool of as many threads (stacks for `depth`
/// levels), at each of [`counts`]; `check` is the expected answer.
fn scaled(
    reps: usize,
    depth: u64,
    rayon_name: &str,
    check: u64,
    gtap: impl Fn(&mut Runtime) -> Result<u64, String>,
    rayon: impl Fn() -> u64 + Sync,
) -> Result<Vec<AtCount>, String> {
    let mut out = Vec::new();
    for workers in counts() {
        let timed = |name: &str, inline: bool| {
            let mut rt = cpu_runtime(workers, inline)?;
            measure(name, reps, || {
                let got = gtap(&mut rt)?;
                (got == check)
                    .then_some(None)
                    .ok_or(format!("gtap: {got}, expected {check}"))
            })
        };
        let g = timed("gtap (cpu)", true)?;
        let records = timed("gtap (cpu), every child a record", false)?;
        let pool = deep_pool_of(depth, workers);
        let r = baseline(rayon_name, reps, || pool.install(&rayon) == check)?;
        out.push(AtCount {
            workers,
            gtap: g,
            records,
            rayon: r,
        });
    }
    Ok(out)
}

/// Prints one workload's tables, one per worker count: gtap and rayon on that many, and `seq`.
fn table(title: &str, rows: &[AtCount], seq: &Timing) {
    for r in rows {
        let w = r.workers;
        print_table(
            &format!("{title}: gtap on {w} worker(s), rayon on {w} thread(s)"),
            &[
                r.gtap.clone(),
                r.records.clone(),
                r.rayon.clone(),
                seq.clone(),
            ],
        );
    }
}

/// A target line: what it asks, what this run measured, whether that meets it.
fn target(what: &str, measured: String, met: bool) {
    println!(
        "  {what:<58} {measured:<34} {}",
        if met { "met" } else { "not met" }
    );
}

impl Bench {
    /// The CPU executor at 1, 2 and every worker, beside rayon and sequential code, and its
    /// targets.
    pub(super) fn cpu_scaling(&mut self) -> Result<(), String> {
        if self.gpu {
            println!("\ncpu_scaling: a CPU-executor row; run `bench --cpu only=cpu_scaling`");
            return Ok(());
        }
        let reps = self.reps;

        let n = 32;
        let want = reference::fib_seq(n);
        let fib_rows = scaled(
            reps,
            64,
            "rayon::join at every call",
            want,
            |rt| rt.run::<Fib, _>(fib, (n,)).map_err(err),
            || reference::fib_rayon(n),
        )?;
        let fib_seq = baseline("sequential", reps, || reference::fib_seq(n) == want)?;
        table(&format!("fib({n}), a task per call"), &fib_rows, &fib_seq);

        let (q, cutoff) = (13, 5);
        let want = reference::nqueens_seq(q);
        let nq_rows = scaled(
            reps,
            64,
            &format!("rayon::scope to depth {cutoff}"),
            want,
            |rt| {
                let count = rt.upload(&[0u64]).map_err(err)?;
                rt.run::<NQueens, _>(nqueens, (q, 0, 0, 0, 0, cutoff, 0, count.slice()))
                    .map_err(err)?;
                Ok(rt.download(&count).map_err(err)?[0])
            },
            || reference::nqueens_rayon(q, cutoff),
        )?;
        let nq_seq = baseline("sequential", reps, || reference::nqueens_seq(q) == want)?;
        table(
            &format!("nqueens({q}), detached tasks to depth {cutoff}"),
            &nq_rows,
            &nq_seq,
        );

        let t = UTS_SMALL;
        let p = t.params(0);
        let uts_rows = scaled(
            reps,
            u64::from(t.max_depth),
            "rayon::join where the tasks fork",
            t.nodes,
            |rt| rt.run::<Uts, _>(uts, (p, t.seed, 0, 0, 1)).map_err(err),
            || uts_rayon(&p, t.seed),
        )?;
        let uts_s = baseline("sequential, explicit stack", reps, || {
            uts_seq(&p, t.seed).nodes == t.nodes
        })?;
        table(
            &format!("UTS binomial {}: {} nodes", t.name, t.nodes),
            &uts_rows,
            &uts_s,
        );

        let (steps, x) = (1_000_000u32, 1);
        let want = chain_seq(steps, x);
        let chain_rows = scaled(
            reps,
            u64::from(steps),
            "rayon::join per level",
            want,
            |rt| rt.run::<Chain, _>(chain, (steps, x)).map_err(err),
            || chain_rayon(steps, x),
        )?;
        let chain_s = baseline("sequential loops", reps, || chain_seq(steps, x) == want)?;
        table(
            &format!("chain of {steps} dependent tasks"),
            &chain_rows,
            &chain_s,
        );

        let one = |rows: &[AtCount]| rows.first().map_or(f64::NAN, |r| r.gtap.median);
        let all = |rows: &[AtCount]| {
            rows.last()
                .map(|r| (r.workers, r.gtap.median, r.rayon.median))
        };
        println!("\nCPU executor targets (this run)");
        let f1 = one(&fib_rows) / fib_seq.median;
        target(
            "fib(32), 1 worker: at most 2x sequential",
            format!("{f1:.1}x sequential"),
            f1 <= 2.0,
        );
        for (name, rows, bar) in [
            ("fib(32)", &fib_rows, 1.5),
            ("nqueens(13)", &nq_rows, 1.2),
            ("UTS 1e5", &uts_rows, 1.2),
        ] {
            if let Some((w, g, r)) = all(rows) {
                let speed = r / g;
                target(
                    &format!("{name}, {w} workers: at least {bar}x rayon's speed"),
                    format!("{speed:.2}x rayon's speed"),
                    speed >= bar,
                );
            }
        }
        let ns = one(&chain_rows) * 1e6 / f64::from(steps);
        target(
            "chain of 10^6, 1 worker: at most 20 ns a step",
            format!("{ns:.1} ns a step"),
            ns <= 20.0,
        );
        Ok(())
    }
}
