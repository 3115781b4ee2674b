//! The block-level and mixed-granularity programs on the CPU executor (blocks of one thread)
//! against their references, the references' block-size dependence, and the merge-path
//! helpers. The GPU runs (blocks of 32..256 threads) are checked by the host programs.

use gtap::{Backend, Config, Runtime};
use gtap_examples::{
    apps::{
        bfs::{bfs_block, bfs_mixed, BfsBlock, BfsMixed},
        binary_tree::{tree_block, BinaryTreeBlock},
        mergesort::{mergesort_mixed, MergeSortMixed},
        pruned_tree::{pruned_tree_block, PrunedTreeBlock},
        seq,
        spmv::{spmv_block, SpmvBlock},
    },
    inputs::{self, grid, random_matrix, rmat, Csr, Grid, Rmat},
    reference::{self, TreeWork},
    reference_irregular as refs,
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

/// A host handle to `v` (valid while `v` is).
fn table(v: &[f64]) -> gtap::Table<f64> {
    // SAFETY: the callers keep `v` alive, unwritten, while the table is in use.
    unsafe { gtap::Table::from_raw_parts(v.as_ptr(), v.len()) }
}

fn host_u32(v: &mut [u32]) -> gtap::Slice<u32> {
    // SAFETY: as for `host`.
    unsafe { gtap::Slice::from_raw_parts(v.as_mut_ptr(), v.len()) }
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

/// Depths from `source` by one of the block-level BFS programs (`threshold` `None`: `BfsBlock`).
fn bfs_tasks(rt: &mut Runtime, g: &Csr, source: u32, threshold: Option<u32>) -> Vec<u32> {
    let mut init = vec![refs::UNREACHED; g.n_rows as usize];
    init[source as usize] = 0;
    let offsets = rt.replicate(&g.offsets).unwrap();
    let targets = rt.replicate(&g.targets).unwrap();
    let depths = rt.upload(&init).unwrap();
    let (o, t, d) = (offsets.table(), targets.table(), depths.slice());
    match threshold {
        None => rt.run::<BfsBlock, _>(bfs_block, (source, 0, o, t, d)),
        Some(th) => rt.run::<BfsMixed, _>(bfs_mixed, (source, 0, th, o, t, d)),
    }
    .unwrap();
    rt.download(&depths).unwrap()
}

/// `a · x` by `SpmvBlock`.
fn spmv_tasks(rt: &mut Runtime, a: &Csr, x: &[f64]) -> Vec<f64> {
    let offsets = rt.upload(&a.offsets).unwrap();
    let cols = rt.upload(&a.targets).unwrap();
    let vals = rt.upload(&a.values_or_ones()).unwrap();
    let xb = rt.upload(x).unwrap();
    let y = rt.alloc_zeroed::<f64>(a.n_rows as usize).unwrap();
    let args = (
        0,
        a.n_rows,
        offsets.slice(),
        cols.slice(),
        vals.slice(),
        xb.slice(),
        y.slice(),
    );
    rt.run::<SpmvBlock, _>(spmv_block, args).unwrap();
    rt.download(&y).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn binary_tree_block_matches_reference(depth in 0u32..10, mem_ops in 0u32..40, compute_iters in 0u32..40, seed in any::<u64>()) {
        let mut rt = cpu();
        let values = reference::random_f64(1000, seed);
        let data = rt.replicate(&values).unwrap();
        let got = rt.run::<BinaryTreeBlock, _>(tree_block, (0, depth, 0, mem_ops, compute_iters, data.table())).unwrap();
        let work = TreeWork { mem_ops, compute_iters };
        let h = table(&values);
        let expected = reference::tree_block_seq(0, depth, 0, work, h, 1);
        prop_assert_eq!(got.to_bits(), expected.to_bits());
        prop_assert_eq!(reference::tree_block_rayon(0, depth, 0, work, h, 1).to_bits(), expected.to_bits());
        for b in [32, 64, 128, 256] {
            prop_assert_eq!(
                reference::tree_block_rayon(0, depth, 0, work, h, b).to_bits(),
                reference::tree_block_seq(0, depth, 0, work, h, b).to_bits()
            );
        }
    }

    #[test]
    fn pruned_tree_block_matches_reference(depth in 1u32..10, mem_ops in 0u32..40, compute_iters in 0u32..40, seed in any::<u64>()) {
        let mut rt = cpu();
        let values = reference::random_f64(1000, seed);
        let data = rt.replicate(&values).unwrap();
        let got = rt.run::<PrunedTreeBlock, _>(pruned_tree_block, (0, depth, 0, seed, mem_ops, compute_iters, data.table())).unwrap();
        let tasks = rt.last_stats().unwrap().tasks;
        let work = TreeWork { mem_ops, compute_iters };
        let h = table(&values);
        let (expected, nodes) = reference::pruned_tree_block_seq(0, depth, 0, seed, work, h, 1);
        prop_assert_eq!(got.to_bits(), expected.to_bits());
        prop_assert_eq!(tasks, nodes, "one task per existing node");
        // The same tree as the thread-level program's.
        prop_assert_eq!(reference::pruned_tree_seq(0, depth, 0, seed, mem_ops, compute_iters, h).1, nodes);
        let b64 = reference::pruned_tree_block_seq(0, depth, 0, seed, work, h, 64);
        prop_assert_eq!(reference::pruned_tree_block_rayon(0, depth, 0, seed, work, h, 64), b64);
    }

    #[test]
    fn spmv_block_matches_reference(rows in 1u32..2000, nnz_per_row in 0u32..80, seed in any::<u64>()) {
        let a = random_matrix(rows, nnz_per_row, seed).unwrap();
        let x = reference::random_f64(rows as usize, seed ^ 1);
        let mut rt = cpu();
        let got = bits(&spmv_tasks(&mut rt, &a, &x));
        prop_assert_eq!(&got, &bits(&refs::spmv_block_seq(&a, &x, 1)));
        // A block of one sums in CSR order: the thread-level reference.
        prop_assert_eq!(&got, &bits(&refs::spmv_seq(&a, &x)));
    }

    #[test]
    fn bfs_block_on_rmat_matches_sequential(scale in 1u32..13, edge_factor in 1u32..17, seed in any::<u64>(), src in any::<u32>()) {
        let g = rmat(&Rmat { edge_factor, ..Rmat::graph500(scale, seed) }).unwrap();
        let source = src % g.n_rows;
        let mut rt = cpu();
        let expected = refs::bfs_seq(&g, source);
        prop_assert_eq!(&bfs_tasks(&mut rt, &g, source, None), &expected);
        prop_assert_eq!(&bfs_tasks(&mut rt, &g, source, Some(4)), &expected);
    }

    #[test]
    fn bfs_block_on_grid_matches_sequential(width in 1u32..60, height in 1u32..60, frac in 0.0f64..0.4, seed in any::<u64>(), src in any::<u32>(), threshold in 0u32..6) {
        let full = u64::from(width - 1) * u64::from(height) + u64::from(width) * u64::from(height - 1);
        let g = grid(&Grid { width, height, removed_edges: (full as f64 * frac) as u64, seed }).unwrap();
        let source = src % g.n_rows;
        let mut rt = cpu();
        let expected = refs::bfs_seq(&g, source);
        prop_assert_eq!(&bfs_tasks(&mut rt, &g, source, None), &expected);
        prop_assert_eq!(&bfs_tasks(&mut rt, &g, source, Some(threshold)), &expected);
    }

    #[test]
    fn mergesort_mixed_sorts(keys in proptest::collection::vec(any::<u32>(), 0..3000), cutoff in 1usize..200, block_merge_min in 0usize..1000) {
        let mut rt = cpu();
        let data = rt.upload(&keys).unwrap();
        let tmp = rt.alloc_zeroed::<u32>(keys.len()).unwrap();
        rt.run::<MergeSortMixed, _>(mergesort_mixed, (data.slice(), tmp.slice(), cutoff, block_merge_min)).unwrap();
        prop_assert!(reference::is_sorted_permutation(&keys, &rt.download(&data).unwrap()));
    }

    /// Every thread of a block of `b` merging its share from its merge-path split gives
    /// exactly `seq::merge`'s output (what `merge_block` does on the GPU).
    #[test]
    fn merge_path_shares_equal_sequential_merge(mut x in proptest::collection::vec(0u32..50, 0..300), mut y in proptest::collection::vec(0u32..50, 0..300), b in 1usize..70) {
        x.sort_unstable();
        y.sort_unstable();
        let n = x.len() + y.len();
        let mut want = vec![0u32; n];
        let mut got = vec![u32::MAX; n];
        let (xs, ys) = (host_u32(&mut x), host_u32(&mut y));
        seq::merge(xs, ys, host_u32(&mut want));
        let out = host_u32(&mut got);
        let chunk = n.div_ceil(b);
        for t in 0..b {
            let start = (t * chunk).min(n);
            let end = (start + chunk).min(n);
            if start < end {
                let i = seq::merge_path(xs, ys, start);
                seq::merge_part(xs, ys, out, i, start - i, end - start);
            }
        }
        prop_assert_eq!(got, want);
    }
}

#[test]
fn block_references_of_one_thread_equal_the_cpu_executor() {
    let mut rt = cpu();
    let values = reference::random_f64(4096, 5);
    let data = rt.replicate(&values).unwrap();
    let (m, c) = (37, 19);
    let work = TreeWork {
        mem_ops: m,
        compute_iters: c,
    };
    let h = table(&values);
    let got = rt
        .run::<BinaryTreeBlock, _>(tree_block, (0, 12, 0, m, c, data.table()))
        .unwrap();
    assert_eq!(
        got.to_bits(),
        reference::tree_block_seq(0, 12, 0, work, h, 1).to_bits()
    );
    let got = rt
        .run::<PrunedTreeBlock, _>(pruned_tree_block, (0, 12, 0, 3, m, c, data.table()))
        .unwrap();
    assert_eq!(
        got.to_bits(),
        reference::pruned_tree_block_seq(0, 12, 0, 3, work, h, 1)
            .0
            .to_bits()
    );
    let a = random_matrix(3000, 50, 2).unwrap();
    let x = reference::random_f64(3000, 3);
    assert_eq!(
        bits(&spmv_tasks(&mut rt, &a, &x)),
        bits(&refs::spmv_block_seq(&a, &x, 1))
    );
}

#[test]
fn block_references_depend_on_the_block_size() {
    // With 32 threads the partials are added in the warp's butterfly order, not left to
    // right: the references must not collapse to the sequential sums.
    let a = random_matrix(2000, 64, 9).unwrap();
    let x = reference::random_f64(2000, 4);
    let seq_y = bits(&refs::spmv_seq(&a, &x));
    let block_y = bits(&refs::spmv_block_seq(&a, &x, 32));
    assert_ne!(
        seq_y, block_y,
        "SpMV with B = 32 equals the sequential sums"
    );
    assert_eq!(seq_y, bits(&refs::spmv_block_seq(&a, &x, 1)));

    let values = reference::random_f64(4096, 6);
    let h = table(&values);
    // Some node's value on 32 threads differs from its partials summed left to right.
    assert!(
        (0..64).any(|n| {
            let left_to_right: f64 = (0..32)
                .map(|t| seq::tree_block_partial(n, 256, 256, h, t, 32))
                .sum();
            left_to_right.to_bits() != reference::tree_block_node(n, 256, 256, h, 32).to_bits()
        }),
        "tree node with B = 32 equals the left-to-right sum for every node"
    );
    let work = TreeWork {
        mem_ops: 256,
        compute_iters: 256,
    };
    let trees = [1, 32, 64].map(|b| reference::tree_block_seq(0, 8, 0, work, h, b).to_bits());
    assert_ne!(trees[0], trees[1]);
    assert_ne!(trees[1], trees[2]);
}

#[test]
fn block_partials_cover_the_node_work() {
    // Over a block, the threads' loads are exactly k = 0..mem_ops, and the chain steps add up
    // to compute_iters.
    let values: Vec<f64> = (0..1000).map(f64::from).collect();
    let h = table(&values);
    for b in [1u32, 32, 64, 128] {
        let loads: f64 = (0..b)
            .map(|t| seq::tree_block_partial(5, 100, 0, h, t, b))
            .sum();
        let direct: f64 = (0..100)
            .map(|k| values[seq::block_load_index(5, k, 1000)])
            .sum();
        assert_eq!(loads, direct, "B = {b}");
    }
}

#[test]
fn bfs_block_reaches_a_high_degree_hub() {
    // A star with 1000 leaves and a path off the last one: the hub's list is longer than
    // B * CHUNK for B = 1, so it is split into chunk tasks.
    let mut coo = inputs::Coo::new(1010, 1010, false);
    for leaf in 1..1000 {
        coo.push(0, leaf, 0.0);
    }
    for v in 999..1009 {
        coo.push(v, v + 1, 0.0);
    }
    coo.mirror(|v| v);
    let g = coo.into_csr("star", false).unwrap();
    let mut rt = cpu();
    for threshold in [None, Some(0), Some(8), Some(5000)] {
        let depths = bfs_tasks(&mut rt, &g, 0, threshold);
        assert_eq!(depths, refs::bfs_seq(&g, 0), "{threshold:?}");
        assert_eq!(depths[1009], 11);
    }
}

/// Merges of more than `2 * MERGE_PART_KEYS` keys are split over several `merge_block`
/// parts and copied back by `copy_block` parts: 300,000 keys split the top merge in 4 and the
/// next in 2, with duplicates across part boundaries; the result is the sorted input, as is
/// the CPU baseline's (`mergesort_rayon_split`).
#[test]
fn mergesort_mixed_splits_large_merges() {
    use gtap_examples::apps::mergesort::{merge_part_range, merge_parts, MERGE_PART_KEYS};
    let n = 300_000;
    assert_eq!(merge_parts(n), 4);
    assert_eq!(merge_parts(n / 2), 2);
    assert_eq!(merge_parts(MERGE_PART_KEYS - 1), 1);
    // The parts tile the output exactly.
    let ranges: Vec<_> = (0..4).map(|p| merge_part_range(n, p, 4)).collect();
    assert_eq!(ranges.first().map(|r| r.0), Some(0));
    assert_eq!(ranges.last().map(|r| r.1), Some(n));
    assert!(ranges.windows(2).all(|w| w[0].1 == w[1].0));

    let keys: Vec<u32> = reference::random_keys(n, 5)
        .iter()
        .map(|k| k % 1000)
        .collect();
    let mut want = keys.clone();
    want.sort_unstable();
    let mut rt = cpu();
    let data = rt.upload(&keys).unwrap();
    let tmp = rt.alloc_zeroed::<u32>(n).unwrap();
    rt.run::<MergeSortMixed, _>(mergesort_mixed, (data.slice(), tmp.slice(), 128, 4096))
        .unwrap();
    assert_eq!(rt.download(&data).unwrap(), want);
    let mut v = keys;
    reference::mergesort_rayon_split(&mut v, 128, 4096);
    assert_eq!(v, want);
}
