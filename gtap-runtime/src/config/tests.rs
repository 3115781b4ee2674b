//! `Config::validate`: every range it checks, and the error that names the field.

use super::*;

#[test]
fn default_is_valid() {
    Config::default().validate().unwrap();
}

#[test]
fn each_field_is_named() {
    let cases: [(&str, Config); 25] = [
        (
            "sms",
            Config {
                sms: Some(0),
                ..Config::default()
            },
        ),
        (
            "devices",
            Config {
                devices: Devices::Partitions(1),
                ..Config::default()
            },
        ),
        (
            "devices",
            Config {
                devices: Devices::List(vec![0, 0]),
                ..Config::default()
            },
        ),
        (
            "devices",
            Config {
                devices: Devices::All,
                scheduler: Scheduler::SharedDeque,
                ..Config::default()
            },
        ),
        (
            "profile_records",
            Config {
                devices: Devices::Partitions(2),
                profile_records: 16,
                ..Config::default()
            },
        ),
        (
            "gpu_pool_bytes",
            Config {
                gpu_pool_bytes: Some(1024),
                ..Config::default()
            },
        ),
        (
            "release_below",
            Config {
                release_below: 0,
                ..Config::default()
            },
        ),
        (
            "gpu_clone_depth",
            Config {
                gpu_clone_depth: Some(256),
                ..Config::default()
            },
        ),
        (
            "release_other_below",
            Config {
                release_other_below: 0,
                ..Config::default()
            },
        ),
        (
            "release_shift",
            Config {
                release_shift: 32,
                ..Config::default()
            },
        ),
        (
            "release_all_below",
            Config {
                release_all_below: 1 << 24,
                ..Config::default()
            },
        ),
        (
            "idle_max_ns",
            Config {
                idle_max_ns: 255,
                ..Config::default()
            },
        ),
        (
            "idle_max_ns",
            Config {
                idle_max_ns: 2_000_000,
                ..Config::default()
            },
        ),
        (
            "steal_tries",
            Config {
                steal_tries: 0,
                ..Config::default()
            },
        ),
        (
            "inline_steps",
            Config {
                inline_steps: 57,
                ..Config::default()
            },
        ),
        (
            "profile_records",
            Config {
                scheduler: Scheduler::GlobalQueue,
                profile_records: 16,
                ..Config::default()
            },
        ),
        (
            "workers",
            Config {
                workers: 0,
                ..Config::default()
            },
        ),
        (
            "grid",
            Config {
                grid: Some(0),
                ..Config::default()
            },
        ),
        (
            "block",
            Config {
                block: 48,
                ..Config::default()
            },
        ),
        (
            "tasks_per_warp",
            Config {
                tasks_per_warp: 0,
                ..Config::default()
            },
        ),
        (
            "max_children",
            Config {
                max_children: 0,
                ..Config::default()
            },
        ),
        (
            "queues",
            Config {
                queues: 9,
                ..Config::default()
            },
        ),
        (
            "task_data_limit",
            Config {
                task_data_limit: 8,
                ..Config::default()
            },
        ),
        (
            "watchdog",
            Config {
                watchdog: Duration::ZERO,
                ..Config::default()
            },
        ),
        (
            "spread_after",
            Config {
                spread_after: Duration::from_secs(5),
                ..Config::default()
            },
        ),
    ];
    for (field, config) in cases {
        match config.validate() {
            Err(Error::InvalidConfig { field: f, .. }) => assert_eq!(f, field),
            other => panic!("{field}: expected InvalidConfig, got {other:?}"),
        }
    }
}

#[test]
fn queues_zero_message() {
    let e = Config {
        queues: 0,
        ..Config::default()
    }
    .validate()
    .unwrap_err();
    assert_eq!(
        e,
        Error::InvalidConfig {
            field: "queues",
            value: "0".into(),
            expected: "1..=8"
        }
    );
}

#[test]
fn clone_depth_follows_the_grid_unless_set() {
    let auto = Config::default();
    // 50,688 lanes (132 SMs of 12 warps) round up to 2^16.
    assert_eq!(auto.clone_depth_for(50_688), 16 + crate::CLONE_DEPTH_SLACK);
    assert_eq!(auto.clone_depth_for(32), 5 + crate::CLONE_DEPTH_SLACK);
    assert_eq!(auto.clone_depth_for(0), crate::CLONE_DEPTH_SLACK);
    let set = Config {
        gpu_clone_depth: Some(3),
        ..Config::default()
    };
    assert_eq!(set.clone_depth_for(50_688), 3);
    assert!(set.validate().is_ok());
}
