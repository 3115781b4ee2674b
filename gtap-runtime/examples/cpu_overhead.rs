//! Measures the CPU executor: per-task cost on fib against rayon and sequential code, and the
//! fixed cost of a run with the persistent pool against a fresh pool per run (what scoped
//! threads per run would pay).
//!
//! `cargo run --release -p gtap-runtime --example cpu_overhead -- [n] [reps]`

#[path = "../tests/common/mod.rs"]
mod common;

use std::time::{Duration, Instant};

use common::{fib, Fib};
use gtap_runtime::{Config, Runtime};

fn median(mut xs: Vec<Duration>) -> Duration {
    xs.sort();
    xs[xs.len() / 2]
}

fn time<R>(reps: usize, mut f: impl FnMut() -> R) -> Duration {
    median(
        (0..reps)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(f());
                t.elapsed()
            })
            .collect(),
    )
}

fn fib_seq(n: u32) -> u64 {
    if n < 2 {
        u64::from(n)
    } else {
        fib_seq(n - 1) + fib_seq(n - 2)
    }
}

fn fib_rayon(n: u32) -> u64 {
    if n < 2 {
        return u64::from(n);
    }
    let (a, b) = rayon::join(|| fib_rayon(n - 1), || fib_rayon(n - 2));
    a + b
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: u32 = args.next().map_or(27, |s| s.parse().expect("n"));
    let reps: usize = args.next().map_or(5, |s| s.parse().expect("reps"));
    let cores = std::thread::available_parallelism().map_or(1, |c| c.get());
    let tasks = 2 * common::fib_seq(n + 1) - 1;
    println!("fib({n}): {tasks} tasks, {cores} cores, median of {reps}");

    let seq = time(reps, || fib_seq(std::hint::black_box(n)));
    println!("  sequential            {seq:>12.3?}");
    for workers in [1, cores] {
        let mut rt = Runtime::cpu(Config {
            workers,
            ..Config::default()
        })
        .unwrap();
        let t = time(reps, || rt.run::<Fib, _>(fib, (n,)).unwrap());
        let steals = rt.last_stats().unwrap().steals;
        let per_task = t.as_nanos() as f64 / tasks as f64;
        println!(
            "  gtap cpu, {workers} workers   {t:>12.3?}  {per_task:6.1} ns/task  {steals} steals"
        );
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(workers)
            .build()
            .unwrap();
        let t = time(reps, || pool.install(|| fib_rayon(n)));
        let per_task = t.as_nanos() as f64 / tasks as f64;
        println!("  rayon join, {workers} workers {t:>12.3?}  {per_task:6.1} ns/task");
    }

    let runs = 2000;
    let mut rt = Runtime::cpu(Config {
        workers: cores,
        ..Config::default()
    })
    .unwrap();
    let persistent = time(3, || {
        (0..runs)
            .map(|_| rt.run::<Fib, _>(fib, (1,)).unwrap())
            .sum::<u64>()
    });
    let fresh = time(3, || {
        (0..runs / 10)
            .map(|_| {
                let mut rt = Runtime::cpu(Config {
                    workers: cores,
                    ..Config::default()
                })
                .unwrap();
                rt.run::<Fib, _>(fib, (1,)).unwrap()
            })
            .sum::<u64>()
    });
    println!(
        "  one-task run: persistent pool {:.1} us, fresh pool per run {:.1} us",
        persistent.as_secs_f64() * 1e6 / runs as f64,
        fresh.as_secs_f64() * 1e6 / (runs / 10) as f64
    );
}
