//! Real inputs for the irregular examples (BFS, SpMV): a CSR type, streaming readers for Matrix
//! Market and SNAP edge-list files, and seeded generators. Host-only (it allocates and reads
//! files); the task functions see the result as `Slice` handles to the CSR arrays.
//!
//! Every input becomes a [`Csr`] with the invariants listed in `csr.rs`: sorted rows, no
//! duplicate entries, `u32` indices. Readers stream from a `BufRead` one line at a time, so the
//! file's size only matters through the edges kept. Every error is an [`InputError`] whose
//! message names the file, the line and what was expected there. The formats, the error
//! messages and the generators' parameters are described in `docs/inputs.md`.

mod csr;
mod error;
mod generate;
mod lines;
mod mtx;
mod snap;

use std::{
    fs::File,
    io::BufReader,
    path::{Path, PathBuf},
};

pub use csr::{Coo, Csr};
pub use error::{InputError, ParseErrorKind};
pub use generate::{grid, random_matrix, rmat, Grid, Rmat, Rng};
pub use mtx::{read_mtx, Field, Header, Symmetry};
pub use snap::{read_snap, SnapOptions, VertexIds};

/// A file format, told by the file name's extension.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Matrix Market (`.mtx`).
    MatrixMarket,
    /// SNAP edge list (`.txt`, `.el`, `.edges`, `.tsv`, `.snap`).
    Snap,
}

impl Format {
    /// The format `path`'s extension names (case-insensitive).
    ///
    /// # Errors
    ///
    /// [`InputError::UnknownFormat`] for any other extension, including compressed files.
    pub fn from_path(path: &Path) -> Result<Self, InputError> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        match ext.as_deref() {
            Some("mtx") => Ok(Self::MatrixMarket),
            Some("txt" | "el" | "edges" | "tsv" | "snap") => Ok(Self::Snap),
            _ => Err(InputError::UnknownFormat {
                path: path.to_owned(),
            }),
        }
    }
}

/// Options for [`load`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// Add the reverse of every entry (a graph read as undirected). Matrix Market files that are
    /// already `symmetric` need not ask; values are mirrored unchanged.
    pub symmetrize: bool,
    /// How a SNAP file's vertex ids become row numbers.
    pub ids: VertexIds,
}

/// Reads `path` in the format its extension names.
///
/// # Errors
///
/// [`InputError`] naming the file, and for a format error the line and what was expected.
pub fn load(path: impl AsRef<Path>, options: LoadOptions) -> Result<Csr, InputError> {
    let path = path.as_ref();
    let format = Format::from_path(path)?;
    let file = File::open(path).map_err(|source| InputError::Io {
        path: PathBuf::from(path),
        source,
    })?;
    let reader = BufReader::with_capacity(1 << 20, file);
    let name = path.display().to_string();
    match format {
        Format::MatrixMarket => {
            let (_, csr) = read_mtx(reader, &name)?;
            if options.symmetrize {
                symmetrized(csr, &name)
            } else {
                Ok(csr)
            }
        }
        Format::Snap => read_snap(
            reader,
            &name,
            SnapOptions {
                ids: options.ids,
                symmetrize: options.symmetrize,
            },
        ),
    }
}

/// `csr` with the reverse of every entry added (duplicates merged, values summed).
///
/// # Errors
///
/// [`InputError::Parameter`] for a non-square matrix; [`InputError::TooLarge`].
pub fn symmetrized(csr: Csr, name: &str) -> Result<Csr, InputError> {
    if csr.n_rows != csr.n_cols {
        let message = format!(
            "{name}: a {}x{} matrix is not square and cannot be symmetrized",
            csr.n_rows, csr.n_cols
        );
        return Err(InputError::Parameter { message });
    }
    let mut coo = Coo::new(csr.n_rows, csr.n_cols, csr.values.is_some());
    coo.rows.reserve(2 * csr.nnz());
    for r in 0..csr.n_rows {
        coo.rows
            .extend(std::iter::repeat_n(r, csr.degree(r) as usize));
    }
    coo.cols = csr.targets;
    coo.values = csr.values;
    // `mirror` keeps the diagonal once; an entry whose mirror is present merges with it.
    coo.mirror(|v| v);
    coo.into_csr(name, false)
}
