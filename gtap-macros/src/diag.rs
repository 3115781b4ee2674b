//! Error collection: every problem found in one expansion is reported in one compile.
//!
//! Modelled on serde_derive's `Ctxt`: stages push spanned [`syn::Error`]s and go on where they
//! can; [`Ctxt::check`] combines them. Messages are lowercase, say what is expected, and are
//! spanned on the user's tokens (never `Span::call_site()`).

use proc_macro2::Span;
use quote::ToTokens;

/// Collected errors of one expansion.
#[derive(Default)]
pub(crate) struct Ctxt {
    errors: Vec<syn::Error>,
}

impl Ctxt {
    /// Records an error spanned on `tokens`.
    pub(crate) fn error_spanned_by<T: ToTokens>(&mut self, tokens: T, msg: impl std::fmt::Display) {
        self.errors.push(syn::Error::new_spanned(tokens, msg));
    }

    /// Records an error at `span`.
    pub(crate) fn error_at(&mut self, span: Span, msg: impl std::fmt::Display) {
        self.errors.push(syn::Error::new(span, msg));
    }

    /// Records an error produced by syn.
    pub(crate) fn syn_error(&mut self, err: syn::Error) {
        self.errors.push(err);
    }

    /// Whether any error was recorded.
    pub(crate) fn has_errors(&self) -> bool {
        !self.errors.is_empty()
    }

    /// All recorded errors, combined; `Ok` when there are none.
    pub(crate) fn check(self) -> syn::Result<()> {
        let mut iter = self.errors.into_iter();
        match iter.next() {
            None => Ok(()),
            Some(mut first) => {
                for e in iter {
                    first.combine(e);
                }
                Err(first)
            }
        }
    }
}
