//! BFS and SpMV on the CPU executor, on generated graphs and matrices and on the committed
//! files in `tests/data/`, against the sequential references (exact equality: BFS depths are
//! unique, and SpMV sums each row in the same order).

use gtap::{Backend, Config, Runtime};
use gtap_examples::{
    apps::{
        bfs::{bfs_visit, Bfs},
        spmv::{spmv, Spmv},
    },
    inputs::{self, grid, random_matrix, rmat, Csr, Grid, LoadOptions, Rmat},
    reference, reference_irregular as refs,
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

fn data(name: &str) -> Csr {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name);
    inputs::load(path, LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"))
}

/// Depths from `source` computed by the `Bfs` program.
fn bfs_tasks(rt: &mut Runtime, g: &Csr, source: u32) -> Vec<u32> {
    let mut init = vec![refs::UNREACHED; g.n_rows as usize];
    init[source as usize] = 0;
    let offsets = rt.replicate(&g.offsets).unwrap();
    let targets = rt.replicate(&g.targets).unwrap();
    let depths = rt.upload(&init).unwrap();
    rt.run::<Bfs, _>(
        bfs_visit,
        (source, 0, offsets.table(), targets.table(), depths.slice()),
    )
    .unwrap();
    rt.download(&depths).unwrap()
}

/// `a · x` computed by the `Spmv` program.
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
    rt.run::<Spmv, _>(spmv, args).unwrap();
    rt.download(&y).unwrap()
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    #[test]
    fn bfs_on_rmat_matches_sequential(scale in 1u32..13, edge_factor in 1u32..17, seed in any::<u64>(), symmetrize in any::<bool>(), src in any::<u32>()) {
        let g = rmat(&Rmat { edge_factor, symmetrize, ..Rmat::graph500(scale, seed) }).unwrap();
        let source = src % g.n_rows;
        let mut rt = cpu();
        prop_assert_eq!(bfs_tasks(&mut rt, &g, source), refs::bfs_seq(&g, source));
    }

    #[test]
    fn bfs_on_grid_matches_sequential(width in 1u32..80, height in 1u32..80, frac in 0.0f64..0.4, seed in any::<u64>(), src in any::<u32>()) {
        let full = u64::from(width - 1) * u64::from(height) + u64::from(width) * u64::from(height - 1);
        let g = grid(&Grid { width, height, removed_edges: (full as f64 * frac) as u64, seed }).unwrap();
        let source = src % g.n_rows;
        let mut rt = cpu();
        prop_assert_eq!(bfs_tasks(&mut rt, &g, source), refs::bfs_seq(&g, source));
    }

    #[test]
    fn spmv_on_random_matrices_is_bitwise_sequential(rows in 1u32..3000, nnz_per_row in 0u32..40, seed in any::<u64>()) {
        let a = random_matrix(rows, nnz_per_row, seed).unwrap();
        let x = reference::random_f64(rows as usize, seed ^ 1);
        let mut rt = cpu();
        prop_assert_eq!(bits(&spmv_tasks(&mut rt, &a, &x)), bits(&refs::spmv_seq(&a, &x)));
    }
}

#[test]
fn bfs_reaches_a_high_degree_hub_through_chunks() {
    // A star with 1000 leaves, then a path hanging off the last leaf: the hub's list is split
    // into chunk tasks, and depths past the star still come out exact.
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
    let depths = bfs_tasks(&mut rt, &g, 0);
    assert_eq!(depths, refs::bfs_seq(&g, 0));
    assert_eq!(depths[1009], 11);
    assert_eq!(bfs_tasks(&mut rt, &g, 1009), refs::bfs_seq(&g, 1009));
}

#[test]
fn bfs_on_committed_graphs() {
    let mut rt = cpu();
    let pattern = data("pattern.mtx");
    let depths = bfs_tasks(&mut rt, &pattern, 0);
    assert_eq!(depths, [0, 1, 2, 3, u32::MAX, u32::MAX, u32::MAX, u32::MAX]);
    let snap = data("graph.txt");
    for source in 0..snap.n_rows {
        assert_eq!(
            bfs_tasks(&mut rt, &snap, source),
            refs::bfs_seq(&snap, source),
            "source {source}"
        );
    }
}

#[test]
fn spmv_on_committed_matrices() {
    let mut rt = cpu();
    for name in [
        "general.mtx",
        "symmetric.mtx",
        "pattern.mtx",
        "integer.mtx",
        "skew.mtx",
    ] {
        let a = data(name);
        let x = reference::random_f64(a.n_cols as usize, 3);
        assert_eq!(
            bits(&spmv_tasks(&mut rt, &a, &x)),
            bits(&refs::spmv_seq(&a, &x)),
            "{name}"
        );
    }
    let a = data("general.mtx");
    let y = spmv_tasks(&mut rt, &a, &[1.0, 2.0, 3.0, 4.0, 5.0]);
    assert_eq!(y, [1.5 - 8.0, 3.25 * 3.0, 200.0, -15.0 + 4.0]);
}

#[test]
fn rayon_baselines_agree() {
    let g = rmat(&Rmat::graph500(10, 3)).unwrap();
    assert_eq!(refs::bfs_rayon(&g, 0), refs::bfs_seq(&g, 0));
    let a = random_matrix(5000, 9, 4).unwrap();
    let x = reference::random_f64(5000, 5);
    assert_eq!(
        bits(&refs::spmv_rayon(&a, &x)),
        bits(&refs::spmv_seq(&a, &x))
    );
    let depths = refs::bfs_seq(&g, 0);
    let reached: u64 = (0..g.n_rows)
        .filter(|&v| depths[v as usize] != u32::MAX)
        .map(|v| u64::from(g.degree(v)))
        .sum();
    assert_eq!(refs::traversed_edges(&g, &depths), reached);
}
