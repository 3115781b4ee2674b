//! Bodies that end `let PAT = task!(f(..)); taskwait!(); TAIL` with `f` the function itself.
//! In release builds the sequential clone makes these three one call (`glue::seq_last_task`)
//! whose `TAIL` is a closure's body, so that the clone's call of itself can become a loop;
//! these programs check that every kind of tail and pattern a user writes keeps its meaning:
//! `return` and `?` inside the tail, destructuring and typed patterns, a discarded result, a
//! tail that borrows and mutates locals, queue hints on the spawn and the join, a generic
//! function, and recursion deep enough that only a loop or records can run it. Each is checked
//! against plain Rust on one worker and on two (where idle-worker requests make some of the
//! children tasks instead of clones).

use gtap::{program, Config, Error, Runtime};

/// CPU runtimes of one worker and of two, with their worker counts.
fn runtimes() -> Vec<(usize, Runtime)> {
    [1, 2]
        .into_iter()
        .map(|workers| {
            let rt = Runtime::cpu(Config {
                workers,
                queues: 2,
                ..Config::default()
            })
            .expect("a CPU runtime");
            (workers, rt)
        })
        .collect()
}

fn check<P: gtap::Program, T: gtap::TaskFn + Copy>(f: T, args: T::Args, want: T::Output)
where
    T::Args: Copy,
    T::Output: PartialEq + std::fmt::Debug,
{
    for (workers, mut rt) in runtimes() {
        let got = rt.run::<P, T>(f, args).expect("runs on the CPU executor");
        assert_eq!(got, want, "{} on {workers} worker(s)", T::NAME);
    }
}

// ---- an accumulator: the shape LLVM turns into a loop ----

#[gtap::function]
fn sum_to(n: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    let b = task!(sum_to(n - 1));
    taskwait!();
    b + n
}
program!(SumTo = [sum_to]);

#[test]
fn accumulator_tail() {
    for n in [0u64, 1, 2, 100, 5000] {
        check::<SumTo, _>(sum_to, (n,), n * (n + 1) / 2);
    }
}

#[test]
fn a_chain_of_a_million_runs_without_overflowing() {
    let mut rt = Runtime::cpu(Config::default()).unwrap();
    let n = 1_000_000u64;
    assert_eq!(rt.run::<SumTo, _>(sum_to, (n,)).unwrap(), n * (n + 1) / 2);
    let stats = rt.last_stats().expect("stats of the run");
    assert_eq!(stats.tasks, n + 1, "every level is counted as a task");
}

// ---- `return` and `?` inside the tail ----

#[gtap::function]
fn capped(n: u64) -> u64 {
    if n == 0 {
        return 1;
    }
    let b = task!(capped(n - 1));
    taskwait!();
    if b > 1000 {
        return 1000;
    }
    b * 3
}
program!(Capped = [capped]);

fn seq_capped(n: u64) -> u64 {
    if n == 0 {
        return 1;
    }
    let b = seq_capped(n - 1);
    if b > 1000 {
        return 1000;
    }
    b * 3
}

#[test]
fn return_inside_the_tail() {
    for n in [0u64, 3, 6, 7, 20] {
        check::<Capped, _>(capped, (n,), seq_capped(n));
    }
}

#[gtap::function]
fn checked(n: u32) -> Result<u32, u32> {
    if n == 0 {
        return Ok(0);
    }
    let b = task!(checked(n - 1));
    taskwait!();
    let v = b?;
    if v == 7 {
        return Err(n);
    }
    Ok(v + 1)
}
program!(Checked = [checked]);

#[test]
fn question_mark_inside_the_tail() {
    check::<Checked, _>(checked, (5,), Ok(5));
    check::<Checked, _>(checked, (7,), Ok(7));
    // Level 8 sees 7 and fails; every level above passes the error on with `?`.
    check::<Checked, _>(checked, (8,), Err(8));
    check::<Checked, _>(checked, (30,), Err(8));
}

// ---- patterns ----

#[gtap::function]
fn fib_pair(n: u32) -> (u64, u64) {
    if n == 0 {
        return (0, 1);
    }
    let (a, b) = task!(fib_pair(n - 1));
    taskwait!();
    (b, a + b)
}
program!(FibPair = [fib_pair]);

#[test]
fn destructuring_pattern() {
    check::<FibPair, _>(fib_pair, (0,), (0, 1));
    check::<FibPair, _>(fib_pair, (10,), (55, 89));
    check::<FibPair, _>(
        fib_pair,
        (90,),
        (2_880_067_194_370_816_120, 4_660_046_610_375_530_309),
    );
}

#[gtap::function]
fn typed(n: u64) -> u64 {
    if n == 0 {
        return 1;
    }
    let mut b: u64 = task!(typed(n - 1));
    taskwait!();
    b = b.wrapping_mul(31).wrapping_add(n);
    b % 1_000_003
}
program!(Typed = [typed]);

fn seq_typed(n: u64) -> u64 {
    (1..=n).fold(1u64, |b, k| b.wrapping_mul(31).wrapping_add(k) % 1_000_003)
}

#[test]
fn typed_mutable_pattern() {
    for n in [0u64, 1, 50, 3000] {
        check::<Typed, _>(typed, (n,), seq_typed(n));
    }
}

// ---- a discarded result, and a tail that borrows and mutates locals ----

#[gtap::function]
fn count_down(n: u64, hits: gtap::Slice<u64>) -> u64 {
    hits.atomic_add(0, 1);
    if n == 0 {
        return 0;
    }
    task!(count_down(n - 1, hits));
    taskwait!();
    n
}
program!(CountDown = [count_down]);

#[test]
fn discarded_result() {
    for (_, mut rt) in runtimes() {
        let hits = rt.upload(&[0u64]).unwrap();
        assert_eq!(
            rt.run::<CountDown, _>(count_down, (40, hits.slice()))
                .unwrap(),
            40
        );
        assert_eq!(
            rt.download(&hits).unwrap(),
            vec![41],
            "every level ran once"
        );
    }
}

#[gtap::function]
fn window(n: u64) -> u64 {
    let mut acc = [n, n * 2, 0];
    if n == 0 {
        return acc.iter().sum();
    }
    let seen = &mut acc[2];
    *seen = 5;
    let b = task!(window(n - 1));
    taskwait!();
    {
        acc[2] += b % 97;
        acc.iter_mut().for_each(|x| *x %= 1009);
        acc.iter().sum()
    }
}
program!(Window = [window]);

fn seq_window(n: u64) -> u64 {
    let mut acc = [n, n * 2, 0];
    if n == 0 {
        return acc.iter().sum();
    }
    acc[2] = 5;
    let b = seq_window(n - 1);
    acc[2] += b % 97;
    acc.iter_mut().for_each(|x| *x %= 1009);
    acc.iter().sum()
}

#[test]
fn tail_that_borrows_and_mutates_locals() {
    for n in [0u64, 1, 9, 400] {
        check::<Window, _>(window, (n,), seq_window(n));
    }
}

// ---- queue hints on the spawn and the join ----

#[gtap::function]
fn hinted(n: u32, q: u32) -> u32 {
    if n == 0 {
        return 0;
    }
    let b = task!(queue = q % 2, hinted(n - 1, q + 1));
    taskwait!(queue = q);
    b + q
}
program!(Hinted = [hinted]);

#[test]
fn queue_hints_are_checked_in_order() {
    let mut rt = Runtime::cpu(Config {
        workers: 1,
        queues: 2,
        ..Config::default()
    })
    .unwrap();
    // Queues 0 and 1 only: the join of the level with q = 0 is fine, q = 1 too.
    assert_eq!(rt.run::<Hinted, _>(hinted, (1, 0)).unwrap(), 0);
    assert_eq!(rt.run::<Hinted, _>(hinted, (1, 1)).unwrap(), 1);
    // The join's hint 2 is out of range: the run fails with the hint named, and the
    // runtime runs the next program.
    match rt.run::<Hinted, _>(hinted, (5, 0)) {
        Err(Error::InvalidQueue {
            queue: 2,
            queues: 2,
            ..
        }) => {}
        other => panic!("expected InvalidQueue for queue 2, got {other:?}"),
    }
    assert_eq!(rt.run::<Hinted, _>(hinted, (2, 0)).unwrap(), 1);
}

// ---- a generic function ----

#[gtap::function]
fn wsum<T: Copy + Into<u64> + Send + Sync + 'static>(n: u32, w: T) -> u64 {
    if n == 0 {
        return 0;
    }
    let b = task!(wsum::<T>(n - 1, w));
    taskwait!();
    b + w.into() * u64::from(n)
}
program!(WSum = [wsum<u8>]);

#[test]
fn generic_function() {
    check::<WSum, _>(wsum::<u8>, (100, 3u8), 3 * 5050);
}

// ---- an attribute on the last spawn's `let`: the body keeps its statements ----

#[gtap::function]
fn attributed(n: u64) -> u64 {
    if n == 0 {
        return 7;
    }
    #[allow(unused_mut)]
    let mut b = task!(attributed(n - 1));
    taskwait!();
    b + 2
}
program!(Attributed = [attributed]);

#[test]
fn attribute_on_the_let() {
    check::<Attributed, _>(attributed, (10,), 27);
}
