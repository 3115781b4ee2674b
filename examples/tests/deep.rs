//! The deep workloads on the CPU executor with `Config::default()` (no pool tuning): the chain
//! of dependent tasks and UTS binomial trees, against the sequential references, and the
//! references against each other and against the recorded shapes of the named trees.

use gtap::{Backend, Config, Runtime};
use gtap_examples::{
    apps::{
        chain::{chain, mix, Chain},
        uts::{uts, Uts, UtsParams},
    },
    reference_deep::{
        chain_rayon, chain_seq, deep_pool, uts_rayon, uts_seq, UTS_MEDIUM, UTS_SMALL,
    },
};
use proptest::prelude::*;

fn cpu() -> Runtime {
    let config = Config {
        backend: Backend::Cpu,
        workers: 4,
        ..Config::default()
    };
    Runtime::new(config).expect("a CPU runtime with 4 workers")
}

/// Runs `uts` on `rt` and returns the count and the number of tasks it ran.
fn uts_tasks(rt: &mut Runtime, p: UtsParams, seed: u64) -> (u64, u64) {
    let nodes = rt.run::<Uts, _>(uts, (p, seed, 0, 0, 1)).unwrap();
    (nodes, rt.last_stats().unwrap().tasks)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn chain_matches_sequential(n in 0u32..3000, x in any::<u64>()) {
        let mut rt = cpu();
        prop_assert_eq!(rt.run::<Chain, _>(chain, (n, x)).unwrap(), chain_seq(n, x));
        prop_assert_eq!(rt.last_stats().unwrap().tasks, u64::from(n) + 1, "one task per level");
    }

    #[test]
    fn uts_matches_sequential(
        seed in any::<u64>(),
        b0 in 1u32..40,
        m in 1u32..7,
        qm in 0.0f64..0.97,
        work in 0u32..3,
    ) {
        let p = UtsParams::new(b0, m, qm / f64::from(m), work);
        let expected = uts_seq(&p, seed);
        let mut rt = cpu();
        let (nodes, tasks) = uts_tasks(&mut rt, p, seed);
        prop_assert_eq!(nodes, expected.nodes);
        prop_assert_eq!(tasks, p.tasks(expected.nodes));
        prop_assert_eq!(uts_rayon(&p, seed), expected.nodes);
    }
}

#[test]
fn chain_depends_on_every_level_and_their_order() {
    assert_eq!(chain_seq(0, 42), 42);
    assert_ne!(chain_seq(5, 42), chain_seq(5, 43));
    assert_ne!(chain_seq(5, 42), chain_seq(4, 42));
    assert_ne!(mix(mix(7, 1), 2), mix(mix(7, 2), 1));
}

#[test]
fn chain_of_100k_runs_with_the_default_config() {
    let n = 100_000;
    let mut rt = Runtime::new(Config {
        backend: Backend::Cpu,
        ..Config::default()
    })
    .unwrap();
    assert_eq!(rt.run::<Chain, _>(chain, (n, 1)).unwrap(), chain_seq(n, 1));
    let deep = deep_pool(u64::from(n));
    assert_eq!(deep.install(|| chain_rayon(n, 1)), chain_seq(n, 1));
}

#[test]
fn uts_without_grandchildren_is_the_root_and_its_children() {
    let p = UtsParams::new(17, 4, 0.0, 0);
    let c = uts_seq(&p, 9);
    assert_eq!((c.nodes, c.max_depth), (18, 1));
    assert_eq!(uts_tasks(&mut cpu(), p, 9), (18, 18 + 15));
}

#[test]
fn uts_work_does_not_change_the_tree() {
    let (a, b) = (UTS_SMALL.params(0), UTS_SMALL.params(5));
    assert_eq!(uts_seq(&a, UTS_SMALL.seed), uts_seq(&b, UTS_SMALL.seed));
}

#[test]
fn named_uts_trees_have_their_recorded_shapes() {
    for t in [UTS_SMALL, UTS_MEDIUM] {
        let c = uts_seq(&t.params(0), t.seed);
        assert_eq!((c.nodes, c.max_depth), (t.nodes, t.max_depth), "{}", t.name);
    }
}

#[test]
fn small_uts_tree_on_the_default_config() {
    let t = UTS_SMALL;
    let p = t.params(0);
    let mut rt = Runtime::new(Config {
        backend: Backend::Cpu,
        ..Config::default()
    })
    .unwrap();
    assert_eq!(uts_tasks(&mut rt, p, t.seed), (t.nodes, p.tasks(t.nodes)));
    let deep = deep_pool(u64::from(t.max_depth));
    assert_eq!(deep.install(|| uts_rayon(&p, t.seed)), t.nodes);
}

/// Runs one of the deep binaries on the CPU executor; returns its exit code and output.
fn run_bin(exe: &str, args: &[&str]) -> (Option<i32>, String) {
    let o = std::process::Command::new(exe)
        .args(args)
        .arg("--cpu")
        .output()
        .expect("the binary runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code(), text)
}

#[test]
fn chain_and_uts_binaries_check_their_results_and_refuse_bad_trees() {
    let (chain_bin, uts_bin) = (env!("CARGO_BIN_EXE_chain"), env!("CARGO_BIN_EXE_uts"));
    let (code, text) = run_bin(chain_bin, &["5000", "7"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("chain: OK") && text.contains("us per step"),
        "{text}"
    );
    let (code, text) = run_bin(uts_bin, &["1e5"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("uts: OK") && text.contains("110047 nodes"),
        "{text}"
    );
    let (code, text) = run_bin(uts_bin, &["30", "4", "0.2", "5", "3"]);
    assert_eq!(code, Some(0), "{text}");
    // q * m >= 1 may never end; an unknown name is neither a tree nor parameters.
    assert_eq!(run_bin(uts_bin, &["30", "4", "0.25", "5"]).0, Some(2));
    assert_eq!(run_bin(uts_bin, &["1e8"]).0, Some(2));
    assert_eq!(run_bin(chain_bin, &["0"]).0, Some(2));
}
