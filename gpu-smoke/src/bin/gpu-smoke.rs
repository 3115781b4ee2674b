//! Runs the hand-expanded programs of `gpu_smoke` on the GPU, checks every result against a CPU
//! reference, exercises the failure modes, times fib(40) and nqueens(16), and prints a table.
//!
//! `gpu-smoke [quick]`: `quick` runs only the small correctness checks (for compute-sanitizer).

use std::process::ExitCode;
use std::time::{Duration, Instant};

use gpu_smoke::{
    badq, bfib, bfibs, fib, leaves, mixed_root, mixed_root_ref, mixroot, nqueens, oob, stall,
    BadQueue, BlockFib, BlockFibs, BlockMixed, Fib, Mixed, NQueens, Oob, Stall,
};
use gtap::{Backend, Config, Devices, Error, Runtime, Scheduler, Transfer, TransferPath};

const PTX: &str = include_str!(env!("GTAP_PTX"));

fn fib_ref(n: u32) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        (a, b) = (b, a + b);
    }
    a
}

struct Table {
    rows: Vec<(String, bool, String)>,
}

impl Table {
    fn row(&mut self, name: &str, ok: bool, detail: String) {
        println!(
            "{:<44} {:<5} {detail}",
            name,
            if ok { "ok" } else { "FAIL" }
        );
        self.rows.push((name.to_owned(), ok, detail));
    }
}

fn gpu(config: Config) -> gtap::Result<Runtime> {
    Runtime::with_ptx(
        Config {
            backend: Backend::Gpu,
            ..config
        },
        PTX,
    )
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() -> ExitCode {
    let quick = std::env::args().any(|a| a == "quick");
    let mut t = Table { rows: Vec::new() };
    println!(
        "gtap gpu-smoke: PTX {} bytes; gpu available: {}",
        PTX.len(),
        gtap::gpu_available()
    );
    let mut rt = match gpu(Config::default()) {
        Ok(rt) => rt,
        Err(e) => {
            println!("cannot create the GPU runtime: {e}");
            return ExitCode::FAILURE;
        }
    };

    // ---- correctness ----
    transfers(&mut t);
    for n in [0u32, 1, 2, 10, 20, 25] {
        match rt.run::<Fib, _>(fib, (n,)) {
            Ok(v) => {
                let s = rt.last_stats().cloned().unwrap_or_default();
                t.row(
                    &format!("fib({n})"),
                    v == fib_ref(n),
                    format!(
                        "{v} (want {}), tasks {}, steals {}, {:?}",
                        fib_ref(n),
                        s.tasks,
                        s.steals,
                        s.kernel_time.unwrap_or_default()
                    ),
                );
            }
            Err(e) => t.row(&format!("fib({n})"), false, e.to_string()),
        }
    }
    for (n, cutoff) in [(8u32, 3u32), (10, 4), (12, 5)] {
        let want = gpu_smoke::nqueens_seq(n, 0, 0, 0, 0);
        let r = rt.alloc_zeroed::<u64>(1).and_then(|buf| {
            rt.run::<NQueens, _>(nqueens, (n, 0, 0, 0, 0, cutoff, buf.slice()))?;
            rt.download(&buf)
        });
        match r {
            Ok(v) => t.row(
                &format!("nqueens({n}) cutoff {cutoff}"),
                v[0] == want,
                format!("{} (want {want})", v[0]),
            ),
            Err(e) => t.row(
                &format!("nqueens({n}) cutoff {cutoff}"),
                false,
                e.to_string(),
            ),
        }
    }
    for (n, depth) in [(15u32, 5u32), (20, 8)] {
        let r = rt.alloc_zeroed::<u64>(1).and_then(|buf| {
            let a = rt.run::<Mixed, _>(mixroot, (n, depth, buf.slice()))?;
            Ok((a, rt.download(&buf)?[0]))
        });
        let want = 3u64.pow(depth);
        match r {
            Ok((a, c)) => t.row(
                &format!("mixed fib({n}) + detached 3^{depth}"),
                a == fib_ref(n) && c == want,
                format!("{a}, {c} (want {}, {want})", fib_ref(n)),
            ),
            Err(e) => t.row(
                &format!("mixed fib({n}) + detached 3^{depth}"),
                false,
                e.to_string(),
            ),
        }
    }
    let _ = leaves;

    // ---- block-level workers: block-level fib, and a thread-level root joining block-level
    // children that spawn thread-level grandchildren per thread (mixed granularity) ----
    for threads in [32u32, 128, 256] {
        let r = gpu(Config {
            block_threads: threads,
            ..Config::default()
        })
        .and_then(|mut b| {
            let f = b.run::<BlockFib, _>(bfib, (18,))?;
            let workers = b.last_stats().map_or(0, |s| s.workers);
            let m = b.run::<BlockMixed, _>(mixed_root, (12, 1000))?;
            Ok((f, m, workers))
        });
        let want_m = mixed_root_ref(12, 1000, u64::from(threads));
        match r {
            Ok((f, m, workers)) => t.row(
                &format!("block fib(18), mixed; {threads} threads"),
                f == fib_ref(18) && m == want_m,
                format!(
                    "{f} (want {}), {m} (want {want_m}); {workers} block workers",
                    fib_ref(18)
                ),
            ),
            Err(e) => t.row(
                &format!("block fib(18), mixed; {threads} threads"),
                false,
                e.to_string(),
            ),
        }
    }
    // A tiny pool on block-level workers under the shared deque (its per-block records). The
    // work-first block-level workers allocate from the thread-level pools (`pool.rs`), whose
    // tiny-memory check is below.
    let block_tiny = [(
        "block, shared deque: tiny pool -> PoolExhausted",
        "Config::tasks_per_block",
        Config {
            scheduler: Scheduler::SharedDeque,
            tasks_per_block: Some(4),
            ..Config::default()
        },
    )];
    for (label, knob, config) in block_tiny {
        match gpu(config).map(|mut small| {
            let r = small.run::<BlockFib, _>(bfib, (16,));
            let after = small.run::<BlockFib, _>(bfib, (3,));
            (r, after)
        }) {
            Ok((r, after)) => {
                let ok = matches!(&r, Err(Error::PoolExhausted { limit, .. }) if *limit == knob);
                t.row(label, ok, format!("{r:?}"));
                t.row(
                    "  same runtime, next run",
                    matches!(after, Ok(2)),
                    format!("{after:?}"),
                );
            }
            Err(e) => t.row(label, false, e.to_string()),
        }
    }

    // ---- the same programs under each thread-level scheduler: the same answers ----
    for (label, scheduler) in [
        ("gq", Scheduler::GlobalQueue),
        ("shared deque", Scheduler::SharedDeque),
        ("work first, 2 warps", Scheduler::WorkFirst),
    ] {
        let grid = (scheduler == Scheduler::WorkFirst).then_some(2);
        let r = gpu(Config {
            scheduler,
            grid,
            ..Config::default()
        })
        .and_then(|mut g| {
            let mut fibs = Vec::new();
            for n in [0u32, 1, 10, 25] {
                fibs.push((n, g.run::<Fib, _>(fib, (n,))?));
            }
            let buf = g.alloc_zeroed::<u64>(1)?;
            g.run::<NQueens, _>(nqueens, (10, 0, 0, 0, 0, 4, buf.slice()))?;
            let q = g.download(&buf)?[0];
            let buf = g.alloc_zeroed::<u64>(1)?;
            let a = g.run::<Mixed, _>(mixroot, (15, 5, buf.slice()))?;
            let c = g.download(&buf)?[0];
            Ok((fibs, q, a, c))
        });
        match r {
            Ok((fibs, q, a, c)) => {
                let want_q = gpu_smoke::nqueens_seq(10, 0, 0, 0, 0);
                t.row(
                    &format!("{label}: fib 0/1/10/25, nqueens(10), mixed"),
                    fibs.iter().all(|&(n, v)| v == fib_ref(n))
                        && q == want_q
                        && a == fib_ref(15)
                        && c == 3u64.pow(5),
                    format!(
                        "{fibs:?}, {q} (want {want_q}), {a}, {c} (want {}, {})",
                        fib_ref(15),
                        3u64.pow(5)
                    ),
                );
            }
            Err(e) => t.row(
                &format!("{label}: fib 0/1/10/25, nqueens(10), mixed"),
                false,
                e.to_string(),
            ),
        }
    }
    for threads in [32u32, 128] {
        let r = gpu(Config {
            scheduler: Scheduler::GlobalQueue,
            block_threads: threads,
            ..Config::default()
        })
        .and_then(|mut b| {
            let f = b.run::<BlockFib, _>(bfib, (18,))?;
            let m = b.run::<BlockMixed, _>(mixed_root, (12, 1000))?;
            Ok((f, m))
        });
        let want_m = mixed_root_ref(12, 1000, u64::from(threads));
        let name = format!("gq: block fib(18), mixed; {threads} threads");
        match r {
            Ok((f, m)) => t.row(
                &name,
                f == fib_ref(18) && m == want_m,
                format!("{f} (want {}), {m} (want {want_m})", fib_ref(18)),
            ),
            Err(e) => t.row(&name, false, e.to_string()),
        }
    }

    // ---- the profiler on block-level workers: every spawn is in a record ----
    let r = gpu(Config {
        profile_records: 4096,
        ..Config::default()
    })
    .and_then(|mut b| {
        let m = b.run::<BlockMixed, _>(mixed_root, (12, 1000))?;
        let stats = b.last_stats().cloned().unwrap_or_default();
        Ok((m, stats))
    });
    match r {
        Ok((m, stats)) => {
            let want_m = mixed_root_ref(12, 1000, 128);
            let detail = match &stats.profile {
                Some(p) => {
                    let s = p.summary();
                    let ok = m == want_m
                        && p.block_level
                        && p.warps.len() == stats.workers
                        && s.dropped == 0
                        && s.batches > 0
                        && s.spawns + 1 == stats.tasks;
                    (
                        ok,
                        format!(
                            "{m} (want {want_m}); {} block traces, {} batches, spawns {} + root = tasks {}, joins {}, dropped {}",
                            p.warps.len(),
                            s.batches,
                            s.spawns,
                            stats.tasks,
                            s.joins,
                            s.dropped
                        ),
                    )
                }
                None => (false, "no profile".to_string()),
            };
            t.row("profiler, block-level mixed", detail.0, detail.1);
        }
        Err(e) => t.row("profiler, block-level mixed", false, e.to_string()),
    }

    // ---- failure modes ----
    // A pool too small for fib(25) under each scheduler, then a run on the same runtime.
    let tiny = [
        (
            "shared deque: tiny pool -> PoolExhausted",
            "Config::tasks_per_warp",
            Config {
                tasks_per_warp: 4,
                scheduler: Scheduler::SharedDeque,
                ..Config::default()
            },
        ),
        (
            "work first: tiny task memory -> PoolExhausted",
            "Config::gpu_pool_bytes",
            Config {
                grid: Some(1),
                gpu_pool_bytes: Some(24 << 10),
                ..Config::default()
            },
        ),
    ];
    for (label, knob, config) in tiny {
        match gpu(config).map(|mut small| {
            let r = small.run::<Fib, _>(fib, (25,));
            let after = small.run::<Fib, _>(fib, (3,));
            (r, after)
        }) {
            Ok((r, after)) => {
                let ok = matches!(&r, Err(Error::PoolExhausted { limit, .. }) if *limit == knob);
                t.row(label, ok, format!("{r:?}"));
                t.row(
                    "  same runtime, next run",
                    matches!(after, Ok(2)),
                    format!("{after:?}"),
                );
            }
            Err(e) => t.row(label, false, e.to_string()),
        }
    }
    overflow_queues(&mut t);
    several_gpus(&mut t);
    let r = rt.run::<BadQueue, _>(badq, (3,));
    t.row(
        "bad queue -> InvalidQueue",
        matches!(
            r,
            Err(Error::InvalidQueue {
                queue: 9,
                queues: 1,
                ..
            })
        ),
        format!("{r:?}"),
    );
    let r = rt.run::<Fib, _>(fib, (21,));
    t.row(
        "  next run after an error",
        matches!(r, Ok(10946)),
        format!("{r:?}"),
    );
    let r = gpu(Config {
        grid: Some(1_000_000),
        ..Config::default()
    })
    .and_then(|mut big| big.run::<Fib, _>(fib, (5,)));
    t.row(
        "grid too large -> InvalidConfig",
        matches!(r, Err(Error::InvalidConfig { field: "grid", .. })),
        format!("{r:?}"),
    );

    // ---- the watchdog: a task stalls 3 s, the watchdog fires after 1 s without progress ----
    let r = gpu(Config {
        watchdog: Duration::from_secs(1),
        ..Config::default()
    })
    .map(|mut w| {
        let t0 = Instant::now();
        let hang = w.run::<Stall, _>(stall, (3_000_000_000,));
        let waited = t0.elapsed();
        let next = w.run::<Fib, _>(fib, (12,));
        (hang, waited, next)
    });
    t.row(
        "stalled task -> Hang",
        matches!(&r, Ok((Err(Error::Hang { .. }), _, _))),
        format!("{:?}", r.as_ref().map(|x| (&x.0, x.1))),
    );
    t.row(
        "  next run after the abort",
        matches!(&r, Ok((_, _, Ok(144)))),
        format!("{:?}", r.as_ref().map(|x| &x.2)),
    );

    // ---- performance ----
    if !quick {
        let reps = 7;
        for block in [32u32, 64, 128, 256] {
            let mut rtb = match gpu(Config {
                block,
                tasks_per_warp: 8192,
                ..Config::default()
            }) {
                Ok(r) => r,
                Err(e) => {
                    t.row(&format!("fib(40) block {block}"), false, e.to_string());
                    continue;
                }
            };
            let mut kern = Vec::new();
            let mut wall = Vec::new();
            let mut ok = true;
            let mut detail = String::new();
            for _ in 0..reps {
                match rtb.run::<Fib, _>(fib, (40,)) {
                    Ok(v) => {
                        ok &= v == 102_334_155;
                        let s = rtb.last_stats().cloned().unwrap_or_default();
                        kern.push(s.kernel_time.unwrap_or_default().as_secs_f64() * 1e3);
                        wall.push(s.elapsed.as_secs_f64() * 1e3);
                        detail = format!(
                            "warps {}, tasks {}, steps {}, steals {}",
                            s.workers, s.tasks, s.steps, s.steals
                        );
                    }
                    Err(e) => {
                        ok = false;
                        detail = e.to_string();
                        break;
                    }
                }
            }
            if kern.is_empty() {
                t.row(&format!("fib(40) block {block}"), false, detail);
            } else {
                t.row(
                    &format!("fib(40) block {block}"),
                    ok,
                    format!(
                        "kernel median {:.2} ms (min {:.2}), wall median {:.2} ms; {detail}",
                        median(kern.clone()),
                        kern.iter().copied().fold(f64::MAX, f64::min),
                        median(wall)
                    ),
                );
            }
        }
        for block in [32u32, 128] {
            let mut rtb = match gpu(Config {
                block,
                tasks_per_warp: 16384,
                ..Config::default()
            }) {
                Ok(r) => r,
                Err(e) => {
                    t.row(
                        &format!("nqueens(16) cutoff 7 block {block}"),
                        false,
                        e.to_string(),
                    );
                    continue;
                }
            };
            let mut kern = Vec::new();
            let mut wall = Vec::new();
            let mut ok = true;
            let mut detail = String::new();
            for _ in 0..reps {
                let r = rtb.alloc_zeroed::<u64>(1).and_then(|buf| {
                    rtb.run::<NQueens, _>(nqueens, (16, 0, 0, 0, 0, 7, buf.slice()))?;
                    rtb.download(&buf)
                });
                match r {
                    Ok(v) => {
                        ok &= v[0] == 14_772_512;
                        let s = rtb.last_stats().cloned().unwrap_or_default();
                        kern.push(s.kernel_time.unwrap_or_default().as_secs_f64() * 1e3);
                        wall.push(s.elapsed.as_secs_f64() * 1e3);
                        detail = format!(
                            "count {}, warps {}, tasks {}, steals {}",
                            v[0], s.workers, s.tasks, s.steals
                        );
                    }
                    Err(e) => {
                        ok = false;
                        detail = e.to_string();
                        break;
                    }
                }
            }
            if kern.is_empty() {
                t.row(
                    &format!("nqueens(16) cutoff 7 block {block}"),
                    false,
                    detail,
                );
            } else {
                t.row(
                    &format!("nqueens(16) cutoff 7 block {block}"),
                    ok,
                    format!(
                        "kernel median {:.2} ms, wall median {:.2} ms; {detail}",
                        median(kern),
                        median(wall)
                    ),
                );
            }
        }
        let t0 = Instant::now();
        let v = fib_rec(40);
        t.row(
            "cpu: sequential recursive fib(40)",
            v == 102_334_155,
            format!("{:.1} ms", t0.elapsed().as_secs_f64() * 1e3),
        );
        let t0 = Instant::now();
        let v = gpu_smoke::nqueens_seq(16, 0, 0, 0, 0);
        t.row(
            "cpu: sequential nqueens(16)",
            v == 14_772_512,
            format!("{:.1} ms", t0.elapsed().as_secs_f64() * 1e3),
        );
    }

    // ---- a panicking task: the run stops, the runtime goes on ----
    if std::env::args().any(|a| a == "nopanic") {
        let failed = t.rows.iter().filter(|r| !r.1).count();
        println!("\n{} checks, {failed} failed", t.rows.len());
        return if failed == 0 {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        };
    }
    let r = rt
        .alloc_zeroed::<u64>(4)
        .and_then(|buf| rt.run::<Oob, _>(oob, (buf.slice(),)));
    t.row(
        "panic -> TaskPanicked",
        matches!(&r, Err(Error::TaskPanicked { message, .. }) if message.contains("lib.rs:")),
        format!("{r:?}"),
    );
    let r = rt.run::<Fib, _>(fib, (20,));
    t.row(
        "  next run on the same runtime -> right",
        r.as_ref().ok() == Some(&fib_ref(20)),
        format!("{r:?}"),
    );

    let failed = t.rows.iter().filter(|r| !r.1).count();
    println!("\n{} checks, {failed} failed", t.rows.len());
    if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// Round trips through every transfer path (staged on one lane and on four lanes of small
/// chunks, registered, direct): `upload`, `upload_into` that shrinks and that grows,
/// `download` and `download_into`, each compared element for element.
/// Work first: deques far too small for the programs' private parts. Before the overflow
/// queues these runs stopped with `QueueOverflow`; now the owners spill their oldest private
/// tasks to the overflow queues and every answer must be exact. Several programs run on one
/// runtime, so a run also starts from what the last one left in the queues.
fn overflow_queues(t: &mut Table) {
    // 2 warps: deep private parts; the default grid: spilled tasks taken by idle warps.
    for grid in [Some(2), None] {
        let label = match grid {
            Some(g) => format!("{g} warps"),
            None => "all warps".to_owned(),
        };
        let r = gpu(Config {
            grid,
            tasks_per_warp: 256,
            ..Config::default()
        })
        .and_then(|mut rt| {
            let f25 = rt.run::<Fib, _>(fib, (25,))?;
            let buf = rt.alloc_zeroed::<u64>(1)?;
            let m = rt.run::<Mixed, _>(mixroot, (20, 8, buf.slice()))?;
            let detached = rt.download(&buf)?[0];
            let f30 = rt.run::<Fib, _>(fib, (30,))?;
            Ok((f25, m, detached, f30))
        });
        let want = (fib_ref(25), fib_ref(20), 3u64.pow(8), fib_ref(30));
        t.row(
            &format!("work first, 256-entry deques, {label}"),
            matches!(&r, Ok(got) if *got == want),
            format!("fib(25), mixed fib(20) + 3^8, fib(30): {r:?} (want {want:?})"),
        );
    }
    let threads = 128u32;
    let r = gpu(Config {
        grid: Some(2),
        block_threads: threads,
        tasks_per_block: Some(1024),
        ..Config::default()
    })
    .and_then(|mut rt| {
        let a = rt.run::<BlockFibs, _>(bfibs, (20,))?;
        let b = rt.run::<BlockFibs, _>(bfibs, (16,))?;
        Ok((a, b))
    });
    let want = (
        u64::from(threads) * fib_ref(20),
        u64::from(threads) * fib_ref(16),
    );
    // Block-level programs do not spill (`Params::overflow_spills`): a deque too small is a
    // typed error naming its knob, never a wrong answer.
    t.row(
        "block, 1024-entry deques, 2 blocks",
        match &r {
            Ok(got) => *got == want,
            Err(Error::QueueOverflow { limit, .. }) => *limit == "Config::tasks_per_block",
            Err(_) => false,
        },
        format!("{threads} x fib(20), {threads} x fib(16): {r:?} (want {want:?} or QueueOverflow)"),
    );
}

/// Several GPUs' protocol on this GPU (`Devices::Partitions(2)`): answers, tasks that crossed,
/// and the failure modes as typed errors naming the partition.
fn several_gpus(t: &mut Table) {
    let two = |c: Config| {
        gpu(Config {
            devices: Devices::Partitions(2),
            // Small runs: spread from the start, so that tasks cross.
            spread_after: Duration::ZERO,
            ..c
        })
    };
    let r = two(Config::default()).and_then(|mut rt| {
        let f25 = rt.run::<Fib, _>(fib, (25,))?;
        let f30 = rt.run::<Fib, _>(fib, (30,))?;
        let st = rt.last_stats().cloned().unwrap_or_default();
        let buf = rt.alloc_zeroed::<u64>(1)?;
        rt.run::<NQueens, _>(nqueens, (10, 0, 0, 0, 0, 4, buf.slice()))?;
        let nq = rt.download(&buf)?[0];
        let buf = rt.alloc_zeroed::<u64>(1)?;
        let m = rt.run::<Mixed, _>(mixroot, (20, 8, buf.slice()))?;
        let detached = rt.download(&buf)?[0];
        Ok(((f25, f30, nq, m, detached), st))
    });
    let want = (
        fib_ref(25),
        fib_ref(30),
        gpu_smoke::nqueens_seq(10, 0, 0, 0, 0),
        fib_ref(20),
        3u64.pow(8),
    );
    t.row(
        "2 partitions: fib, nqueens, mixed + detached",
        matches!(&r, Ok((got, st)) if *got == want && st.gpus == 2 && st.cross_tasks > 0
            && st.gpu_steps.len() == 2 && st.gpu_steps.iter().sum::<u64>() == st.steps
            && st.gpu_hungry.len() == 2 && st.gpu_hungry.iter().all(|h| *h <= st.elapsed)),
        match &r {
            Ok((got, st)) => {
                format!(
                "{got:?} (want {want:?}); fib(30): {} GPUs, {} cross steals, {} tasks crossed, \
                 steps {:?} of {}, hungry {:?} of {:?}",
                st.gpus, st.cross_steals, st.cross_tasks, st.gpu_steps, st.steps, st.gpu_hungry,
                st.elapsed
            )
            }
            Err(e) => e.to_string(),
        },
    );
    // Task memory too small on a partition: a typed error naming the knob and the partition,
    // then a good run on the same runtime. Two warps a partition: a worker and the courier
    // (one warp is refused as a grid too small for a multi-GPU run, the next row).
    let r = two(Config {
        grid: Some(2),
        // 704 records a partition: room for both warps' initial ranges, not for fib(30).
        gpu_pool_bytes: Some(56 << 10),
        ..Config::default()
    })
    .map(|mut rt| {
        let bad = rt.run::<Fib, _>(fib, (30,));
        let next = rt.run::<Fib, _>(fib, (12,));
        (bad, next)
    });
    t.row(
        "2 partitions: tiny task memory -> OnGpu(PoolExhausted)",
        matches!(&r, Ok((Err(e @ Error::OnGpu { .. }), Ok(144)))
            if matches!(e.innermost(), Error::PoolExhausted { limit: "Config::gpu_pool_bytes", .. })),
        format!("{r:?}"),
    );
    let r = two(Config {
        grid: Some(1),
        ..Config::default()
    })
    .map(|mut rt| rt.run::<Fib, _>(fib, (12,)));
    t.row(
        "2 partitions of one warp -> OnGpu(InvalidConfig grid)",
        matches!(&r, Ok(Err(e)) if matches!(e.innermost(), Error::InvalidConfig { field: "grid", .. })),
        format!("{r:?}"),
    );
    let r = two(Config::default()).map(|mut rt| {
        let bad = rt.run::<BadQueue, _>(badq, (3,));
        let next = rt.run::<Fib, _>(fib, (21,));
        (bad, next)
    });
    t.row(
        "2 partitions: bad queue -> OnGpu(InvalidQueue)",
        matches!(&r, Ok((Err(e), Ok(10946)))
            if matches!(e.innermost(), Error::InvalidQueue { queue: 9, .. })),
        format!("{r:?}"),
    );
    let r = two(Config {
        watchdog: Duration::from_secs(1),
        ..Config::default()
    })
    .map(|mut w| {
        let hang = w.run::<Stall, _>(stall, (3_000_000_000,));
        let next = w.run::<Fib, _>(fib, (12,));
        (hang, next)
    });
    t.row(
        "2 partitions: stalled task -> Hang, then a run",
        matches!(&r, Ok((Err(e), Ok(144))) if matches!(e.innermost(), Error::Hang { .. })),
        format!("{r:?}"),
    );
}

fn transfers(t: &mut Table) {
    let paths = [
        ("staged, 1 lane", TransferPath::Staged, 1, 4 << 20),
        (
            "staged, 4 lanes of 64 KiB chunks",
            TransferPath::Staged,
            4,
            64 << 10,
        ),
        ("registered", TransferPath::Registered, 1, 4 << 20),
        ("direct", TransferPath::Direct, 1, 4 << 20),
    ];
    for (name, path, threads, chunk_bytes) in paths {
        let transfer = Transfer {
            path,
            threads,
            chunk_bytes,
        };
        let r = gpu(Config {
            transfer,
            ..Config::default()
        })
        .and_then(|rt| {
            let mut checked = 0;
            let big: Vec<u32> = (0..3_000_001u32)
                .map(|i| i.wrapping_mul(2_654_435_761))
                .collect();
            let mut buf = rt.upload(&big)?;
            let cap = buf.capacity();
            let mut out = vec![0u32; big.len()];
            for len in [big.len(), 0, 1, 1000, 65_537, big.len() - 7] {
                let data = &big[7..7 + len.min(big.len() - 7)];
                rt.upload_into(&mut buf, data)?;
                if buf.capacity() != cap {
                    return Err(Error::Driver(format!("reallocated at {len}")));
                }
                rt.download_into(&buf, &mut out[..data.len()])?;
                if out[..data.len()] != *data || rt.download(&buf)? != data {
                    return Err(Error::Driver(format!("{len} elements differ")));
                }
                checked += data.len();
            }
            let grown: Vec<u64> = (0..1_000_003u64).map(|i| i * i).collect();
            let mut small = rt.upload(&[1u64, 2])?;
            rt.upload_into(&mut small, &grown)?;
            if rt.download(&small)? != grown {
                return Err(Error::Driver("grown buffer differs".into()));
            }
            Ok(checked + grown.len())
        });
        match r {
            Ok(n) => t.row(
                &format!("transfers: {name}"),
                true,
                format!("{n} elements round-tripped"),
            ),
            Err(e) => t.row(&format!("transfers: {name}"), false, e.to_string()),
        }
    }
}

fn fib_rec(n: u32) -> u64 {
    if n < 2 {
        u64::from(n)
    } else {
        fib_rec(n - 1) + fib_rec(n - 2)
    }
}
