//! What a pattern binds, and whether the value it matches is a borrow (Rust's default binding
//! modes): the names the control-flow graph declares at a `let`, an arm or an `if let`.

use proc_macro2::Span;
use syn::{Expr, Ident, Pat};

/// The bindings of a pattern: (name, `mut`, where it borrows).
///
/// A binding borrows when it is `ref`, or when the pattern matches a borrow (`borrowed`, the
/// span of the `&` of `match &o`, `if let Some(k) = &o`, `let (a, b) = &p`): then Rust binds
/// by reference (default binding modes), up to a `&` pattern, inside which it binds by value
/// again (`Some(&k)`). In a refutable pattern (`match`, `if let`, `let .. else`), an identifier
/// pattern that starts with an uppercase letter is taken for a constant or a unit variant
/// (`None`), as rustc's lint convention has it; in an `irrefutable` one (`let N = ..;`) it binds.
pub(crate) fn bindings(
    pat: &Pat,
    borrowed: Option<Span>,
    irrefutable: bool,
    out: &mut Vec<(Ident, bool, Option<Span>)>,
) {
    let mut inner = |p: &Pat| bindings(p, borrowed, irrefutable, out);
    match pat {
        Pat::Ident(pi) => {
            let upper =
                !irrefutable && pi.ident.to_string().starts_with(|c: char| c.is_uppercase());
            if !(upper && pi.subpat.is_none() && pi.by_ref.is_none() && pi.mutability.is_none()) {
                out.push((
                    pi.ident.clone(),
                    pi.mutability.is_some(),
                    pi.by_ref.map(|r| r.span).or(borrowed),
                ));
            }
            if let Some((_, sub)) = &pi.subpat {
                bindings(sub, borrowed, irrefutable, out);
            }
        }
        Pat::Or(o) => {
            if let Some(first) = o.cases.first() {
                inner(first);
            }
        }
        Pat::Paren(p) => inner(&p.pat),
        Pat::Reference(r) => bindings(&r.pat, None, irrefutable, out),
        Pat::Slice(s) => s.elems.iter().for_each(inner),
        Pat::Struct(s) => s.fields.iter().for_each(|f| inner(&f.pat)),
        Pat::Tuple(t) => t.elems.iter().for_each(inner),
        Pat::TupleStruct(t) => t.elems.iter().for_each(inner),
        Pat::Type(t) => inner(&t.pat),
        _ => {}
    }
}

/// Where `e`, a value that a pattern matches, is a borrow: `&x`, `&mut x` (parenthesized or
/// not), or a call of `as_ref`, `as_mut`, `as_deref`, `as_deref_mut` (`match o.as_ref()`).
/// Other borrows (a method that returns a reference) are not seen: rustc reports those.
pub(super) fn borrow_of(e: &Expr) -> Option<Span> {
    match e {
        Expr::Paren(p) => borrow_of(&p.expr),
        Expr::Reference(r) => Some(r.and_token.span),
        Expr::MethodCall(m)
            if m.args.is_empty()
                && ["as_ref", "as_mut", "as_deref", "as_deref_mut"]
                    .iter()
                    .any(|n| m.method == n) =>
        {
            Some(m.method.span())
        }
        _ => None,
    }
}
