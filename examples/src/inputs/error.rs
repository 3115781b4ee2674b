//! The one error type of `inputs`: what went wrong, where (file and line), and what was expected.
//!
//! Invariant: every [`InputError::Parse`] carries the 1-based line number of the offending line
//! (for an error found at the end of the input, such as a missing entry, the line after the
//! last one), and its message says both what was expected and what was found, so a user can fix
//! the file without reading this crate.

use std::{fmt, io, path::PathBuf};

/// Why an input could not be read or generated.
#[derive(Debug)]
#[non_exhaustive]
pub enum InputError {
    /// The file could not be opened or read.
    Io {
        /// The file, as given.
        path: PathBuf,
        /// The operating system's error.
        source: io::Error,
    },
    /// The file's name does not say which format it is in.
    UnknownFormat {
        /// The file, as given.
        path: PathBuf,
    },
    /// A line of the input does not follow its format.
    Parse {
        /// The input's name (the path, or a name given by the caller for a reader).
        name: String,
        /// The 1-based line number.
        line: u64,
        /// What is wrong with it.
        kind: ParseErrorKind,
    },
    /// The input has more rows, columns or entries than the 32-bit CSR arrays can index.
    TooLarge {
        /// The input's name.
        name: String,
        /// What overflowed (`"entries"`, `"vertices"`).
        what: &'static str,
        /// How many there are.
        count: u64,
    },
    /// A generator was given parameters it cannot honour.
    Parameter {
        /// The parameter and the reason, e.g. ``"`scale` must be in 1..=31, got 40"``.
        message: String,
    },
}

/// What is wrong with one line of an input file.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The first line is not a Matrix Market banner.
    Banner {
        /// The first line, as found.
        found: String,
    },
    /// A banner word names a variant this reader does not handle.
    Unsupported {
        /// Which banner field (`"format"`, `"field"`, `"symmetry"`, `"object"`).
        field: &'static str,
        /// The value found.
        found: String,
        /// The values accepted.
        accepted: &'static str,
    },
    /// The wrong number of whitespace-separated numbers on a line.
    FieldCount {
        /// How many were expected.
        expected: usize,
        /// What they are, e.g. ``"`row col value`"``.
        what: &'static str,
        /// Where in the file, e.g. `"after the size line"`.
        context: &'static str,
        /// How many were found.
        found: usize,
    },
    /// A token is not a number of the expected kind.
    Number {
        /// The token, as found.
        token: String,
        /// What it should be, e.g. `"a row index (a positive integer)"`.
        expected: &'static str,
    },
    /// An index is outside the bounds the size line declared.
    IndexRange {
        /// `"row"` or `"column"`.
        what: &'static str,
        /// The 1-based index found.
        index: u64,
        /// The largest allowed index.
        max: u64,
    },
    /// The file has a different number of entries than its size line declared.
    EntryCount {
        /// The count from the size line.
        declared: u64,
        /// How many entries the file has (at least; reading stops at the first extra one).
        found: u64,
    },
    /// The file ended before its size line.
    MissingSizeLine,
    /// The line is not UTF-8 text.
    Encoding,
}

impl fmt::Display for InputError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Io { path, source } => write!(f, "{}: {source}", path.display()),
            Self::UnknownFormat { path } => write!(
                f,
                "{}: cannot tell the format from the file name; use `.mtx` for Matrix Market or `.txt`/`.el`/`.edges`/`.tsv` for a SNAP edge list",
                path.display()
            ),
            Self::Parse { name, line, kind } => write!(f, "{name}: line {line}: {kind}"),
            Self::TooLarge { name, what, count } => write!(
                f,
                "{name}: {count} {what} do not fit the 32-bit indices of the CSR arrays (at most {})",
                u32::MAX - 1
            ),
            Self::Parameter { message } => f.write_str(message),
        }
    }
}

impl fmt::Display for ParseErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Banner { found } => write!(
                f,
                "expected the Matrix Market banner `%%MatrixMarket matrix coordinate <real|integer|pattern> <general|symmetric|skew-symmetric>`, found `{found}`"
            ),
            Self::Unsupported { field, found, accepted } => {
                write!(f, "the banner's {field} `{found}` is not supported; use one of {accepted}")
            }
            Self::FieldCount { expected, what, context, found } => {
                write!(f, "expected {expected} numbers {what} {context}, found {found}")
            }
            Self::Number { token, expected } => write!(f, "expected {expected}, found `{token}`"),
            Self::IndexRange { what, index, max } => {
                write!(f, "{what} index {index} is outside 1..={max} declared by the size line")
            }
            Self::EntryCount { declared, found } => write!(
                f,
                "the size line declares {declared} entries but the file has {found}; fix the size line or the entries"
            ),
            Self::MissingSizeLine => {
                f.write_str("expected the size line `rows cols entries` after the banner and comments, found the end of the file")
            }
            Self::Encoding => f.write_str("expected UTF-8 text, found other bytes (is the file compressed?)"),
        }
    }
}

impl std::error::Error for InputError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}
