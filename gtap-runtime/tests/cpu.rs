//! The CPU executor against sequential references, and its errors.

mod common;

use common::*;
use gtap_runtime::{Backend, Config, Error, Runtime};

fn runtime(workers: usize) -> Runtime {
    Runtime::cpu(Config {
        workers,
        ..Config::default()
    })
    .unwrap()
}

#[test]
fn fib_matches_sequential() {
    for inline in [true, false] {
        for workers in [1, 2, 4] {
            let mut rt = Runtime::cpu(Config {
                workers,
                cpu_inline_children: inline,
                ..Config::default()
            })
            .unwrap();
            for n in [0, 1, 2, 3, 10, 17, 22] {
                assert_eq!(
                    rt.run::<Fib, _>(fib, (n,)).unwrap(),
                    fib_seq(n),
                    "fib({n}), {workers} workers, inline {inline}"
                );
            }
            let stats = rt.last_stats().unwrap();
            assert_eq!(stats.backend, "cpu");
            assert_eq!(stats.workers, workers);
            // fib(22) makes 2 * fib(23) - 1 tasks; a joining task whose children are records
            // takes two steps, one whose children ran as calls takes one.
            let tasks = 2 * fib_seq(23) - 1;
            let joining = (tasks - 1) / 2;
            assert_eq!(stats.tasks, tasks);
            if inline {
                assert!(
                    (tasks..=tasks + joining).contains(&stats.steps),
                    "{} steps for {tasks} tasks",
                    stats.steps
                );
            } else {
                assert_eq!(stats.steps, tasks + joining);
            }
            if inline && workers == 1 {
                assert_eq!(stats.steps, tasks, "one worker runs every child as a call");
            }
        }
    }
}

#[test]
fn free_fn_runs_on_the_cpu() {
    assert_eq!(gtap_runtime::run::<Fib, _>(fib, (15,)).unwrap(), 610);
}

#[test]
fn nqueens_detached_counter() {
    let mut rt = runtime(3);
    for n in 1..=9 {
        let count = rt.alloc_zeroed::<u64>(1).unwrap();
        rt.run::<NQueens, _>(nqueens, (n, 0, 0, 0, 0, count.slice()))
            .unwrap();
        assert_eq!(
            rt.download(&count).unwrap(),
            vec![nqueens_seq(n, 0, 0, 0, 0)],
            "n = {n}"
        );
    }
}

#[test]
fn join_waits_for_detached_subtrees() {
    let mut rt = runtime(4);
    for (width, depth, len) in [(1, 0, 1), (2, 6, 100), (3, 5, 1000), (5, 3, 4097)] {
        let counter = rt.alloc_zeroed::<u64>(1).unwrap();
        let data = rt.alloc_zeroed::<u64>(len).unwrap();
        let got = rt
            .run::<Subtree, _>(subtree, (counter.slice(), data.slice(), width, depth))
            .unwrap();
        let sprays: u64 = (0..=depth).map(|k| u64::from(width).pow(k)).sum();
        let sum: u64 = (0..len as u64).map(|i| i * 3).sum();
        assert_eq!(got, sprays + sum, "width {width}, depth {depth}, len {len}");
        let filled = rt.download(&data).unwrap();
        assert!(filled.iter().enumerate().all(|(i, &v)| v == i as u64 * 3));
    }
}

#[test]
fn panic_fails_the_run_and_the_runtime_recovers() {
    let mut rt = runtime(3);
    for round in 0..5 {
        match rt.run::<Boom, _>(boom, (18, 5)) {
            Err(Error::TaskPanicked { task, message }) => {
                assert_eq!(task, "boom");
                assert_eq!(message, "boom at 5");
            }
            other => panic!("round {round}: expected TaskPanicked, got {other:?}"),
        }
        // `at` out of reach: no panic, fib's values.
        assert_eq!(
            rt.run::<Boom, _>(boom, (18, 99)).unwrap(),
            fib_seq(18),
            "round {round}"
        );
        assert_eq!(
            rt.run::<Fib, _>(fib, (12,)).unwrap(),
            fib_seq(12),
            "round {round}"
        );
    }
}

#[test]
fn queue_hints_are_checked() {
    let mut rt = Runtime::cpu(Config {
        workers: 2,
        queues: 2,
        ..Config::default()
    })
    .unwrap();
    assert_eq!(rt.run::<Hinted, _>(hinted, (1, false)).unwrap(), 2);
    assert_eq!(rt.run::<Hinted, _>(hinted, (1, true)).unwrap(), 2);
    for on_wait in [false, true] {
        assert_eq!(
            rt.run::<Hinted, _>(hinted, (2, on_wait)),
            Err(Error::InvalidQueue {
                task: "hinted",
                queue: 2,
                queues: 2
            }),
            "on_wait = {on_wait}"
        );
        assert_eq!(
            rt.run::<Hinted, _>(hinted, (u32::MAX, on_wait)),
            Err(Error::InvalidQueue {
                task: "hinted",
                queue: u32::MAX,
                queues: 2
            })
        );
    }
    assert_eq!(
        rt.run::<Hinted, _>(hinted, (0, false)).unwrap(),
        2,
        "usable after errors"
    );
}

#[test]
fn frame_limit_is_checked() {
    let mut rt = runtime(2);
    match rt.run::<Big, _>(big, (7,)) {
        Err(Error::FrameTooLarge {
            task: "big",
            size,
            limit: 256,
        }) => {
            assert_eq!(size, size_of::<BigFrame>());
        }
        other => panic!("expected FrameTooLarge, got {other:?}"),
    }
    let mut rt = Runtime::cpu(Config {
        workers: 2,
        task_data_limit: 1024,
        ..Config::default()
    })
    .unwrap();
    assert_eq!(rt.run::<Big, _>(big, (7,)).unwrap(), 7 * 64 + 1);
}

#[test]
fn child_limit_is_checked() {
    let mut rt = Runtime::cpu(Config {
        workers: 2,
        max_children: 8,
        ..Config::default()
    })
    .unwrap();
    assert_eq!(rt.run::<Wide, _>(wide, (8,)).unwrap(), 8);
    assert_eq!(
        rt.run::<Wide, _>(wide, (9,)),
        Err(Error::PoolExhausted {
            limit: "Config::max_children",
            capacity: 8
        })
    );
    assert_eq!(rt.run::<Wide, _>(wide, (0,)).unwrap(), 0);
}

#[test]
fn record_budget_is_checked() {
    // 1 MiB over 2 workers of 64-byte-or-larger records: at most 8192 live records per worker.
    let mut rt = Runtime::cpu(Config {
        workers: 2,
        max_children: 1 << 20,
        cpu_pool_bytes: 1 << 20,
        ..Config::default()
    })
    .unwrap();
    assert_eq!(
        rt.run::<Wide, _>(wide, (100_000,)),
        Err(Error::PoolExhausted {
            limit: "Config::cpu_pool_bytes",
            capacity: 1 << 20
        })
    );
    assert_eq!(rt.run::<Wide, _>(wide, (1000,)).unwrap(), 1000);
}

#[test]
fn entry_must_be_in_the_program() {
    let mut rt = runtime(1);
    assert!(rt.last_stats().is_none());
    match rt.run::<Fib, _>(leaf, ()) {
        Err(Error::UnknownKind {
            task: "leaf",
            program,
            ..
        }) => assert!(program.ends_with("Fib")),
        other => panic!("expected UnknownKind, got {other:?}"),
    }
}

#[test]
fn invalid_config_names_the_field() {
    let err = Runtime::new(Config {
        queues: 0,
        ..Config::default()
    })
    .unwrap_err();
    assert_eq!(
        err,
        Error::InvalidConfig {
            field: "queues",
            value: "0".into(),
            expected: "1..=8"
        }
    );
    assert!(err.to_string().contains("Config::queues"), "{err}");
    let err = Runtime::cpu(Config {
        block: 33,
        ..Config::default()
    })
    .unwrap_err();
    assert!(
        matches!(err, Error::InvalidConfig { field: "block", .. }),
        "{err:?}"
    );
    for (config, field) in [
        (
            Config {
                max_registers: Some(8),
                ..Config::default()
            },
            "max_registers",
        ),
        (
            Config {
                cpu_pool_bytes: 4096,
                ..Config::default()
            },
            "cpu_pool_bytes",
        ),
        (
            Config {
                tasks_per_warp: 0,
                ..Config::default()
            },
            "tasks_per_warp",
        ),
    ] {
        match Runtime::cpu(config) {
            Err(Error::InvalidConfig { field: f, .. }) => assert_eq!(f, field),
            other => panic!("{field}: expected InvalidConfig, got {:?}", other.err()),
        }
    }
}

#[test]
fn backend_selection() {
    let rt = Runtime::new(Config::default()).unwrap();
    assert_eq!(rt.backend_name(), "cpu");
    let err = Runtime::new(Config {
        backend: Backend::Gpu,
        ..Config::default()
    })
    .unwrap_err();
    assert!(matches!(err, Error::NoGpu { .. }), "{err:?}");
    let cpu = Config {
        backend: Backend::Cpu,
        ..Config::default()
    };
    assert_eq!(
        Runtime::with_ptx(cpu, "// not loaded")
            .unwrap()
            .backend_name(),
        "cpu"
    );
    if !gtap_runtime::gpu_available() {
        // Auto with a PTX module but no usable GPU falls back to the CPU; Gpu is an error.
        let rt = Runtime::with_ptx(Config::default(), "// not loaded").unwrap();
        assert_eq!(rt.backend_name(), "cpu");
        let gpu = Config {
            backend: Backend::Gpu,
            ..Config::default()
        };
        let err = Runtime::with_ptx(gpu, "// not loaded").unwrap_err();
        assert!(
            err.to_string().contains("no CUDA driver or no CUDA device"),
            "{err}"
        );
    }
}

#[test]
fn upload_download_round_trip() {
    let rt = runtime(1);
    let data: Vec<u32> = (0..10_000).map(|i| i * 7 + 1).collect();
    let buf = rt.upload(&data).unwrap();
    assert_eq!(buf.len(), data.len());
    assert_eq!(buf.memory(), "host");
    assert_eq!(rt.download(&buf).unwrap(), data);
    let pairs = rt.upload(&[(1u8, 2.5f64), (3, 4.5)]).unwrap();
    assert_eq!(rt.download(&pairs).unwrap(), vec![(1, 2.5), (3, 4.5)]);
    let empty = rt.alloc_zeroed::<[u16; 3]>(0).unwrap();
    assert!(rt.download(&empty).unwrap().is_empty());
}

#[test]
fn buffers_are_refilled_in_place_across_runs() {
    let mut rt = runtime(3);
    let mut counter = rt.upload(&[7u64]).unwrap();
    let mut data = rt.alloc_zeroed::<u64>(4097).unwrap();
    let mut out = vec![0u64; 4097];
    let (width, depth) = (2, 3);
    let sprays: u64 = (0..=depth).map(|k| u64::from(width).pow(k)).sum();
    for len in [4097usize, 100, 4097, 1, 0] {
        rt.upload_into(&mut data, &vec![u64::MAX; len]).unwrap();
        rt.upload_into(&mut counter, &[0]).unwrap();
        assert_eq!(
            (data.len(), data.capacity()),
            (len, 4097),
            "reused, not reallocated"
        );
        let got = rt
            .run::<Subtree, _>(subtree, (counter.slice(), data.slice(), width, depth))
            .unwrap();
        let sum: u64 = (0..len as u64).map(|i| i * 3).sum();
        assert_eq!(got, sprays + sum, "len {len}: the counter was reset to 0");
        rt.download_into(&data, &mut out[..len]).unwrap();
        assert!(
            out[..len]
                .iter()
                .enumerate()
                .all(|(i, &v)| v == i as u64 * 3),
            "len {len}"
        );
    }
    let larger: Vec<u64> = (0..5000).collect();
    rt.upload_into(&mut data, &larger).unwrap();
    assert_eq!((data.len(), data.capacity()), (5000, 5000), "grown to fit");
    assert_eq!(rt.download(&data).unwrap(), larger);
    let err = rt.download_into(&data, &mut out[..3]).unwrap_err();
    assert_eq!(
        err,
        Error::LengthMismatch {
            what: "Runtime::download_into",
            buffer: 5000,
            slice: 3
        }
    );
}
