//! Promotion on request, seen from outside: a tree that starts on one worker reaches the
//! other (`docs/cpu-executor.md`, "Promotion on request").
//!
//! This test has a binary of its own because it needs both workers on a CPU at once. Promoted
//! work stays on the owner's deque only until the owner reaches the join that holds it, so a
//! thief that the OS does not schedule meanwhile steals nothing. On a 2-core machine with the
//! other CPU tests of `cpu.rs` running beside it (two test threads, four workers each), twenty
//! runs of fib(27) stole nothing at all. `cargo test` runs test binaries one after another, so
//! here the two workers have the machine to themselves, unless something outside the suite
//! runs beside it.

use std::time::{Duration, Instant};

use gtap::{Backend, Config, Runtime};
use gtap_examples::{
    apps::fib::{fib, Fib},
    reference,
};

/// An idle worker asks a busy one for work, which the busy one exposes from inside its calls
/// and clones. Without the requests, or with a request never answered, nothing but the root is
/// ever on a deque: a run stays on the worker that took the root, and `steals` is 0, or 1 when
/// the second worker took the root before the first (checked by sending every request to the
/// asker itself). So a run with two steals or more shows an answered request. A run whose
/// second thread is not scheduled in time steals less (on a 2-core VM the second vCPU
/// sometimes gets no time from its host for a whole run, and beside a build both cores are
/// taken), so runs of fib(30), each longer than a scheduler's time slice, are tried for up to
/// 30 seconds; the first that steals twice ends the test.
#[test]
fn idle_workers_get_work_by_asking() {
    let mut rt = Runtime::new(Config {
        backend: Backend::Cpu,
        workers: 2,
        ..Config::default()
    })
    .unwrap();
    let start = Instant::now();
    let mut steals = Vec::new();
    while start.elapsed() < Duration::from_secs(30) {
        assert_eq!(
            rt.run::<Fib, _>(fib, (30,)).unwrap(),
            reference::fib_seq(30)
        );
        let stats = rt.last_stats().expect("the run's statistics");
        steals.push(stats.steals);
        if stats.steals >= 2 {
            return;
        }
    }
    panic!("no run of fib(30) on two workers stole twice in 30 s: steals {steals:?}");
}
