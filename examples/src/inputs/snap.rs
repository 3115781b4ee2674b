//! SNAP edge-list reader: one directed edge `src dst` per line, whitespace-separated
//! non-negative integer vertex ids; lines starting with `#` or `%` are comments, blank lines
//! are skipped. Duplicate edges are kept once; self loops are kept (BFS ignores them).
//!
//! Vertex ids can be arbitrary 64-bit numbers. [`VertexIds::Dense`] keeps them as they are
//! (`n = max id + 1`; ids must fit `u32`), [`VertexIds::Compact`] renumbers them `0..k` in
//! increasing id order, so a file whose ids are already `0..n` is unchanged either way.
//! Memory while reading: 8 bytes per edge (`Dense`) or 16 (`Compact`), plus the CSR.
//!
//! Sources: the file layout of the Stanford Large Network Dataset Collection,
//! <https://snap.stanford.edu/data/> (e.g. `soc-LiveJournal1.txt`).

use std::io::BufRead;

use super::{
    lines::{parse_error, LineReader},
    Coo, Csr, InputError, ParseErrorKind,
};

/// How vertex ids in the file become CSR row numbers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum VertexIds {
    /// Ids are row numbers: `n = max id + 1` (ids must be below `u32::MAX`).
    #[default]
    Dense,
    /// Ids are renumbered `0..k` in increasing order (k = distinct ids).
    Compact,
}

/// Options for [`read_snap`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SnapOptions {
    /// How ids become row numbers.
    pub ids: VertexIds,
    /// Add the reverse of every edge (read a directed file as an undirected graph).
    pub symmetrize: bool,
}

/// Reads a SNAP edge list from `reader`; `name` is used in error messages.
///
/// # Errors
///
/// [`InputError::Parse`] naming the line, [`InputError::Io`], or [`InputError::TooLarge`].
pub fn read_snap<R: BufRead>(
    reader: R,
    name: &str,
    options: SnapOptions,
) -> Result<Csr, InputError> {
    let err = |line, kind| parse_error(name, line, kind);
    let mut lines = LineReader::new(reader, name);
    let mut dense = Coo::new(0, 0, false);
    let mut wide: Vec<[u64; 2]> = Vec::new();
    let mut max_id = None::<u64>;
    while let Some((ln, line)) = lines.next_line()? {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') || line.starts_with('%') {
            continue;
        }
        let mut ids = [0u64; 2];
        let mut count = 0;
        for t in line.split_whitespace() {
            if count < 2 {
                ids[count] = t.parse::<u64>().map_err(|_| {
                    let expected = "a vertex id (a non-negative integer)";
                    err(
                        ln,
                        ParseErrorKind::Number {
                            token: t.to_owned(),
                            expected,
                        },
                    )
                })?;
            }
            count += 1;
        }
        if count != 2 {
            let kind = ParseErrorKind::FieldCount {
                expected: 2,
                what: "`src dst`",
                context: "on an edge line",
                found: count,
            };
            return Err(err(ln, kind));
        }
        max_id = max_id.max(Some(ids[0].max(ids[1])));
        match options.ids {
            VertexIds::Dense => {
                if let Some(&big) = ids.iter().find(|&&id| id >= u64::from(u32::MAX) - 1) {
                    let kind = ParseErrorKind::Number {
                        token: big.to_string(),
                        expected: "a vertex id below 4294967294 (read with compact ids to renumber large ids)",
                    };
                    return Err(err(ln, kind));
                }
                dense.push(ids[0] as u32, ids[1] as u32, 0.0);
            }
            VertexIds::Compact => wide.push(ids),
        }
    }
    let mut coo = match options.ids {
        VertexIds::Dense => {
            let n = max_id.map_or(0, |m| m as u32 + 1);
            Coo {
                n_rows: n,
                n_cols: n,
                ..dense
            }
        }
        VertexIds::Compact => compact(wide, name)?,
    };
    if options.symmetrize {
        coo.mirror(|v| v);
    }
    coo.into_csr(name, false)
}

/// Renumbers 64-bit ids to their rank among the distinct ids.
fn compact(edges: Vec<[u64; 2]>, name: &str) -> Result<Coo, InputError> {
    let mut ids: Vec<u64> = edges.iter().flatten().copied().collect();
    ids.sort_unstable();
    ids.dedup();
    if ids.len() >= u32::MAX as usize {
        return Err(InputError::TooLarge {
            name: name.to_owned(),
            what: "vertices",
            count: ids.len() as u64,
        });
    }
    let n = ids.len() as u32;
    let mut coo = Coo::new(n, n, false);
    coo.rows.reserve(edges.len());
    coo.cols.reserve(edges.len());
    let rank = |id: u64| ids.binary_search(&id).expect("every id was collected") as u32;
    for [s, d] in edges {
        coo.push(rank(s), rank(d), 0.0);
    }
    Ok(coo)
}
