//! Seeded, deterministic input generators: R-MAT graphs (social-network-like, skewed degrees),
//! 2D grids (road-network-like: degree ≤ 4, large diameter) and random sparse matrices.
//!
//! Determinism: the output depends only on the parameters, never on the thread count. Work is
//! cut into fixed-size chunks, each with its own generator seeded from `(seed, chunk index)`,
//! and the chunks are concatenated in order.
//!
//! Sources: Chakrabarti, Zhan, Faloutsos, "R-MAT: A Recursive Model for Graph Mining" (SDM 2004),
//! and the Graph500 specification's parameters a/b/c/d = 0.57/0.19/0.19/0.05 and edge factor
//! 16 (<https://graph500.org/?page_id=12>, §3). SplitMix64: Steele, Lea, Flood, "Fast
//! Splittable Pseudorandom Number Generators" (OOPSLA 2014).

use rayon::prelude::*;

use super::{Coo, Csr, InputError};

/// Samples per chunk of parallel generation (fixed, so the output does not depend on threads).
const CHUNK: usize = 1 << 16;

/// SplitMix64: small, fast, and good enough for generating inputs.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    #[must_use]
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    /// A generator for stream `stream` of `seed` (independent-looking streams per chunk).
    #[must_use]
    pub fn stream(seed: u64, stream: u64) -> Self {
        let mut r = Self(seed ^ stream.wrapping_mul(0xd1b5_4a32_d192_ed03));
        r.next_u64();
        r
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)` (53 random bits).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in `0..n` (`n > 0`), by multiply-shift (bias below 2^-32 for `n < 2^32`).
    pub fn below(&mut self, n: u32) -> u32 {
        (((self.next_u64() >> 32) * u64::from(n)) >> 32) as u32
    }
}

/// Parameters of [`rmat`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rmat {
    /// `log2` of the vertex count, in `1..=31`.
    pub scale: u32,
    /// Edge samples per vertex (Graph500: 16).
    pub edge_factor: u32,
    /// Quadrant probabilities (top-left, top-right, bottom-left); `d = 1 - a - b - c`.
    pub a: f64,
    /// See `a`.
    pub b: f64,
    /// See `a`.
    pub c: f64,
    /// The seed.
    pub seed: u64,
    /// Add the reverse of every edge (an undirected graph).
    pub symmetrize: bool,
}

impl Rmat {
    /// Graph500's parameters (0.57/0.19/0.19/0.05, edge factor 16), symmetrized, at `scale`.
    #[must_use]
    pub fn graph500(scale: u32, seed: u64) -> Self {
        Self {
            scale,
            edge_factor: 16,
            a: 0.57,
            b: 0.19,
            c: 0.19,
            seed,
            symmetrize: true,
        }
    }
}

/// An R-MAT graph on `2^scale` vertices from `edge_factor · 2^scale` sampled edges, with self
/// loops and duplicates removed (so it has at most that many edges, twice that when
/// symmetrized).
///
/// # Errors
///
/// [`InputError::Parameter`] for a scale outside `1..=31`, or probabilities that are negative
/// or sum past 1; [`InputError::TooLarge`] when the edges do not fit `u32` offsets.
pub fn rmat(p: &Rmat) -> Result<Csr, InputError> {
    if !(1..=31).contains(&p.scale) {
        return Err(InputError::Parameter {
            message: format!("R-MAT `scale` must be in 1..=31, got {}", p.scale),
        });
    }
    let d = 1.0 - p.a - p.b - p.c;
    if [p.a, p.b, p.c].iter().any(|&x| !(0.0..=1.0).contains(&x)) || d < -1e-12 {
        let message = format!(
            "R-MAT probabilities a = {}, b = {}, c = {} must be in [0, 1] and sum to at most 1",
            p.a, p.b, p.c
        );
        return Err(InputError::Parameter { message });
    }
    let n = 1u64 << p.scale;
    let samples = usize::try_from(n * u64::from(p.edge_factor))
        .ok()
        .filter(|&s| s < u32::MAX as usize)
        .ok_or(InputError::TooLarge {
            name: "R-MAT".to_owned(),
            what: "entries",
            count: n * u64::from(p.edge_factor),
        })?;
    let (ab, abc) = (p.a + p.b, p.a + p.b + p.c);
    let chunks: Vec<Vec<(u32, u32)>> = (0..samples.div_ceil(CHUNK))
        .into_par_iter()
        .map(|k| {
            let mut rng = Rng::stream(p.seed, k as u64);
            let len = CHUNK.min(samples - k * CHUNK);
            (0..len)
                .map(|_| {
                    let (mut src, mut dst) = (0u32, 0u32);
                    for _ in 0..p.scale {
                        let x = rng.next_f64();
                        let (down, right) = (x >= ab, (p.a..ab).contains(&x) || x >= abc);
                        src = src << 1 | u32::from(down);
                        dst = dst << 1 | u32::from(right);
                    }
                    (src, dst)
                })
                .collect()
        })
        .collect();
    let mut coo = Coo::new(n as u32, n as u32, false);
    coo.rows.reserve(samples * if p.symmetrize { 2 } else { 1 });
    coo.cols.reserve(coo.rows.capacity());
    for (s, t) in chunks.into_iter().flatten() {
        coo.push(s, t, 0.0);
    }
    if p.symmetrize {
        coo.mirror(|v| v);
    }
    coo.into_csr("R-MAT", true)
}

/// Parameters of [`grid`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    /// Vertices per row.
    pub width: u32,
    /// Rows.
    pub height: u32,
    /// Undirected edges to remove at random (0 for the full grid).
    pub removed_edges: u64,
    /// The seed (only used when removing edges).
    pub seed: u64,
}

/// A `width × height` 4-neighbour grid, undirected (both directions stored): vertex
/// `y · width + x`. It has `(width − 1)·height + width·(height − 1)` undirected edges, minus
/// `removed_edges` distinct ones picked at random.
///
/// # Errors
///
/// [`InputError::Parameter`] when the grid is empty or more edges are to be removed than it
/// has; [`InputError::TooLarge`] when it does not fit `u32` indices.
pub fn grid(p: &Grid) -> Result<Csr, InputError> {
    let (w, h) = (u64::from(p.width), u64::from(p.height));
    if w == 0 || h == 0 {
        return Err(InputError::Parameter {
            message: format!("grid width and height must be positive, got {w} × {h}"),
        });
    }
    if w * h >= u64::from(u32::MAX) {
        return Err(InputError::TooLarge {
            name: "grid".to_owned(),
            what: "vertices",
            count: w * h,
        });
    }
    let horizontal = (w - 1) * h;
    let edges = horizontal + w * (h - 1);
    if p.removed_edges > edges {
        let message = format!(
            "cannot remove {} edges from a {w} × {h} grid with {edges} edges",
            p.removed_edges
        );
        return Err(InputError::Parameter { message });
    }
    let mut removed = std::collections::HashSet::new();
    let mut rng = Rng::new(p.seed);
    while (removed.len() as u64) < p.removed_edges {
        removed.insert(rng.next_u64() % edges);
    }
    let n = (w * h) as u32;
    let mut coo = Coo::new(n, n, false);
    for e in (0..edges).filter(|e| !removed.contains(e)) {
        let (a, b) = if e < horizontal {
            let (y, x) = (e / (w - 1), e % (w - 1));
            (y * w + x, y * w + x + 1)
        } else {
            let v = e - horizontal;
            (v, v + w)
        };
        coo.push(a as u32, b as u32, 0.0);
    }
    coo.mirror(|v| v);
    coo.into_csr("grid", false)
}

/// A square `rows × rows` matrix with up to `nnz_per_row` entries per row at uniformly random
/// columns (repeats merged, so a row may have fewer) and values uniform in `[-1, 1)`: the
/// random CSR of GTaP's SpMV example.
///
/// # Errors
///
/// [`InputError::TooLarge`] when the entries do not fit `u32` offsets;
/// [`InputError::Parameter`] for zero rows.
pub fn random_matrix(rows: u32, nnz_per_row: u32, seed: u64) -> Result<Csr, InputError> {
    if rows == 0 || rows == u32::MAX {
        return Err(InputError::Parameter {
            message: format!("random matrix rows must be in 1..{}, got {rows}", u32::MAX),
        });
    }
    let total = u64::from(rows) * u64::from(nnz_per_row);
    if total >= u64::from(u32::MAX) {
        return Err(InputError::TooLarge {
            name: "random matrix".to_owned(),
            what: "entries",
            count: total,
        });
    }
    const ROWS_PER_CHUNK: u32 = 1024;
    let chunks: Vec<(Vec<u32>, Vec<u32>, Vec<f64>)> = (0..rows.div_ceil(ROWS_PER_CHUNK))
        .into_par_iter()
        .map(|k| {
            let mut rng = Rng::stream(seed, u64::from(k));
            let (mut lens, mut cols, mut vals) = (Vec::new(), Vec::new(), Vec::new());
            let mut row: Vec<(u32, f64)> = Vec::with_capacity(nnz_per_row as usize);
            for _ in k * ROWS_PER_CHUNK..rows.min((k + 1) * ROWS_PER_CHUNK) {
                row.clear();
                row.extend((0..nnz_per_row).map(|_| (rng.below(rows), rng.next_f64() * 2.0 - 1.0)));
                row.sort_by_key(|&(c, _)| c);
                row.dedup_by_key(|&mut (c, _)| c);
                lens.push(row.len() as u32);
                cols.extend(row.iter().map(|&(c, _)| c));
                vals.extend(row.iter().map(|&(_, v)| v));
            }
            (lens, cols, vals)
        })
        .collect();
    let mut offsets = Vec::with_capacity(rows as usize + 1);
    offsets.push(0u32);
    let (mut targets, mut values) = (Vec::new(), Vec::new());
    for (lens, cols, vals) in chunks {
        for l in lens {
            offsets.push(offsets.last().copied().unwrap_or(0) + l);
        }
        targets.extend(cols);
        values.extend(vals);
    }
    Ok(Csr {
        n_rows: rows,
        n_cols: rows,
        offsets,
        targets,
        values: Some(values),
    })
}
