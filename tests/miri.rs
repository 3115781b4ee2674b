//! Task programs on the CPU executor small enough for Miri (`scripts/miri.sh`; `docs/
//! cpu-executor.md`, "Under Miri"), covering every path of the executor's unsafe code: children
//! as calls (sequential clones in release builds, state machines in frames otherwise) and as
//! records, promotion on request with two and three workers, detached children that write a
//! buffer with atomics, join cells, a panic in a clone and in a record, a cancel and a
//! deadline, `PoolExhausted`, uploads and downloads, `replicate` and `replicate_into`, an
//! empty buffer, and several runs on one runtime. Each answer is checked against plain Rust;
//! natively the same tests run in the ordinary suite in a fraction of a second.

use std::time::Duration;

use gtap::{program, CancelToken, Config, Error, RunOptions, Runtime, Slice, Table};

/// Runtimes of one, two and three workers, with inline children on and off.
fn runtimes() -> Vec<(String, Runtime)> {
    let mut out = Vec::new();
    for workers in [1, 2, 3] {
        for inline in [true, false] {
            let rt = Runtime::cpu(Config {
                workers,
                cpu_inline_children: inline,
                ..Config::default()
            })
            .expect("a CPU runtime");
            out.push((format!("{workers} worker(s), inline children {inline}"), rt));
        }
    }
    out
}

// ---- joins: fib, a task at every call ----

#[gtap::function]
fn fib(n: u32) -> u64 {
    if n < 2 {
        return u64::from(n);
    }
    let a = task!(fib(n - 1));
    let b = task!(fib(n - 2));
    taskwait!();
    a + b
}
program!(Fib = [fib]);

fn fib_ref(n: u32) -> u64 {
    if n < 2 {
        u64::from(n)
    } else {
        fib_ref(n - 1) + fib_ref(n - 2)
    }
}

#[test]
fn fib_on_every_runtime_and_several_runs() {
    for (name, mut rt) in runtimes() {
        for n in [0, 1, 9, 12] {
            assert_eq!(rt.run::<Fib, _>(fib, (n,)).unwrap(), fib_ref(n), "{name}");
        }
    }
}

// ---- a chain: one child and one join per level, deeper than the calls' budget ----

#[gtap::function]
fn chain(n: u32, x: u64) -> u64 {
    if n == 0 {
        return x;
    }
    let y = task!(chain(n - 1, x.wrapping_mul(31).wrapping_add(7)));
    taskwait!();
    y ^ u64::from(n)
}
program!(Chain = [chain]);

fn chain_ref(n: u32, x: u64) -> u64 {
    let mut xs = Vec::with_capacity(n as usize + 1);
    let mut x = x;
    for _ in 0..n {
        xs.push(x);
        x = x.wrapping_mul(31).wrapping_add(7);
    }
    let mut y = x;
    for k in 1..=n {
        y ^= u64::from(k);
    }
    y
}

#[test]
fn chain_goes_on_as_records() {
    let n = if cfg!(miri) { 300 } else { 20_000 };
    for (name, mut rt) in runtimes().into_iter().step_by(3) {
        assert_eq!(
            rt.run::<Chain, _>(chain, (n, 3)).unwrap(),
            chain_ref(n, 3),
            "{name}"
        );
    }
}

// ---- detached children that write a buffer with atomics ----

#[gtap::function]
fn mark(data: Slice<u32>, lo: u32, hi: u32) {
    if hi - lo <= 2 {
        for i in lo..hi {
            data.atomic_add(i as usize, i + 1);
        }
        return;
    }
    let mid = lo + (hi - lo) / 2;
    task!(mark(data, lo, mid));
    task!(mark(data, mid, hi));
}
program!(Mark = [mark]);

#[test]
fn detached_children_write_a_buffer() {
    let n = 37u32;
    for (name, mut rt) in runtimes() {
        let buf = rt.upload(&vec![0u32; n as usize]).unwrap();
        rt.run::<Mark, _>(mark, (buf.slice(), 0, n)).unwrap();
        let got = rt.download(&buf).unwrap();
        let want: Vec<u32> = (1..=n).collect();
        assert_eq!(got, want, "{name}");
    }
}

// ---- a read-only table, replicated, and an empty buffer ----

#[gtap::function]
fn table_sum(t: Table<u64>, lo: u32, hi: u32) -> u64 {
    if hi - lo <= 3 {
        let mut s = 0;
        for i in lo..hi {
            s += t.get(i as usize);
        }
        return s;
    }
    let mid = lo + (hi - lo) / 2;
    let a = task!(table_sum(t, lo, mid));
    let b = task!(table_sum(t, mid, hi));
    taskwait!();
    a + b
}
program!(TableSum = [table_sum]);

#[test]
fn replicated_tables_and_empty_buffers() {
    let data: Vec<u64> = (0..41).map(|i| i * i).collect();
    let want: u64 = data.iter().sum();
    for (name, mut rt) in runtimes().into_iter().step_by(2) {
        let table = rt.replicate(&data).unwrap();
        let got = rt
            .run::<TableSum, _>(table_sum, (table.table(), 0, 41))
            .unwrap();
        assert_eq!(got, want, "{name}");
        let mut again = rt.replicate(&[0u64; 41]).unwrap();
        rt.replicate_into(&mut again, &data).unwrap();
        let got = rt
            .run::<TableSum, _>(table_sum, (again.table(), 0, 41))
            .unwrap();
        assert_eq!(got, want, "{name}: replicate_into");
        let empty = rt.upload::<u64>(&[]).unwrap();
        assert!(rt.download(&empty).unwrap().is_empty(), "{name}");
        let mut out = [7u32; 3];
        let three = rt.upload(&[1u32, 2, 3]).unwrap();
        rt.download_into(&three, &mut out).unwrap();
        assert_eq!(out, [1, 2, 3], "{name}");
    }
}

// ---- panics: in a clone (release builds) and in a record; the next run is fine ----

#[gtap::function]
fn boom(n: u32, at: u32) -> u32 {
    if n == at {
        panic!("boom at {n}");
    }
    if n == 0 {
        return 0;
    }
    let a = task!(boom(n - 1, at));
    let b = task!(leaf(n));
    taskwait!();
    a + b
}

#[gtap::function]
fn leaf(n: u32) -> u32 {
    n
}
program!(Boom = [boom, leaf]);

#[test]
fn a_panic_is_an_error_and_the_runtime_goes_on() {
    for (name, mut rt) in runtimes() {
        for at in [0, 3, 6] {
            match rt.run::<Boom, _>(boom, (6, at)) {
                Err(Error::TaskPanicked { task, message }) => {
                    assert_eq!(task, "boom", "{name}");
                    assert!(message.contains("boom at"), "{name}: {message}");
                }
                other => panic!("{name}: expected TaskPanicked, got {other:?}"),
            }
            assert_eq!(
                rt.run::<Boom, _>(boom, (6, 99)).unwrap(),
                21,
                "{name}: the run after a panic"
            );
        }
    }
}

// ---- a cancel, a deadline, and a pool too small ----

#[gtap::function]
fn spin(n: u32) -> u64 {
    if n == 0 {
        return 1;
    }
    let a = task!(spin(n - 1));
    let b = task!(spin(n - 1));
    taskwait!();
    a + b
}
program!(Spin = [spin]);

#[test]
fn cancel_deadline_and_pool_exhausted() {
    for (name, mut rt) in runtimes().into_iter().step_by(2) {
        let token = CancelToken::new();
        token.cancel();
        let options = RunOptions {
            cancel: Some(token),
            ..RunOptions::default()
        };
        assert!(
            matches!(
                rt.run_with::<Spin, _>(spin, (40,), &options),
                Err(Error::Cancelled { .. })
            ),
            "{name}: cancel"
        );
        let options = RunOptions {
            deadline: Some(Duration::from_millis(1)),
            ..RunOptions::default()
        };
        assert!(
            matches!(
                rt.run_with::<Spin, _>(spin, (40,), &options),
                Err(Error::Cancelled { .. })
            ),
            "{name}: deadline"
        );
        assert_eq!(
            rt.run::<Spin, _>(spin, (5,)).unwrap(),
            32,
            "{name}: after a stop"
        );
    }
    // Records only, in the smallest pool (1 MiB, 64-byte records at the least): a chain's
    // waiting ancestors do not fit.
    let mut rt = Runtime::cpu(Config {
        workers: 1,
        cpu_inline_children: false,
        cpu_pool_bytes: 1 << 20,
        ..Config::default()
    })
    .unwrap();
    assert!(
        matches!(
            rt.run::<Chain, _>(chain, (20_000, 1)),
            Err(Error::PoolExhausted { .. })
        ),
        "a chain of 20,000 records in a 1 MiB pool"
    );
    assert_eq!(
        rt.run::<Chain, _>(chain, (10, 1)).unwrap(),
        chain_ref(10, 1)
    );
}
