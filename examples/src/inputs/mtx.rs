//! Matrix Market reader: the `coordinate` format, fields `real`/`integer`/`pattern`,
//! symmetries `general`/`symmetric`/`skew-symmetric`.
//!
//! Layout: a banner line `%%MatrixMarket matrix coordinate <field> <symmetry>` (words are
//! case-insensitive), then `%` comment lines and blank lines, a size line `rows cols entries`,
//! then one entry per line: `row col value` (`row col` for `pattern`), 1-based. A symmetric
//! file stores one triangle; every off-diagonal entry is mirrored (negated for skew-symmetric).
//! Duplicate entries are summed in file order (as most tools do). The reader streams: it holds
//! one line at a time plus the entries read so far.
//!
//! Sources: the format's definition, Boisvert, Pozo, Remington, "The Matrix Market Exchange
//! Formats: Initial Design" (NIST IR 5935, 1996), §3–4.

use std::io::BufRead;

use super::{
    lines::{parse_error, LineReader},
    Coo, Csr, InputError, ParseErrorKind,
};

/// What the banner's `field` word says the entries carry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Field {
    /// Floating-point values.
    Real,
    /// Integer values (read into `f64`).
    Integer,
    /// No values: the positions only.
    Pattern,
}

/// What the banner's `symmetry` word says is stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Symmetry {
    /// Every entry is stored.
    General,
    /// One triangle; `a[j][i] == a[i][j]`.
    Symmetric,
    /// One triangle; `a[j][i] == -a[i][j]`.
    SkewSymmetric,
}

/// A Matrix Market file's banner.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// The entries' field.
    pub field: Field,
    /// The storage symmetry.
    pub symmetry: Symmetry,
}

/// Reads a Matrix Market file from `reader`; `name` is used in error messages.
///
/// # Errors
///
/// [`InputError::Parse`] naming the line and what was expected there, [`InputError::Io`], or
/// [`InputError::TooLarge`].
pub fn read_mtx<R: BufRead>(reader: R, name: &str) -> Result<(Header, Csr), InputError> {
    let err = |line, kind| parse_error(name, line, kind);
    let mut lines = LineReader::new(reader, name);
    let header = match lines.next_line()? {
        Some((ln, first)) => parse_banner(first).map_err(|kind| err(ln, kind))?,
        None => {
            return Err(err(
                1,
                ParseErrorKind::Banner {
                    found: String::new(),
                },
            ))
        }
    };
    let (n_rows, n_cols, declared, size_line) = loop {
        let Some((ln, line)) = lines.next_line()? else {
            return Err(err(lines.line(), ParseErrorKind::MissingSizeLine));
        };
        let line = line.trim();
        if line.is_empty() || line.starts_with('%') {
            continue;
        }
        let t: Vec<&str> = line.split_whitespace().collect();
        if t.len() != 3 {
            let kind = ParseErrorKind::FieldCount {
                expected: 3,
                what: "`rows cols entries`",
                context: "on the size line",
                found: t.len(),
            };
            return Err(err(ln, kind));
        }
        let dim = |s: &str| -> Result<u64, InputError> {
            s.parse::<u64>().map_err(|_| {
                let expected = "a count (a non-negative integer) on the size line";
                err(
                    ln,
                    ParseErrorKind::Number {
                        token: s.to_owned(),
                        expected,
                    },
                )
            })
        };
        let (r, c, e) = (dim(t[0])?, dim(t[1])?, dim(t[2])?);
        for (what, v) in [("rows", r), ("columns", c)] {
            if v >= u64::from(u32::MAX) {
                return Err(InputError::TooLarge {
                    name: name.to_owned(),
                    what,
                    count: v,
                });
            }
        }
        break (r as u32, c as u32, e, ln);
    };
    if header.symmetry != Symmetry::General && n_rows != n_cols {
        let kind = ParseErrorKind::Unsupported {
            field: "symmetry (with a non-square size)",
            found: format!("{n_rows}x{n_cols}"),
            accepted: "`general` for rectangular matrices",
        };
        return Err(err(size_line, kind));
    }
    let (expected, what) = match header.field {
        Field::Pattern => (2, "`row col`"),
        Field::Real | Field::Integer => (3, "`row col value`"),
    };
    let mut coo = Coo::new(n_rows, n_cols, header.field != Field::Pattern);
    let capacity = usize::try_from(declared).unwrap_or(usize::MAX).min(1 << 28);
    coo.rows.reserve(capacity);
    coo.cols.reserve(capacity);
    let mut found = 0u64;
    while let Some((ln, line)) = lines.next_line()? {
        let line = line.trim();
        if line.is_empty() || line.starts_with('%') {
            continue;
        }
        found += 1;
        if found > declared {
            return Err(err(ln, ParseErrorKind::EntryCount { declared, found }));
        }
        let mut fields = [""; 3];
        let mut count = 0;
        for t in line.split_whitespace() {
            if count < 3 {
                fields[count] = t;
            }
            count += 1;
        }
        if count != expected {
            let kind = ParseErrorKind::FieldCount {
                expected,
                what,
                context: "after the size line",
                found: count,
            };
            return Err(err(ln, kind));
        }
        let r = index(fields[0], "row", n_rows).map_err(|k| err(ln, k))?;
        let c = index(fields[1], "column", n_cols).map_err(|k| err(ln, k))?;
        let v = match header.field {
            Field::Pattern => 1.0,
            Field::Real => fields[2].parse::<f64>().map_err(|_| {
                err(
                    ln,
                    ParseErrorKind::Number {
                        token: fields[2].to_owned(),
                        expected: "a real value",
                    },
                )
            })?,
            Field::Integer => fields[2].parse::<i64>().map_err(|_| {
                err(
                    ln,
                    ParseErrorKind::Number {
                        token: fields[2].to_owned(),
                        expected: "an integer value",
                    },
                )
            })? as f64,
        };
        coo.push(r, c, v);
    }
    if found != declared {
        return Err(err(
            lines.line(),
            ParseErrorKind::EntryCount { declared, found },
        ));
    }
    match header.symmetry {
        Symmetry::General => {}
        Symmetry::Symmetric => coo.mirror(|v| v),
        Symmetry::SkewSymmetric => coo.mirror(|v| -v),
    }
    Ok((header, coo.into_csr(name, false)?))
}

/// A 1-based index in `1..=max`, returned 0-based.
fn index(token: &str, what: &'static str, max: u32) -> Result<u32, ParseErrorKind> {
    let expected = if what == "row" {
        "a row index (a positive integer)"
    } else {
        "a column index (a positive integer)"
    };
    let i = token.parse::<u64>().map_err(|_| ParseErrorKind::Number {
        token: token.to_owned(),
        expected,
    })?;
    if i == 0 || i > u64::from(max) {
        return Err(ParseErrorKind::IndexRange {
            what,
            index: i,
            max: u64::from(max),
        });
    }
    Ok((i - 1) as u32)
}

fn parse_banner(line: &str) -> Result<Header, ParseErrorKind> {
    let words: Vec<String> = line
        .split_whitespace()
        .map(str::to_ascii_lowercase)
        .collect();
    if words.len() != 5 || words[0] != "%%matrixmarket" {
        return Err(ParseErrorKind::Banner {
            found: line.to_owned(),
        });
    }
    if words[1] != "matrix" {
        return Err(ParseErrorKind::Unsupported {
            field: "object",
            found: words[1].clone(),
            accepted: "`matrix`",
        });
    }
    if words[2] != "coordinate" {
        let accepted = "`coordinate` (dense `array` files are not sparse inputs)";
        return Err(ParseErrorKind::Unsupported {
            field: "format",
            found: words[2].clone(),
            accepted,
        });
    }
    let field = match words[3].as_str() {
        "real" | "double" => Field::Real,
        "integer" => Field::Integer,
        "pattern" => Field::Pattern,
        other => {
            let accepted = "`real`, `integer`, `pattern`";
            return Err(ParseErrorKind::Unsupported {
                field: "field",
                found: other.to_owned(),
                accepted,
            });
        }
    };
    let symmetry = match words[4].as_str() {
        "general" => Symmetry::General,
        "symmetric" => Symmetry::Symmetric,
        "skew-symmetric" => Symmetry::SkewSymmetric,
        other => {
            let accepted = "`general`, `symmetric`, `skew-symmetric`";
            return Err(ParseErrorKind::Unsupported {
                field: "symmetry",
                found: other.to_owned(),
                accepted,
            });
        }
    };
    Ok(Header { field, symmetry })
}
