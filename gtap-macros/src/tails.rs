//! `let x = <if / match / block> ;` whose value is a `task!(..)` on some branch:
//! `let a = if c { task!(f(x)) } else { task!(g()) };`, joined by a later `taskwait!()`.
//!
//! The value positions of a construct are its *tails*: the tail expression of a block, of each
//! `if` branch and `match` arm, recursively through nested `if`/`match`/blocks. When a tail is a
//! `task!(..)`, the `let` cannot bind from a temporary after the construct (the structure
//! pass's usual form, [`crate::structure`]): the result is only there after the join. So the
//! binding is declared first, without a value, and each tail assigns it, `x = task!(..)`: the
//! form `let v; if c { v = task!(..) } else { v = task!(..) }` that the later stages already
//! know. Invariants of the forms accepted here, each otherwise a spanned error naming the
//! rewrite:
//! - the pattern is one name (optionally `mut`, optionally typed);
//! - a tail that gives a value is a `task!(..)` (a branch that diverges, `return`,
//!   `continue`, `panic!()`, gives none), or a plain value when the name is not `mut`: `x = e`
//!   then stores the value into `x`'s field too, which holds the result on the other paths
//!   (see [`crate::cfg::Body::stored_writes`]); an `if` without `else` gives `()`, never a
//!   task's result;
//! - the name is not read inside the construct (it would read the new binding, not the
//!   outer one that Rust's `let` sees there).

use crate::tokens::{marker_kind, scan_idents, MarkerKind};
use proc_macro2::Span;
use quote::ToTokens;
use syn::{spanned::Spanned, Block, Expr, Ident, Pat, Stmt};

/// What the tails of a construct give.
#[derive(Default)]
pub(crate) struct Tails {
    /// The spans of tails that are `task!(..)`.
    pub(crate) tasks: Vec<Span>,
    /// The spans of tails that are plain values.
    pub(crate) values: Vec<Span>,
    /// The `if` tokens of `if`s without `else` among them (their value is `()`).
    pub(crate) missing_else: Vec<Span>,
}

/// Collects the tails of `e`, a `let`'s value.
pub(crate) fn tails(e: &Expr) -> Tails {
    let mut out = Tails::default();
    expr_tails(e, &mut out);
    out
}

fn expr_tails(e: &Expr, out: &mut Tails) {
    match e {
        Expr::Paren(p) => expr_tails(&p.expr, out),
        Expr::If(i) => {
            block_tails(&i.then_branch, out);
            match &i.else_branch {
                Some((_, els)) => expr_tails(els, out),
                // An `if` without `else` gives `()` when the condition is false.
                None => {
                    out.values.push(i.if_token.span);
                    out.missing_else.push(i.if_token.span);
                }
            }
        }
        Expr::Match(m) => m.arms.iter().for_each(|arm| expr_tails(&arm.body, out)),
        // A labelled block gives values through `break 'l v` too: not a tail form.
        Expr::Block(b) if b.label.is_none() => block_tails(&b.block, out),
        Expr::Unsafe(b) => block_tails(&b.block, out),
        Expr::Macro(m) if marker_kind(&m.mac.path) == Some(MarkerKind::Task) => {
            out.tasks.push(m.span());
        }
        Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => {}
        e => out.values.push(e.span()),
    }
}

fn block_tails(b: &Block, out: &mut Tails) {
    match b.stmts.last() {
        Some(Stmt::Expr(e, None)) => expr_tails(e, out),
        Some(Stmt::Macro(m)) if m.semi_token.is_none() => {
            if marker_kind(&m.mac.path) == Some(MarkerKind::Task) {
                out.tasks.push(m.span());
            } else {
                out.values.push(m.span());
            }
        }
        // No tail: `()`, or a block that diverges; rustc types it.
        _ => {}
    }
}

/// The name a `let` binds, with whether it is `mut` and its type, when the pattern is one name.
pub(crate) fn single_name(pat: &Pat) -> Option<(&Ident, bool, Option<&syn::Type>)> {
    match pat {
        Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => {
            Some((&pi.ident, pi.mutability.is_some(), None))
        }
        Pat::Type(pt) => single_name(&pt.pat).map(|(i, m, _)| (i, m, Some(&*pt.ty))),
        _ => None,
    }
}

/// The first place `name` is read in `e`, if any.
pub(crate) fn read_in<T: ToTokens>(name: &Ident, e: &T) -> Option<Span> {
    let mut found = None;
    scan_idents(e.to_token_stream(), &mut |id| {
        if id == name && found.is_none() {
            found = Some(id.span());
        }
    });
    found
}
