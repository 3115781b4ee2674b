//! A long-lived program's runtimes on the CPU executor: two in one process used in turn,
//! runtimes on several threads at once, create and drop in a loop, an empty upload and a
//! task over it, a run that does nothing, and a panic followed by a right answer on the same
//! runtime. (That a `Runtime` cannot be dropped while a paused run's handle lives is the
//! compile-fail test `tests/ui/runtime/drop_while_paused.rs`.)

use gtap::{program, Config, Error, Runtime, Slice};

#[gtap::function]
pub fn fib(n: u32) -> u64 {
    if n < 2 {
        return n as u64;
    }
    let a = task!(fib(n - 1));
    let b = task!(fib(n - 2));
    taskwait!();
    a + b
}

/// The sum of `data`, a task per half.
#[gtap::function]
pub fn sum(data: Slice<u64>) -> u64 {
    if data.len() <= 4 {
        let mut s = 0;
        for i in 0..data.len() {
            s += data.get(i);
        }
        return s;
    }
    let (lo, hi) = data.split_at(data.len() / 2);
    let a = task!(sum(lo));
    let b = task!(sum(hi));
    taskwait!();
    a + b
}

/// Does nothing.
#[gtap::function]
pub fn nothing() {}

/// Reads one past the end of `data`.
#[gtap::function]
pub fn past_end(data: Slice<u64>) -> u64 {
    data.get(data.len())
}

program!(pub Fib = [fib]);
program!(pub Sum = [sum]);
program!(pub Nothing = [nothing]);
program!(pub PastEnd = [past_end]);

fn fib_seq(n: u32) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        (a, b) = (b, a + b);
    }
    a
}

fn cpu(workers: usize) -> Runtime {
    Runtime::cpu(Config {
        workers,
        ..Config::default()
    })
    .expect("a CPU runtime")
}

#[test]
fn two_runtimes_in_one_process_in_turn() {
    let mut a = cpu(2);
    let mut b = cpu(1);
    for n in 0..20 {
        assert_eq!(a.run::<Fib, _>(fib, (n,)).unwrap(), fib_seq(n));
        assert_eq!(b.run::<Fib, _>(fib, (n + 1,)).unwrap(), fib_seq(n + 1));
    }
}

#[test]
fn runtimes_on_several_threads_at_once() {
    let threads: Vec<_> = (0..4)
        .map(|t| {
            std::thread::spawn(move || {
                let mut rt = cpu(2);
                for i in 0..25 {
                    let n = 10 + (t + i) % 8;
                    assert_eq!(rt.run::<Fib, _>(fib, (n,)).unwrap(), fib_seq(n));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("a runtime thread");
    }
}

#[test]
fn create_and_drop_in_a_loop() {
    for i in 0..100u32 {
        let mut rt = cpu(1 + i as usize % 3);
        let data: Vec<u64> = (0..u64::from(i)).collect();
        let buf = rt.upload(&data).unwrap();
        assert_eq!(
            rt.run::<Sum, _>(sum, (buf.slice(),)).unwrap(),
            data.iter().sum::<u64>()
        );
    }
}

#[test]
fn an_empty_upload_and_a_run_that_does_nothing() {
    let mut rt = cpu(2);
    let empty = rt.upload::<u64>(&[]).unwrap();
    assert_eq!(empty.slice().len(), 0);
    assert_eq!(rt.run::<Sum, _>(sum, (empty.slice(),)).unwrap(), 0);
    assert!(rt.download(&empty).unwrap().is_empty());
    rt.run::<Nothing, _>(nothing, ()).unwrap();
    assert_eq!(rt.last_stats().map(|s| s.tasks), Some(1));
}

#[test]
fn a_panic_is_an_error_and_the_runtime_goes_on() {
    let mut rt = cpu(2);
    let buf = rt.upload(&[1u64, 2, 3]).unwrap();
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let r = rt.run::<PastEnd, _>(past_end, (buf.slice(),));
    std::panic::set_hook(hook);
    match r {
        Err(Error::TaskPanicked { task, message }) => {
            assert_eq!(task, "past_end");
            assert!(message.contains("out of bounds"), "{message}");
        }
        other => panic!("expected TaskPanicked, got {other:?}"),
    }
    assert_eq!(rt.run::<Fib, _>(fib, (20,)).unwrap(), fib_seq(20));
}
