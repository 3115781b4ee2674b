//! Every example on the CPU executor, on random inputs, against the sequential reference.

use gtap::{Backend, Config, Runtime};
use gtap_examples::{
    apps::{
        binary_tree::{tree, BinaryTree},
        cilksort::{cilksort, CilkSort},
        fib::{fib, fib_cutoff, Fib, FibCutoff},
        mergesort::{mergesort, MergeSort},
        nqueens::{nqueens, NQueens},
    },
    reference,
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

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn fib_matches_sequential(n in 0u32..22) {
        let mut rt = cpu();
        prop_assert_eq!(rt.run::<Fib, _>(fib, (n,)).unwrap(), reference::fib_seq(n));
    }

    #[test]
    fn fib_cutoff_matches_sequential(n in 0u32..24, cutoff in 0u32..12, epaq in any::<bool>()) {
        let mut rt = Runtime::new(Config { backend: Backend::Cpu, workers: 3, queues: 3, ..Config::default() }).unwrap();
        prop_assert_eq!(rt.run::<FibCutoff, _>(fib_cutoff, (n, cutoff, epaq)).unwrap(), reference::fib_seq(n));
    }

    #[test]
    fn nqueens_matches_sequential(n in 1u32..10, cutoff in 0u32..10) {
        let mut rt = cpu();
        let count = rt.upload(&[0u64]).unwrap();
        rt.run::<NQueens, _>(nqueens, (n, 0, 0, 0, 0, cutoff, 0, count.slice())).unwrap();
        prop_assert_eq!(rt.download(&count).unwrap()[0], reference::nqueens_seq(n));
    }

    #[test]
    fn mergesort_sorts(keys in proptest::collection::vec(any::<u32>(), 0..3000), cutoff in 1usize..200) {
        let mut rt = cpu();
        let data = rt.upload(&keys).unwrap();
        let tmp = rt.alloc_zeroed::<u32>(keys.len()).unwrap();
        rt.run::<MergeSort, _>(mergesort, (data.slice(), tmp.slice(), cutoff)).unwrap();
        let out = rt.download(&data).unwrap();
        prop_assert!(reference::is_sorted_permutation(&keys, &out));
    }

    #[test]
    fn cilksort_sorts(keys in proptest::collection::vec(any::<u32>(), 0..3000), sort_cutoff in 1usize..100, merge_cutoff in 1usize..100) {
        let mut rt = cpu();
        let data = rt.upload(&keys).unwrap();
        let tmp = rt.alloc_zeroed::<u32>(keys.len()).unwrap();
        rt.run::<CilkSort, _>(cilksort, (data.slice(), tmp.slice(), sort_cutoff, merge_cutoff, false)).unwrap();
        let out = rt.download(&data).unwrap();
        prop_assert!(reference::is_sorted_permutation(&keys, &out));
    }

    #[test]
    fn cilksort_epaq_sorts(keys in proptest::collection::vec(any::<u32>(), 0..3000), sort_cutoff in 1usize..100, merge_cutoff in 1usize..100) {
        let mut rt = Runtime::new(Config { backend: Backend::Cpu, workers: 3, queues: 3, ..Config::default() }).unwrap();
        let data = rt.upload(&keys).unwrap();
        let tmp = rt.alloc_zeroed::<u32>(keys.len()).unwrap();
        rt.run::<CilkSort, _>(cilksort, (data.slice(), tmp.slice(), sort_cutoff, merge_cutoff, true)).unwrap();
        prop_assert!(reference::is_sorted_permutation(&keys, &rt.download(&data).unwrap()));
    }

    #[test]
    fn binary_tree_matches_sequential(depth in 0u32..10, mem_ops in 0u32..16, compute_iters in 0u32..16, seed in any::<u64>()) {
        let mut rt = cpu();
        let values = reference::random_f64(1000, seed);
        let data = rt.replicate(&values).unwrap();
        let got = rt.run::<BinaryTree, _>(tree, (0, depth, 0, mem_ops, compute_iters, data.table())).unwrap();
        // SAFETY: `values` outlives this call.
        let host = unsafe { gtap::Table::from_raw_parts(values.as_ptr(), values.len()) };
        let expected = reference::tree_seq(0, depth, 0, mem_ops, compute_iters, host);
        prop_assert_eq!(got.to_bits(), expected.to_bits());
        // `--reference rayon` checks against this one: the same bits, not only close.
        let rayon = reference::tree_rayon(0, depth, 0, mem_ops, compute_iters, host);
        prop_assert_eq!(rayon.to_bits(), expected.to_bits());
    }
}

#[test]
fn rayon_baselines_agree_with_sequential() {
    assert_eq!(reference::fib_rayon(20), reference::fib_seq(20));
    assert_eq!(reference::nqueens_rayon(8, 3), reference::nqueens_seq(8));
    let keys = reference::random_keys(5000, 9);
    let mut a = keys.clone();
    reference::mergesort_rayon(&mut a, 64);
    assert!(reference::is_sorted_permutation(&keys, &a));
    let mut b = keys.clone();
    reference::cilksort_rayon(&mut b, 32, 64);
    assert!(reference::is_sorted_permutation(&keys, &b));
}

#[test]
fn nqueens_reference_knows_the_published_counts() {
    // OEIS A000170.
    let known = [
        1u64, 0, 0, 2, 10, 4, 40, 92, 352, 724, 2680, 14200, 73712, 365596,
    ];
    for (i, &k) in known.iter().enumerate() {
        assert_eq!(reference::nqueens_seq(i as u32 + 1), k, "n = {}", i + 1);
    }
}

#[test]
fn cilkmerge_with_cutoff_one_terminates() {
    // Two one-key inputs used to split into an identical child forever (found by proptest; the
    // CPU executor's record budget turned the runaway into PoolExhausted instead of an OOM kill).
    let keys = [
        996_919_627,
        2_827_551_526,
        801_902_881,
        122_096_437,
        3_833_917_234,
        5,
        9,
        1,
    ];
    let mut rt = cpu();
    let data = rt.upload(&keys).unwrap();
    let tmp = rt.alloc_zeroed::<u32>(keys.len()).unwrap();
    rt.run::<CilkSort, _>(cilksort, (data.slice(), tmp.slice(), 1, 1, false))
        .unwrap();
    assert!(reference::is_sorted_permutation(
        &keys,
        &rt.download(&data).unwrap()
    ));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 10, ..ProptestConfig::default() })]

    #[test]
    fn pruned_tree_matches_sequential(depth in 1u32..11, mem_ops in 0u32..8, compute_iters in 0u32..8, seed in any::<u64>()) {
        use gtap_examples::apps::pruned_tree::{pruned_tree, PrunedTree};
        let mut rt = cpu();
        let values = reference::random_f64(1000, seed);
        let data = rt.replicate(&values).unwrap();
        let got = rt.run::<PrunedTree, _>(pruned_tree, (0, depth, 0, seed, mem_ops, compute_iters, data.table())).unwrap();
        let tasks = rt.last_stats().unwrap().tasks;
        // SAFETY: `values` outlives these calls.
        let host = unsafe { gtap::Table::from_raw_parts(values.as_ptr(), values.len()) };
        let (expected, nodes) = reference::pruned_tree_seq(0, depth, 0, seed, mem_ops, compute_iters, host);
        prop_assert_eq!(got.to_bits(), expected.to_bits());
        prop_assert_eq!(tasks, nodes, "one task per existing node");
        prop_assert_eq!(reference::pruned_tree_rayon(0, depth, 0, seed, mem_ops, compute_iters, host), (expected, nodes));
    }
}

#[test]
fn pruned_tree_thins_with_depth() {
    use gtap_examples::apps::pruned_tree::child_kept;
    // P(kept) = 1 - d/D: always at depth 0, never at depth D, about half at D/2.
    let (d, n) = (20u32, 20_000u64);
    assert!((0..n).all(|i| child_kept(7, i, 0, 0, d)));
    assert!((0..n).all(|i| !child_kept(7, i, 1, d, d)));
    let half = (0..n).filter(|&i| child_kept(7, i, 2, d / 2, d)).count() as f64 / n as f64;
    assert!((half - 0.5).abs() < 0.02, "kept fraction at D/2: {half}");
}

#[test]
fn nqueens_epaq_matches_sequential() {
    let mut rt = Runtime::new(Config {
        backend: Backend::Cpu,
        workers: 3,
        queues: 2,
        ..Config::default()
    })
    .unwrap();
    for (n, cutoff) in [(6, 2), (8, 3), (9, 9), (10, 4)] {
        let count = rt.upload(&[0u64]).unwrap();
        rt.run::<NQueens, _>(nqueens, (n, 0, 0, 0, 0, cutoff, 1, count.slice()))
            .unwrap();
        assert_eq!(
            rt.download(&count).unwrap()[0],
            reference::nqueens_seq(n),
            "n {n}"
        );
    }
    // With one queue the hint 1 is out of range: a typed error, not a wrong count.
    let mut one = cpu();
    let count = one.upload(&[0u64]).unwrap();
    let err = one
        .run::<NQueens, _>(nqueens, (8, 0, 0, 0, 0, 3, 1, count.slice()))
        .unwrap_err();
    assert!(
        matches!(
            err,
            gtap::Error::InvalidQueue {
                queue: 1,
                queues: 1,
                ..
            }
        ),
        "{err:?}"
    );
}

#[test]
fn start_on_the_cpu_finishes_and_run_with_refuses_a_pause_token() {
    use gtap::{Error, Outcome, PauseToken, RunOptions, SmLimit};
    let mut rt = cpu();
    let pause = PauseToken::new();
    pause.pause();
    let limit = SmLimit::new();
    limit.set(Some(1));
    let options = RunOptions {
        pause: Some(pause),
        sms: Some(limit),
        ..RunOptions::default()
    };
    // The CPU executor never pauses: the run finishes with the right answer.
    match rt.start::<Fib, _>(fib, (20,), &options) {
        Ok(Outcome::Done(v)) => assert_eq!(v, reference::fib_seq(20)),
        Ok(Outcome::Paused(_)) => panic!("the CPU executor paused"),
        Err(e) => panic!("start failed: {e}"),
    }
    // A pause token needs Runtime::start, which returns the handle to resume with.
    match rt.run_with::<Fib, _>(fib, (20,), &options) {
        Err(e @ Error::Unsupported { .. }) => {
            assert!(e.to_string().contains("Runtime::start"), "{e}");
        }
        other => panic!("run_with with a pause token: {other:?}"),
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]

    /// The leaf merge of cilksort and mergesort (its element-by-element head and tail and its
    /// four-at-a-time middle, at every alignment of the output) against the sorted inputs.
    #[test]
    fn seq_merge_merges(
        mut x in proptest::collection::vec(0u32..64, 0..300),
        mut y in proptest::collection::vec(0u32..64, 0..300),
        offset in 0usize..4,
    ) {
        x.sort_unstable();
        y.sort_unstable();
        let mut expected: Vec<u32> = x.iter().chain(&y).copied().collect();
        expected.sort_unstable();
        let n = x.len() + y.len();
        let mut buf = vec![u32::MAX; offset + n];
        // SAFETY: the vectors outlive the slices, which do not overlap.
        let (xs, ys, out) = unsafe {
            (
                gtap::Slice::from_raw_parts(x.as_mut_ptr(), x.len()),
                gtap::Slice::from_raw_parts(y.as_mut_ptr(), y.len()),
                gtap::Slice::from_raw_parts(buf.as_mut_ptr().add(offset), n),
            )
        };
        gtap_examples::apps::seq::merge(xs, ys, out);
        prop_assert_eq!(&buf[offset..], &expected[..]);
    }
}

/// A handle to `v` for the sequential reference.
fn table_of(v: &[f64]) -> gtap::Table<f64> {
    // SAFETY: the callers keep `v` alive and unwritten while the handle is used.
    unsafe { gtap::Table::from_raw_parts(v.as_ptr(), v.len()) }
}

#[test]
fn replicated_tables_are_read_by_tasks_and_refilled_in_place() {
    let mut rt = cpu();
    let (depth, mem_ops, compute_iters) = (9, 24, 3);
    let sum = |rt: &mut Runtime, t: &gtap::Replicated<f64>| {
        rt.run::<BinaryTree, _>(tree, (0, depth, 0, mem_ops, compute_iters, t.table()))
            .unwrap()
            .to_bits()
    };
    let expected =
        |v: &[f64]| reference::tree_seq(0, depth, 0, mem_ops, compute_iters, table_of(v)).to_bits();
    let a = reference::random_f64(1000, 1);
    let b = reference::random_f64(5000, 2);
    let mut t = rt.replicate(&a).unwrap();
    assert_eq!((t.len(), t.copies(), t.memory()), (1000, 1, "host"));
    assert_eq!(sum(&mut rt, &t), expected(&a));
    // Smaller data reuses the allocation; larger data moves it. The tasks read the new
    // elements either way (the checksum depends on every one the tree loads).
    let first = t.table();
    rt.replicate_into(&mut t, &b[..700]).unwrap();
    assert_eq!(t.len(), 700);
    assert_eq!(t.table().len(), 700);
    assert_eq!(sum(&mut rt, &t), expected(&b[..700]));
    assert_ne!(
        expected(&b[..700]),
        expected(&a),
        "the two tables give different sums"
    );
    let _ = first;
    rt.replicate_into(&mut t, &b).unwrap();
    assert_eq!(t.len(), 5000);
    assert_eq!(sum(&mut rt, &t), expected(&b));
    let empty = rt.replicate::<f64>(&[]).unwrap();
    assert!(empty.is_empty() && empty.table().is_empty());
}

#[test]
fn a_table_read_out_of_bounds_is_a_task_panic() {
    use gtap_examples::apps::faults::{table_sum, TableSum};
    let mut rt = cpu();
    let t = rt.replicate(&[1u64, 2, 3]).unwrap();
    assert_eq!(
        rt.run::<TableSum, _>(table_sum, (t.table(), 0, 3)).unwrap(),
        6
    );
    let err = rt
        .run::<TableSum, _>(table_sum, (t.table(), 1, 4))
        .unwrap_err();
    assert!(
        matches!(&err, gtap::Error::TaskPanicked { task, message, .. } if task.contains("table_sum") && message.contains("Table::get index out of bounds")),
        "{err}"
    );
    assert_eq!(
        rt.run::<TableSum, _>(table_sum, (t.table(), 1, 3)).unwrap(),
        5,
        "the runtime is usable after the panic"
    );
}
