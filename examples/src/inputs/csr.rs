//! Compressed sparse rows, and the coordinate list every reader and generator fills first.
//!
//! Invariants of a [`Csr`] (checked by [`Csr::validate`], upheld by [`Coo::into_csr`]):
//! `offsets.len() == n_rows + 1`, `offsets[0] == 0`, `offsets` is non-decreasing and ends at
//! `targets.len()`; every target is `< n_cols`; within a row the targets are strictly
//! increasing (sorted, no duplicates); `values`, when present, has one value per target.
//! Indices are `u32` because the task functions take `Slice<u32>` handles: inputs with
//! `u32::MAX` or more rows, columns or entries are rejected with [`InputError::TooLarge`].

use super::InputError;

/// A sparse matrix or graph in CSR form: row `r`'s entries are `targets[offsets[r]..offsets[r + 1]]`
/// (columns, or neighbour vertices) with `values` at the same positions (`None` for a pattern
/// matrix or an unweighted graph).
#[derive(Clone, Debug, PartialEq)]
pub struct Csr {
    /// Rows (vertices, for a graph).
    pub n_rows: u32,
    /// Columns (equal to `n_rows` for a graph).
    pub n_cols: u32,
    /// `n_rows + 1` row starts into `targets`.
    pub offsets: Vec<u32>,
    /// Column indices (neighbours), sorted within each row.
    pub targets: Vec<u32>,
    /// Entry values, or `None` for a pattern matrix / unweighted graph.
    pub values: Option<Vec<f64>>,
}

impl Csr {
    /// The number of stored entries (edges).
    #[must_use]
    pub fn nnz(&self) -> usize {
        self.targets.len()
    }

    /// Row `r`'s column indices (vertex `r`'s neighbours).
    #[must_use]
    pub fn row(&self, r: u32) -> &[u32] {
        &self.targets[self.offsets[r as usize] as usize..self.offsets[r as usize + 1] as usize]
    }

    /// Row `r`'s values (`None` for a pattern matrix).
    #[must_use]
    pub fn row_values(&self, r: u32) -> Option<&[f64]> {
        let (b, e) = (
            self.offsets[r as usize] as usize,
            self.offsets[r as usize + 1] as usize,
        );
        self.values.as_ref().map(|v| &v[b..e])
    }

    /// The number of entries of row `r` (the out-degree of vertex `r`).
    #[must_use]
    pub fn degree(&self, r: u32) -> u32 {
        self.offsets[r as usize + 1] - self.offsets[r as usize]
    }

    /// Whether the matrix is square and every entry `(r, c)` has a mirror `(c, r)` (an
    /// undirected graph). Ignores values.
    #[must_use]
    pub fn is_symmetric(&self) -> bool {
        self.n_rows == self.n_cols
            && (0..self.n_rows).all(|r| {
                self.row(r)
                    .iter()
                    .all(|&c| self.row(c).binary_search(&r).is_ok())
            })
    }

    /// Whether any row lists itself.
    #[must_use]
    pub fn has_self_loops(&self) -> bool {
        (0..self.n_rows).any(|r| self.row(r).binary_search(&r).is_ok())
    }

    /// The values, or all ones for a pattern matrix (what SpMV multiplies with).
    #[must_use]
    pub fn values_or_ones(&self) -> Vec<f64> {
        self.values.clone().unwrap_or_else(|| vec![1.0; self.nnz()])
    }

    /// Checks the invariants in the module docs; the message names the first one broken.
    ///
    /// # Errors
    ///
    /// A description of the first broken invariant.
    pub fn validate(&self) -> Result<(), String> {
        let n = self.n_rows as usize;
        if self.offsets.len() != n + 1 {
            return Err(format!(
                "offsets has {} elements, expected n_rows + 1 = {}",
                self.offsets.len(),
                n + 1
            ));
        }
        if self.offsets[0] != 0 || self.offsets[n] as usize != self.targets.len() {
            return Err(format!(
                "offsets must run from 0 to targets.len() = {}, found {}..{}",
                self.targets.len(),
                self.offsets[0],
                self.offsets[n]
            ));
        }
        if let Some(v) = &self.values {
            if v.len() != self.targets.len() {
                return Err(format!(
                    "values has {} elements, targets {}",
                    v.len(),
                    self.targets.len()
                ));
            }
        }
        for r in 0..self.n_rows {
            if self.offsets[r as usize] > self.offsets[r as usize + 1] {
                return Err(format!("offsets decrease at row {r}"));
            }
            let row = self.row(r);
            if let Some(&c) = row.iter().find(|&&c| c >= self.n_cols) {
                return Err(format!(
                    "row {r} has column {c} >= n_cols = {}",
                    self.n_cols
                ));
            }
            if row.windows(2).any(|w| w[0] >= w[1]) {
                return Err(format!("row {r}'s columns are not strictly increasing"));
            }
        }
        Ok(())
    }
}

/// Entries in any order, possibly duplicated: what readers and generators produce before
/// [`Coo::into_csr`] sorts them into rows.
#[derive(Clone, Debug, Default)]
pub struct Coo {
    /// Rows.
    pub n_rows: u32,
    /// Columns.
    pub n_cols: u32,
    /// Row index of each entry.
    pub rows: Vec<u32>,
    /// Column index of each entry.
    pub cols: Vec<u32>,
    /// Value of each entry, or `None` for a pattern.
    pub values: Option<Vec<f64>>,
}

impl Coo {
    /// An empty list for an `n_rows × n_cols` matrix, with values when `valued`.
    #[must_use]
    pub fn new(n_rows: u32, n_cols: u32, valued: bool) -> Self {
        Self {
            n_rows,
            n_cols,
            rows: Vec::new(),
            cols: Vec::new(),
            values: valued.then(Vec::new),
        }
    }

    /// Appends entry `(r, c)` with value `v` (ignored for a pattern).
    pub fn push(&mut self, r: u32, c: u32, v: f64) {
        self.rows.push(r);
        self.cols.push(c);
        if let Some(vals) = &mut self.values {
            vals.push(v);
        }
    }

    /// Appends the mirror `(c, r)` of every off-diagonal entry, with the value mapped by
    /// `mirror_value` (identity for symmetric, negation for skew-symmetric).
    ///
    /// # Panics
    ///
    /// If the matrix is not square.
    pub fn mirror(&mut self, mirror_value: impl Fn(f64) -> f64) {
        assert_eq!(
            self.n_rows, self.n_cols,
            "only a square matrix can be mirrored"
        );
        let n = self.rows.len();
        for i in 0..n {
            let (r, c) = (self.rows[i], self.cols[i]);
            if r != c {
                self.rows.push(c);
                self.cols.push(r);
                if let Some(vals) = &mut self.values {
                    vals.push(mirror_value(vals[i]));
                }
            }
        }
    }

    /// Sorts the entries into rows. Duplicates of an entry become one, with their values summed
    /// in input order (the Matrix Market convention); self loops `(r, r)` are dropped when
    /// `drop_self_loops`.
    ///
    /// # Errors
    ///
    /// [`InputError::TooLarge`] when the entries do not fit `u32` offsets.
    pub fn into_csr(self, name: &str, drop_self_loops: bool) -> Result<Csr, InputError> {
        let Self {
            n_rows,
            n_cols,
            rows,
            cols,
            values,
        } = self;
        let nnz = rows.len();
        if nnz >= u32::MAX as usize {
            return Err(InputError::TooLarge {
                name: name.to_owned(),
                what: "entries",
                count: nnz as u64,
            });
        }
        // Counting sort by row: stable, so equal entries keep their input order.
        let mut offsets = vec![0u32; n_rows as usize + 1];
        for &r in &rows {
            offsets[r as usize + 1] += 1;
        }
        for i in 0..n_rows as usize {
            offsets[i + 1] += offsets[i];
        }
        let mut next = offsets.clone();
        let mut targets = vec![0u32; nnz];
        let mut sorted_values = values.as_ref().map(|_| vec![0f64; nnz]);
        for i in 0..nnz {
            let slot = &mut next[rows[i] as usize];
            targets[*slot as usize] = cols[i];
            if let (Some(out), Some(vals)) = (&mut sorted_values, &values) {
                out[*slot as usize] = vals[i];
            }
            *slot += 1;
        }
        drop((rows, cols, values));
        // Sort each row by column and compact it in place: `write` never passes the read
        // position, so rows only move towards the front.
        let mut write = 0usize;
        let mut scratch: Vec<(u32, f64)> = Vec::new();
        for r in 0..n_rows as usize {
            let (begin, end) = (offsets[r] as usize, offsets[r + 1] as usize);
            offsets[r] = write as u32;
            match &mut sorted_values {
                None => {
                    let row = &mut targets[begin..end];
                    row.sort_unstable();
                    let mut last = None;
                    for i in begin..end {
                        let c = targets[i];
                        if last == Some(c) || (drop_self_loops && c as usize == r) {
                            continue;
                        }
                        last = Some(c);
                        targets[write] = c;
                        write += 1;
                    }
                }
                Some(vals) => {
                    scratch.clear();
                    scratch.extend((begin..end).map(|i| (targets[i], vals[i])));
                    scratch.sort_by_key(|&(c, _)| c); // stable: duplicates stay in input order
                    let mut last = None;
                    for &(c, v) in &scratch {
                        if drop_self_loops && c as usize == r {
                            continue;
                        }
                        if last == Some(c) {
                            vals[write - 1] += v;
                            continue;
                        }
                        last = Some(c);
                        targets[write] = c;
                        vals[write] = v;
                        write += 1;
                    }
                }
            }
        }
        offsets[n_rows as usize] = write as u32;
        targets.truncate(write);
        targets.shrink_to_fit();
        if let Some(v) = &mut sorted_values {
            v.truncate(write);
            v.shrink_to_fit();
        }
        Ok(Csr {
            n_rows,
            n_cols,
            offsets,
            targets,
            values: sorted_values,
        })
    }
}
