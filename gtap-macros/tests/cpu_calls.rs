//! The CPU executor's join paths with children as calls (`gtap-runtime/src/cpu/context.rs`
//! and `join.rs`), each against plain Rust, with calls on and off
//! (`Config::cpu_inline_children`) and on one and several workers: children that overflow the
//! frame region and become records joined on a cell, detached children of a call, a panic deep
//! in nested calls (named after the innermost task), and the runtime's next run after it.

use gtap::{program, Config, Error, Runtime, Slice};

fn runtime(workers: usize, inline: bool) -> Runtime {
    Runtime::cpu(Config {
        workers,
        cpu_inline_children: inline,
        max_children: 1 << 20,
        ..Config::default()
    })
    .expect("a CPU runtime")
}

/// The configurations every test runs under.
fn configs() -> impl Iterator<Item = (usize, bool)> {
    [1, 2, 4].into_iter().flat_map(|w| [(w, true), (w, false)])
}

fn weight(i: u64) -> u64 {
    i.wrapping_mul(0x9e37_79b9).rotate_left(7) % 1000
}

#[gtap::function]
fn store(i: u64, out: Slice<u64>) {
    out.set(i as usize, weight(i));
}

/// `n` children in one join: more than the frame region holds when `n` is large, so the
/// later ones are records joined on a cell while this step runs as a call.
#[gtap::function]
fn fan(n: u64, out: Slice<u64>) -> u64 {
    for i in 0..n {
        task!(store(i, out));
    }
    taskwait!();
    let mut sum = 0;
    for i in 0..n as usize {
        sum += out.get(i);
    }
    sum
}

/// Runs `fan` as a child, so that `fan` itself is a call (the root is a record).
#[gtap::function]
fn fan_root(n: u64, out: Slice<u64>) -> u64 {
    let s = task!(fan(n, out));
    taskwait!();
    s
}

program!(Fan = [fan_root, fan, store]);

#[test]
fn children_past_the_frame_region_are_records_joined_on_a_cell() {
    for (workers, inline) in configs() {
        let mut rt = runtime(workers, inline);
        for n in [0u64, 1, 100, 30_000] {
            let out = rt.upload(&vec![0u64; n as usize]).unwrap();
            let got = rt.run::<Fan, _>(fan_root, (n, out.slice())).unwrap();
            let want: u64 = (0..n).map(weight).sum();
            assert_eq!(got, want, "n = {n}, {workers} workers, calls {inline}");
            let stats = rt.last_stats().unwrap();
            assert_eq!(stats.tasks, n + 2, "one task each: root, fan, the stores");
        }
    }
}

/// A tree of detached children: each node adds its weight to `total[0]` with an atomic add,
/// and spawns two children without a join.
#[gtap::function]
fn detached(depth: u32, id: u64, total: Slice<u64>) {
    total.atomic_add(0, weight(id));
    if depth > 0 {
        task!(detached(depth - 1, 2 * id, total));
        task!(detached(depth - 1, 2 * id + 1, total));
    }
}

program!(Detached = [detached]);

fn detached_seq(depth: u32, id: u64) -> u64 {
    weight(id)
        + if depth > 0 {
            detached_seq(depth - 1, 2 * id) + detached_seq(depth - 1, 2 * id + 1)
        } else {
            0
        }
}

#[test]
fn detached_children_of_calls_finish_before_the_run_ends() {
    for (workers, inline) in configs() {
        let mut rt = runtime(workers, inline);
        for depth in [0u32, 3, 14] {
            let total = rt.upload(&[0u64]).unwrap();
            rt.run::<Detached, _>(detached, (depth, 1, total.slice()))
                .unwrap();
            assert_eq!(
                rt.download(&total).unwrap()[0],
                detached_seq(depth, 1),
                "depth {depth}, {workers} workers, calls {inline}"
            );
            // No node joins: a clone's spawns are all counted after its body returns.
            assert_eq!(
                rt.last_stats().unwrap().tasks,
                (1u64 << (depth + 1)) - 1,
                "one task per node, depth {depth}, {workers} workers, calls {inline}"
            );
        }
    }
}

/// Panics at `n == at`, deep in a tree of calls.
#[gtap::function]
fn deep_boom(n: u32, at: u32) -> u64 {
    if n == at {
        panic!("boom at {n}");
    }
    if n == 0 {
        return 1;
    }
    let a = task!(deep_boom(n - 1, at));
    let b = task!(deep_boom_leaf(n));
    taskwait!();
    a + b
}

#[gtap::function]
fn deep_boom_leaf(n: u32) -> u64 {
    u64::from(n)
}

program!(DeepBoom = [deep_boom, deep_boom_leaf]);

#[test]
fn a_panic_deep_in_calls_names_its_task_and_the_runtime_goes_on() {
    let want: u64 = 1 + (1..=20u64).sum::<u64>();
    for (workers, inline) in configs() {
        let mut rt = runtime(workers, inline);
        match rt.run::<DeepBoom, _>(deep_boom, (20, 3)) {
            Err(Error::TaskPanicked { task, message }) => {
                assert_eq!(task, "deep_boom", "{workers} workers, calls {inline}");
                assert!(message.contains("boom at 3"), "{message}");
            }
            other => panic!("expected a panic, got {other:?}"),
        }
        assert_eq!(
            rt.run::<DeepBoom, _>(deep_boom, (20, u32::MAX)).unwrap(),
            want,
            "the run after the panic, {workers} workers, calls {inline}"
        );
    }
}

/// fib with a task per call, whose calls run as sequential clones on a worker nobody needs.
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

fn fib_seq(n: u32) -> u64 {
    if n < 2 {
        u64::from(n)
    } else {
        fib_seq(n - 1) + fib_seq(n - 2)
    }
}

#[test]
fn clones_count_their_tasks_and_keep_the_limits() {
    for (workers, inline) in configs() {
        let mut rt = runtime(workers, inline);
        assert_eq!(rt.run::<Fib, _>(fib, (25,)).unwrap(), fib_seq(25));
        assert_eq!(
            rt.last_stats().unwrap().tasks,
            2 * fib_seq(26) - 1,
            "every call counts as a task, {workers} workers, calls {inline}"
        );
        // More children between two joins than `max_children` allows, inside a clone.
        let mut narrow = Runtime::cpu(Config {
            workers,
            cpu_inline_children: inline,
            max_children: 8,
            ..Config::default()
        })
        .unwrap();
        let out = narrow.upload(&[0u64; 9]).unwrap();
        assert_eq!(
            narrow.run::<Fan, _>(fan_root, (9, out.slice())),
            Err(Error::PoolExhausted {
                limit: "Config::max_children",
                capacity: 8
            }),
            "{workers} workers, calls {inline}"
        );
        assert_eq!(
            narrow.run::<Fib, _>(fib, (20,)).unwrap(),
            fib_seq(20),
            "the run after a refused spawn"
        );
    }
}

#[test]
fn a_deadline_stops_a_long_clone_and_the_runtime_goes_on() {
    for (workers, inline) in configs() {
        let mut rt = runtime(workers, inline);
        let options = gtap::RunOptions {
            deadline: Some(std::time::Duration::from_millis(20)),
            ..gtap::RunOptions::default()
        };
        // fib(45) runs for minutes: only the stop checks inside the clones end it early.
        match rt.run_with::<Fib, _>(fib, (45,), &options) {
            Err(Error::Cancelled { .. }) => {}
            other => {
                panic!("expected a cancellation, got {other:?} ({workers} workers, calls {inline})")
            }
        }
        assert_eq!(rt.run::<Fib, _>(fib, (20,)).unwrap(), fib_seq(20));
    }
}
