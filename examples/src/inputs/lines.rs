//! Line-at-a-time reading with line numbers, shared by the format readers.
//!
//! Invariant: after [`LineReader::next_line`] returned a line, [`LineReader::line`] is that
//! line's 1-based number; after it returned `None`, it is one past the last line. One buffer is
//! reused for every line, so memory stays flat however long the file is.

use std::io::BufRead;

use super::{InputError, ParseErrorKind};

/// Reads lines from `R`, counting them.
pub(crate) struct LineReader<R> {
    inner: R,
    buf: Vec<u8>,
    line: u64,
    name: String,
}

impl<R: BufRead> LineReader<R> {
    pub(crate) fn new(inner: R, name: &str) -> Self {
        Self {
            inner,
            buf: Vec::with_capacity(256),
            line: 0,
            name: name.to_owned(),
        }
    }

    /// The next line's number and text without its terminator (`\n` or `\r\n`), or `None`
    /// at the end.
    pub(crate) fn next_line(&mut self) -> Result<Option<(u64, &str)>, InputError> {
        self.buf.clear();
        self.line += 1;
        let n = self
            .inner
            .read_until(b'\n', &mut self.buf)
            .map_err(|source| InputError::Io {
                path: self.name.clone().into(),
                source,
            })?;
        if n == 0 {
            return Ok(None);
        }
        while matches!(self.buf.last(), Some(b'\n' | b'\r')) {
            self.buf.pop();
        }
        match std::str::from_utf8(&self.buf) {
            Ok(s) => Ok(Some((self.line, s))),
            Err(_) => Err(InputError::Parse {
                name: self.name.clone(),
                line: self.line,
                kind: ParseErrorKind::Encoding,
            }),
        }
    }

    /// The number of the line last returned (one past the end after `None`).
    pub(crate) fn line(&self) -> u64 {
        self.line
    }
}

/// A parse error in input `name` at 1-based `line`.
pub(crate) fn parse_error(name: &str, line: u64, kind: ParseErrorKind) -> InputError {
    InputError::Parse {
        name: name.to_owned(),
        line,
        kind,
    }
}
