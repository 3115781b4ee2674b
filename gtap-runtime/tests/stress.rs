//! Stress tests of the join protocol (crossbeam's naming): more workers than cores, many short
//! runs, runs that abort half-way, and several runtimes at once. Every result is checked
//! exactly; nothing depends on timing.

mod common;

use common::*;
use gtap_runtime::{Config, Error, Runtime};

/// Fewer rounds under Miri.
const ROUNDS: u32 = if cfg!(miri) { 4 } else { 60 };

fn runtime(workers: usize) -> Runtime {
    Runtime::cpu(Config {
        workers,
        ..Config::default()
    })
    .unwrap()
}

/// Many short runs with 8 workers on however many cores: joins, detached subtrees and
/// zombies racing with steals.
#[test]
fn stampede() {
    let mut rt = runtime(8);
    for round in 0..ROUNDS {
        let n = 5 + round % 14;
        assert_eq!(
            rt.run::<Fib, _>(fib, (n,)).unwrap(),
            fib_seq(n),
            "round {round}"
        );

        let (width, depth, len) = (
            1 + round % 4,
            1 + round % 5,
            1 + (round as usize * 37) % 600,
        );
        let counter = rt.alloc_zeroed::<u64>(1).unwrap();
        let data = rt.alloc_zeroed::<u64>(len).unwrap();
        let got = rt
            .run::<Subtree, _>(subtree, (counter.slice(), data.slice(), width, depth))
            .unwrap();
        let sprays: u64 = (0..=depth).map(|k| u64::from(width).pow(k)).sum();
        let sum: u64 = (0..len as u64).map(|i| i * 3).sum();
        assert_eq!(got, sprays + sum, "round {round}");
    }
}

/// Aborted runs leave nothing behind: after each panic, a full run gives the exact answer and
/// the task count of a clean run.
#[test]
fn aborts_interleaved() {
    let mut rt = runtime(5);
    let clean_tasks = {
        rt.run::<Boom, _>(boom, (16, 99)).unwrap();
        rt.last_stats().unwrap().tasks
    };
    for round in 0..ROUNDS {
        let at = round % 12;
        let got = rt.run::<Boom, _>(boom, (16, at));
        let expected = Error::TaskPanicked {
            task: "boom",
            message: format!("boom at {at}"),
        };
        assert_eq!(got, Err(expected), "round {round}");
        assert_eq!(
            rt.run::<Boom, _>(boom, (16, 99)).unwrap(),
            fib_seq(16),
            "round {round}"
        );
        assert_eq!(rt.last_stats().unwrap().tasks, clean_tasks, "round {round}");
    }
}

/// Independent runtimes in parallel threads do not interfere.
#[test]
fn runtimes_in_parallel() {
    let handles: Vec<_> = (0..3)
        .map(|t| {
            std::thread::spawn(move || {
                let mut rt = runtime(2 + t);
                for n in 0..ROUNDS.min(20) {
                    assert_eq!(rt.run::<Fib, _>(fib, (n,)).unwrap(), fib_seq(n));
                    let count = rt.alloc_zeroed::<u64>(1).unwrap();
                    let q = 1 + n % 8;
                    rt.run::<NQueens, _>(nqueens, (q, 0, 0, 0, 0, count.slice()))
                        .unwrap();
                    assert_eq!(rt.download(&count).unwrap()[0], nqueens_seq(q, 0, 0, 0, 0));
                }
            })
        })
        .collect();
    for handle in handles {
        handle.join().unwrap();
    }
}

/// A runtime can move to another thread (and be shared for uploads).
#[test]
fn runtime_is_send_and_sync() {
    fn check<T: Send + Sync>() {}
    check::<Runtime>();
    check::<gtap_runtime::Buffer<u64>>();
}
