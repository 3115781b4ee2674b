//! Baselines for the irregular examples (BFS, SpMV): sequential versions every run is checked
//! against, and rayon versions to time against.
//!
//! Invariants the checks rely on: [`bfs_seq`] gives the exact hop distance from the source
//! (`u32::MAX` for unreachable vertices), which the asynchronous task BFS must reproduce
//! exactly; [`spmv_seq`] sums each row's products in CSR order starting from `0.0`, the same
//! order as the `spmv` task's rows, so the results are bitwise equal.

use std::{
    collections::VecDeque,
    sync::atomic::{AtomicU32, Ordering},
};

use rayon::prelude::*;

use crate::inputs::Csr;

/// Depth of an unreached vertex.
pub const UNREACHED: u32 = u32::MAX;

/// Hop distances from `source` by a sequential queue BFS.
///
/// # Panics
///
/// If `source` is not a vertex of `g`.
#[must_use]
pub fn bfs_seq(g: &Csr, source: u32) -> Vec<u32> {
    assert!(
        source < g.n_rows,
        "source {source} is not a vertex (the graph has {})",
        g.n_rows
    );
    let mut depth = vec![UNREACHED; g.n_rows as usize];
    let mut queue = VecDeque::from([source]);
    depth[source as usize] = 0;
    while let Some(v) = queue.pop_front() {
        let d = depth[v as usize] + 1;
        for &u in g.row(v) {
            if depth[u as usize] == UNREACHED {
                depth[u as usize] = d;
                queue.push_back(u);
            }
        }
    }
    depth
}

/// Hop distances from `source` by a level-synchronous BFS, each frontier expanded with rayon.
///
/// # Panics
///
/// If `source` is not a vertex of `g`.
#[must_use]
pub fn bfs_rayon(g: &Csr, source: u32) -> Vec<u32> {
    assert!(
        source < g.n_rows,
        "source {source} is not a vertex (the graph has {})",
        g.n_rows
    );
    let depth: Vec<AtomicU32> = (0..g.n_rows).map(|_| AtomicU32::new(UNREACHED)).collect();
    // Ordering: Relaxed throughout; each level's `collect` joins the rayon tasks, which orders
    // every claim of one level before the next level reads.
    depth[source as usize].store(0, Ordering::Relaxed);
    let mut frontier = vec![source];
    let mut level = 0;
    while !frontier.is_empty() {
        level += 1;
        frontier = frontier
            .par_iter()
            .flat_map_iter(|&v| g.row(v).iter().copied())
            .filter(|&u| {
                depth[u as usize]
                    .compare_exchange(UNREACHED, level, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok()
            })
            .collect();
    }
    depth.into_iter().map(AtomicU32::into_inner).collect()
}

/// Edges traversed by a BFS that reached the vertices with `depth != UNREACHED`: the sum of
/// their out-degrees (the numerator of the usual edges-per-second rate).
#[must_use]
pub fn traversed_edges(g: &Csr, depth: &[u32]) -> u64 {
    (0..g.n_rows)
        .filter(|&v| depth[v as usize] != UNREACHED)
        .map(|v| u64::from(g.degree(v)))
        .sum()
}

/// One row of `a · x`, summed in CSR order from `0.0` (pattern entries count as 1).
#[must_use]
pub fn spmv_row(a: &Csr, x: &[f64], r: u32) -> f64 {
    let cols = a.row(r);
    match a.row_values(r) {
        Some(vals) => cols
            .iter()
            .zip(vals)
            .fold(0.0, |s, (&c, &v)| s + v * x[c as usize]),
        None => cols.iter().fold(0.0, |s, &c| s + 1.0 * x[c as usize]),
    }
}

/// `a · x`, sequentially.
///
/// # Panics
///
/// If `x.len() != a.n_cols`.
#[must_use]
pub fn spmv_seq(a: &Csr, x: &[f64]) -> Vec<f64> {
    assert_eq!(
        x.len(),
        a.n_cols as usize,
        "x must have one element per column"
    );
    (0..a.n_rows).map(|r| spmv_row(a, x, r)).collect()
}

/// `a · x`, rows in parallel with rayon.
///
/// # Panics
///
/// If `x.len() != a.n_cols`.
#[must_use]
pub fn spmv_rayon(a: &Csr, x: &[f64]) -> Vec<f64> {
    assert_eq!(
        x.len(),
        a.n_cols as usize,
        "x must have one element per column"
    );
    (0..a.n_rows)
        .into_par_iter()
        .map(|r| spmv_row(a, x, r))
        .collect()
}

/// One row of `a · x` as the block-level `spmv_block` computes it on a block of `block`
/// threads: thread `t` sums entries `t, t + block, ..` of the row in CSR order from `0.0`, and
/// the partials are added in [`gtap::block::sum_f64`]'s order. `block = 1` is [`spmv_row`].
///
/// # Panics
///
/// If `block` is not 1 or a multiple of 32 up to 1024.
#[must_use]
pub fn spmv_block_row(a: &Csr, x: &[f64], r: u32, block: u32) -> f64 {
    assert!(
        block == 1 || (block.is_multiple_of(32) && block <= 1024),
        "block size {block}: expected 1 or a multiple of 32 up to 1024"
    );
    let cols = a.row(r);
    let vals = a.row_values(r);
    let mut partials = [0.0f64; 1024];
    let partials = &mut partials[..block as usize];
    for (k, &c) in cols.iter().enumerate() {
        let v = vals.map_or(1.0, |vals| vals[k]);
        let p = &mut partials[k % block as usize];
        *p += v * x[c as usize];
    }
    gtap::block::sum_f64_reference(partials)
}

/// `a · x` as `spmv_block` computes it on blocks of `block` threads, sequentially.
///
/// # Panics
///
/// If `x.len() != a.n_cols`, or as [`spmv_block_row`].
#[must_use]
pub fn spmv_block_seq(a: &Csr, x: &[f64], block: u32) -> Vec<f64> {
    assert_eq!(
        x.len(),
        a.n_cols as usize,
        "x must have one element per column"
    );
    (0..a.n_rows)
        .map(|r| spmv_block_row(a, x, r, block))
        .collect()
}
