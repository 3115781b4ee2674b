//! A deferred update into a local that is not `mut`.
//!
//! `a += task!(..)`, `a[i] op= task!(..)`, `a.f op= task!(..)` and `a.f = task!(..) as T`
//! reach the graph as `let __gtap_deferred_N = task!(..);` and, after the join, `a += __gtap_deferred_N;`
//! (`structure/deferred.rs`). When `a` is not `mut`, rustc rejects that statement (E0384,
//! E0594) at the attribute, since it sits in generated code; this reports it at the place, as
//! `a[i] = task!(..)` into a local that is not `mut` is reported (`cfg.rs`). A whole `a =
//! __gtap_deferred_N as T` is an assignment, which [`crate::assigned`] checks.

use super::Builder;
use crate::{markers::place_root, structure::is_compound, tokens::DEFERRED};
use quote::ToTokens;
use syn::Expr;

impl Builder<'_> {
    /// Reports `e`, a statement, when it applies a deferred result to a place inside a local
    /// that is not `mut`.
    pub(super) fn deferred_into_immutable(&mut self, e: &Expr) {
        let (left, right) = match e {
            Expr::Binary(b) if is_compound(&b.op) => (&*b.left, &*b.right),
            Expr::Assign(a) if !matches!(&*a.left, Expr::Path(_)) => (&*a.left, &*a.right),
            _ => return,
        };
        let mut deferred = false;
        crate::tokens::scan_idents(right.to_token_stream(), &mut |i| {
            deferred |= i.to_string().starts_with(DEFERRED);
        });
        let Some(root) = place_root(left).filter(|_| deferred) else {
            return;
        };
        let Some(l) = self.resolve(root) else { return };
        let decl = &self.body.locals[l.0];
        if !decl.mutable {
            let rewrite = if decl.param.is_some() || decl.in_param_pattern {
                format!("`mut {root}` in the parameter list")
            } else {
                format!("`let mut {root}`")
            };
            let place = left
                .to_token_stream()
                .to_string()
                .replace(" [", "[")
                .replace(" . ", ".");
            self.cx.error_spanned_by(
                left,
                format!("cannot write a task result into `{place}`: declare it mutable, {rewrite}"),
            );
        }
    }
}
