//! `let PAT = e else { .. };` whose `else` block contains markers.
//!
//! The lowering mirrors a construct around a wait in each resume state, and a `let .. else`'s
//! `else` block is not a construct it knows (it is part of a statement that also binds). So
//! the structure pass rewrites the statement into the `let` over a `match` it already lowers:
//!
//! ```text
//! let Some((mut a, b)) = e else { ELSE };
//! // becomes
//! let (mut a, b) = match e { Some((a, b)) => (a, b), _ => { ELSE } };
//! ```
//!
//! Rust's own desugaring of `let .. else` is the same `match`, so the bindings, their binding
//! modes (`match &o` binds by reference as `let Some(k) = &o else` does) and the order of
//! evaluation are unchanged. The `else` block diverges; its tail, if any, gets a semicolon, so
//! the `match`'s value comes from the first arm only. A `ref` binding is an error (its borrow
//! would outlive the `match`), and so is a type ascription on the pattern (`let P: T = e
//! else`): the `match` cannot carry it.

use crate::cfg::bindings;
use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::{visit_mut::VisitMut, Block, Expr, Local, Pat, Stmt};

/// The `match` form of `local`, a `let .. else` whose `else` block has markers (see the
/// module docs), as one `let` statement.
pub(crate) fn rewrite(local: Local) -> syn::Result<Stmt> {
    let Some(init) = local.init else {
        return Err(syn::Error::new_spanned(
            &local.pat,
            "`let .. else` without a value",
        ));
    };
    let Some((_, else_block)) = init.diverge else {
        return Err(syn::Error::new_spanned(&local.pat, "`let` without `else`"));
    };
    let pat = local.pat;
    if let Pat::Type(pt) = &pat {
        return Err(syn::Error::new_spanned(
            &pt.ty,
            "a `let .. else` whose `else` block contains task!(..) or taskwait!() cannot carry a type on its pattern: give the value its type first, `let v: T = e; let PAT = v else { .. }`",
        ));
    }
    let mut found = Vec::new();
    bindings(&pat, None, false, &mut found);
    if let Some((ident, _, _)) = found.iter().find(|(_, _, by_ref)| by_ref.is_some()) {
        return Err(syn::Error::new_spanned(
            ident,
            format!(
                "`ref {ident}` cannot be bound by a `let .. else` whose `else` block contains task!(..) or taskwait!(): bind by value, or match on a reference (`let Some({ident}) = &e else {{ .. }}`)"
            ),
        ));
    }
    let names: Vec<_> = found.iter().map(|(ident, _, _)| ident).collect();
    let outer: Vec<TokenStream> = found
        .iter()
        .map(|(ident, mutable, _)| {
            let m = mutable.then(<syn::Token![mut]>::default);
            quote!(#m #ident)
        })
        .collect();
    let (outer, values) = match names.as_slice() {
        [one] => (outer[0].clone(), quote!(#one)),
        _ => (quote!((#(#outer),*)), quote!((#(#names),*))),
    };
    let mut arm_pat = pat;
    StripMut.visit_pat_mut(&mut arm_pat);
    let else_block = diverging(*else_block);
    let scrutinee = init.expr;
    let span = Span::call_site();
    let stmt = quote::quote_spanned! {span=>
        let #outer = match #scrutinee {
            #arm_pat => #values,
            _ => #else_block,
        };
    };
    syn::parse2(stmt)
}

/// The `else` block with its tail turned into a statement: it diverges, so nothing changes,
/// but the structure pass must not carry it out as the `match`'s value.
fn diverging(e: Expr) -> Expr {
    let Expr::Block(mut b) = e else { return e };
    end_tail(&mut b.block);
    Expr::Block(b)
}

fn end_tail(block: &mut Block) {
    match block.stmts.last_mut() {
        Some(Stmt::Expr(_, semi @ None)) => *semi = Some(Default::default()),
        Some(Stmt::Macro(m)) if m.semi_token.is_none() => m.semi_token = Some(Default::default()),
        _ => {}
    }
}

/// Drops `mut` from the bindings of the arm's pattern (the outer `let` keeps it).
struct StripMut;

impl VisitMut for StripMut {
    fn visit_pat_ident_mut(&mut self, p: &mut syn::PatIdent) {
        p.mutability = None;
        if let Some((_, sub)) = &mut p.subpat {
            self.visit_pat_mut(sub);
        }
    }
}
