//! The `inputs` module: Matrix Market and SNAP parsing (committed files in `tests/data/`),
//! error messages with line numbers, and the generators' properties.

use std::path::PathBuf;

use gtap_examples::inputs::{
    self, grid, random_matrix, read_mtx, read_snap, rmat, Csr, Field, Format, Grid, InputError,
    LoadOptions, ParseErrorKind, Rmat, SnapOptions, Symmetry, VertexIds,
};
use proptest::prelude::*;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

fn load(name: &str) -> Csr {
    let csr = inputs::load(data(name), LoadOptions::default()).unwrap_or_else(|e| panic!("{e}"));
    csr.validate().unwrap();
    csr
}

/// The error of loading `name`, as (line, kind, message).
fn load_err(name: &str) -> (u64, ParseErrorKind, String) {
    let e = inputs::load(data(name), LoadOptions::default()).expect_err("a malformed file");
    let msg = e.to_string();
    match e {
        InputError::Parse { line, kind, .. } => (line, kind, msg),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

/// `(row, col, value)` triples of `csr`, in row order.
fn entries(csr: &Csr) -> Vec<(u32, u32, f64)> {
    let vals = csr.values_or_ones();
    (0..csr.n_rows)
        .flat_map(|r| (csr.offsets[r as usize]..csr.offsets[r as usize + 1]).map(move |k| (r, k)))
        .map(|(r, k)| (r, csr.targets[k as usize], vals[k as usize]))
        .collect()
}

#[test]
fn general_real_matrix_sums_duplicates() {
    let a = load("general.mtx");
    assert_eq!((a.n_rows, a.n_cols, a.nnz()), (4, 5, 6));
    assert_eq!(
        entries(&a),
        [
            (0, 0, 1.5),
            (0, 3, -2.0),
            (1, 2, 3.25),
            (2, 4, 40.0),
            (3, 1, -7.5),
            (3, 3, 1.0)
        ]
    );
}

#[test]
fn symmetric_matrix_is_expanded_without_doubling_the_diagonal() {
    let a = load("symmetric.mtx");
    assert_eq!(a.nnz(), 2 + 2 * 3);
    assert!(a.is_symmetric());
    assert_eq!(a.row(1), [0, 2]);
    assert_eq!(a.row_values(1).unwrap(), [-1.0, -1.0]);
    assert_eq!(a.row_values(0).unwrap(), [2.0, -1.0]);
}

#[test]
fn skew_symmetric_matrix_mirrors_negated() {
    let a = load("skew.mtx");
    assert_eq!(
        entries(&a),
        [(0, 1, -5.0), (0, 2, 1.5), (1, 0, 5.0), (2, 0, -1.5)]
    );
}

#[test]
fn pattern_graph_has_no_values_and_both_directions() {
    let (header, g) = read_mtx(
        std::fs::File::open(data("pattern.mtx"))
            .map(std::io::BufReader::new)
            .unwrap(),
        "p",
    )
    .unwrap();
    assert_eq!(header.field, Field::Pattern);
    assert_eq!(header.symmetry, Symmetry::Symmetric);
    assert!(g.values.is_none());
    assert_eq!((g.n_rows, g.nnz()), (8, 12));
    assert!(g.is_symmetric());
    assert_eq!(g.row(1), [0, 2]);
    assert_eq!(g.degree(7), 0);
}

#[test]
fn integer_matrix_and_case_insensitive_banner() {
    let a = load("integer.mtx");
    assert_eq!(
        entries(&a),
        [(0, 1, 10.0), (1, 2, -20.0), (2, 0, 30.0), (2, 2, 4.0)]
    );
}

#[test]
fn snap_edge_list_dense_and_compact_ids() {
    let g = load("graph.txt");
    assert_eq!(g.n_rows, 12, "dense ids: max id + 1");
    assert_eq!(g.nnz(), 7, "the duplicate 10 -> 11 is kept once");
    assert_eq!(g.row(0), [1, 2]);
    assert_eq!(g.row(10), [11]);
    let options = LoadOptions {
        ids: VertexIds::Compact,
        symmetrize: false,
    };
    let c = inputs::load(data("graph.txt"), options).unwrap();
    assert_eq!(c.n_rows, 7, "ids 0..=4, 10, 11");
    assert_eq!(c.row(5), [6]);
    let s = inputs::load(
        data("graph.txt"),
        LoadOptions {
            symmetrize: true,
            ..options
        },
    )
    .unwrap();
    s.validate().unwrap();
    assert!(s.is_symmetric());
    assert_eq!(s.nnz(), 12, "0<->2 was already there both ways");
}

#[test]
fn snap_reads_large_ids_compactly() {
    let text = "# big ids\n18446744073709551615 7\n7 42\n";
    let g = read_snap(
        text.as_bytes(),
        "big",
        SnapOptions {
            ids: VertexIds::Compact,
            symmetrize: false,
        },
    )
    .unwrap();
    assert_eq!((g.n_rows, g.nnz()), (3, 2));
    assert_eq!(g.row(2), [0]);
    let e = read_snap(text.as_bytes(), "big", SnapOptions::default()).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("big: line 2: expected a vertex id below"),
        "{e}"
    );
}

#[test]
fn symmetrizing_a_directed_mtx() {
    let g = inputs::load(
        data("general.mtx"),
        LoadOptions {
            symmetrize: true,
            ..LoadOptions::default()
        },
    );
    assert!(
        matches!(g, Err(InputError::Parameter { .. })),
        "4x5 cannot be symmetrized"
    );
    let g = inputs::load(
        data("integer.mtx"),
        LoadOptions {
            symmetrize: true,
            ..LoadOptions::default()
        },
    )
    .unwrap();
    assert!(g.is_symmetric());
    assert_eq!(g.nnz(), 7);
}

#[test]
fn missing_value_names_the_line_and_what_was_expected() {
    let (line, kind, msg) = load_err("bad_missing_value.mtx");
    assert_eq!(line, 7);
    assert_eq!(
        kind,
        ParseErrorKind::FieldCount {
            expected: 3,
            what: "`row col value`",
            context: "after the size line",
            found: 2
        }
    );
    assert!(msg.ends_with("bad_missing_value.mtx: line 7: expected 3 numbers `row col value` after the size line, found 2"), "{msg}");
}

#[test]
fn other_malformed_files() {
    let (line, kind, msg) = load_err("bad_banner.mtx");
    assert_eq!(line, 1);
    assert!(matches!(kind, ParseErrorKind::Banner { .. }));
    assert!(msg.contains("expected the Matrix Market banner"), "{msg}");

    let (line, kind, msg) = load_err("bad_array.mtx");
    assert_eq!(line, 1);
    assert!(matches!(
        kind,
        ParseErrorKind::Unsupported {
            field: "format",
            ..
        }
    ));
    assert!(
        msg.contains("`array` is not supported; use one of `coordinate`"),
        "{msg}"
    );

    let (line, kind, msg) = load_err("bad_index.mtx");
    assert_eq!(
        (line, kind),
        (
            4,
            ParseErrorKind::IndexRange {
                what: "row",
                index: 4,
                max: 3
            }
        )
    );
    assert!(
        msg.contains("line 4: row index 4 is outside 1..=3"),
        "{msg}"
    );

    let (line, kind, _) = load_err("bad_count.mtx");
    assert_eq!(
        (line, kind),
        (
            5,
            ParseErrorKind::EntryCount {
                declared: 3,
                found: 2
            }
        )
    );

    let (line, kind, msg) = load_err("bad_number.mtx");
    assert_eq!(line, 4);
    assert!(matches!(kind, ParseErrorKind::Number { .. }));
    assert!(
        msg.contains("line 4: expected a real value, found `two`"),
        "{msg}"
    );

    let (line, _, msg) = load_err("bad_id.txt");
    assert_eq!(line, 4);
    assert!(
        msg.contains("expected a vertex id (a non-negative integer), found `x3`"),
        "{msg}"
    );

    let (line, _, msg) = load_err("bad_fields.txt");
    assert_eq!(line, 3);
    assert!(
        msg.contains("expected 2 numbers `src dst` on an edge line, found 3"),
        "{msg}"
    );
}

#[test]
fn size_line_and_end_of_file_errors() {
    let e = read_mtx(
        "%%MatrixMarket matrix coordinate real general\n% only comments\n".as_bytes(),
        "m",
    )
    .unwrap_err();
    assert_eq!(e.to_string(), "m: line 3: expected the size line `rows cols entries` after the banner and comments, found the end of the file");
    let e = read_mtx(
        "%%MatrixMarket matrix coordinate real general\n2 2\n".as_bytes(),
        "m",
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("line 2: expected 3 numbers `rows cols entries` on the size line, found 2"),
        "{e}"
    );
    let e = read_mtx(
        "%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n1 1 2\n".as_bytes(),
        "m",
    )
    .unwrap_err();
    assert!(
        e.to_string()
            .contains("line 4: the size line declares 1 entries but the file has 2"),
        "{e}"
    );
    let e = read_mtx(
        "%%MatrixMarket matrix coordinate complex general\n".as_bytes(),
        "m",
    )
    .unwrap_err();
    assert!(
        e.to_string().contains("field `complex` is not supported"),
        "{e}"
    );
    let e = read_mtx(
        &b"%%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 \xff\n"[..],
        "m",
    )
    .unwrap_err();
    assert!(e.to_string().contains("line 3: expected UTF-8 text"), "{e}");
}

#[test]
fn format_detection() {
    assert_eq!(
        Format::from_path("a/b.MTX".as_ref()).unwrap(),
        Format::MatrixMarket
    );
    assert_eq!(
        Format::from_path("soc-LiveJournal1.txt".as_ref()).unwrap(),
        Format::Snap
    );
    let e = Format::from_path("road_usa.mtx.gz".as_ref()).unwrap_err();
    assert!(e.to_string().contains("cannot tell the format"), "{e}");
    let e = inputs::load(data("missing.mtx"), LoadOptions::default()).unwrap_err();
    assert!(
        matches!(e, InputError::Io { .. }) && e.to_string().contains("missing.mtx"),
        "{e}"
    );
}

#[test]
fn full_grid_has_the_expected_shape() {
    let g = grid(&Grid {
        width: 5,
        height: 3,
        removed_edges: 0,
        seed: 0,
    })
    .unwrap();
    g.validate().unwrap();
    assert_eq!(g.n_rows, 15);
    assert_eq!(g.nnz(), 2 * (4 * 3 + 5 * 2));
    assert!(g.is_symmetric() && !g.has_self_loops());
    assert_eq!(g.degree(0), 2, "corner");
    assert_eq!(g.degree(1), 3, "edge");
    assert_eq!(g.degree(6), 4, "interior");
    assert_eq!(g.row(6), [1, 5, 7, 11]);
    let line = grid(&Grid {
        width: 1,
        height: 4,
        removed_edges: 0,
        seed: 0,
    })
    .unwrap();
    assert_eq!(line.nnz(), 6);
    assert!(grid(&Grid {
        width: 2,
        height: 2,
        removed_edges: 5,
        seed: 0
    })
    .is_err());
}

#[test]
fn rmat_parameter_errors() {
    let e = rmat(&Rmat::graph500(0, 1)).unwrap_err();
    assert_eq!(e.to_string(), "R-MAT `scale` must be in 1..=31, got 0");
    let e = rmat(&Rmat {
        a: 0.9,
        ..Rmat::graph500(4, 1)
    })
    .unwrap_err();
    assert!(e.to_string().contains("sum to at most 1"), "{e}");
}

#[test]
fn rmat_degrees_are_skewed() {
    let g = rmat(&Rmat::graph500(12, 7)).unwrap();
    let max = (0..g.n_rows).map(|v| g.degree(v)).max().unwrap();
    let mean = g.nnz() as f64 / f64::from(g.n_rows);
    assert!(
        f64::from(max) > 10.0 * mean,
        "max degree {max}, mean {mean}"
    );
    assert_eq!(
        g.degree(0),
        max,
        "vertex 0 takes the `a` quadrant at every level"
    );
}

#[test]
fn random_matrix_shape() {
    let a = random_matrix(3000, 7, 5).unwrap();
    a.validate().unwrap();
    assert_eq!(a.n_rows, 3000);
    assert!(a.nnz() <= 3000 * 7 && a.nnz() > 3000 * 6, "nnz {}", a.nnz());
    assert!(a
        .values
        .as_ref()
        .unwrap()
        .iter()
        .all(|v| (-1.0..1.0).contains(v)));
    assert_eq!(a, random_matrix(3000, 7, 5).unwrap());
    assert_ne!(a, random_matrix(3000, 7, 6).unwrap());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn rmat_properties(scale in 1u32..11, edge_factor in 1u32..9, seed in any::<u64>(), symmetrize in any::<bool>()) {
        let p = Rmat { edge_factor, symmetrize, ..Rmat::graph500(scale, seed) };
        let g = rmat(&p).unwrap();
        prop_assert_eq!(g.validate(), Ok(()));
        prop_assert_eq!(g.n_rows, 1 << scale);
        let samples = (edge_factor as usize) << scale;
        let bound = if symmetrize { 2 * samples } else { samples };
        prop_assert!(g.nnz() <= bound);
        prop_assert!(!g.has_self_loops());
        prop_assert_eq!(symmetrize, symmetrize && g.is_symmetric());
        let degree_sum: u64 = (0..g.n_rows).map(|v| u64::from(g.degree(v))).sum();
        prop_assert_eq!(degree_sum, g.nnz() as u64);
        prop_assert_eq!(&g, &rmat(&p).unwrap(), "deterministic");
    }

    #[test]
    fn grid_properties(width in 1u32..40, height in 1u32..40, frac in 0.0f64..0.3, seed in any::<u64>()) {
        let full = u64::from(width - 1) * u64::from(height) + u64::from(width) * u64::from(height - 1);
        let removed_edges = (full as f64 * frac) as u64;
        let p = Grid { width, height, removed_edges, seed };
        let g = grid(&p).unwrap();
        prop_assert_eq!(g.validate(), Ok(()));
        prop_assert_eq!(g.nnz() as u64, 2 * (full - removed_edges));
        prop_assert!(g.is_symmetric() && !g.has_self_loops());
        prop_assert!((0..g.n_rows).all(|v| g.degree(v) <= 4));
        prop_assert_eq!(&g, &grid(&p).unwrap(), "deterministic");
    }

    #[test]
    fn mtx_round_trip(entries in proptest::collection::vec((0u32..20, 0u32..30, -100i32..100), 0..200)) {
        let mut text = format!("%%MatrixMarket matrix coordinate integer general\n20 30 {}\n", entries.len());
        for (r, c, v) in &entries {
            text += &format!("{} {} {v}\n", r + 1, c + 1);
        }
        let (_, a) = read_mtx(text.as_bytes(), "gen").unwrap();
        prop_assert_eq!(a.validate(), Ok(()));
        let mut dense = vec![[0.0f64; 30]; 20];
        let mut present = vec![[false; 30]; 20];
        for &(r, c, v) in &entries {
            dense[r as usize][c as usize] += f64::from(v);
            present[r as usize][c as usize] = true;
        }
        prop_assert_eq!(a.nnz(), present.iter().flatten().filter(|&&p| p).count());
        for r in 0..20u32 {
            for (&c, &v) in a.row(r).iter().zip(a.row_values(r).unwrap()) {
                prop_assert_eq!(v, dense[r as usize][c as usize]);
            }
        }
    }
}
