//! The statements that take the value of a construct with markers besides `let PAT = ..`
//! (which [`super`] handles): `place = <construct>;`, `place op= <construct>;`, `return
//! <construct>;`, and `let PAT = e else { .. }` whose `else` block has markers (rewritten by
//! [`crate::letelse`]).

use super::{has_markers, path_expr, tails, typed_expr, Pass, Tail};
use proc_macro2::{Ident, Span};
use quote::quote;
use syn::{Expr, Stmt};

impl Pass<'_> {
    /// `let PAT = e else { ELSE };` with markers in `ELSE` (see [`crate::letelse`]).
    pub(super) fn let_else(&mut self, mut local: syn::Local, tail: Tail, out: &mut Vec<Stmt>) {
        if let Some(init) = local.init.as_mut().filter(|i| has_markers(&i.expr)) {
            // The value has markers too: bind it first (`let tmp = <construct>;`), so
            // that the `match` below matches a local.
            let tmp = Ident::new(
                &format!("__gtap_value_{}", self.next_value),
                Span::call_site(),
            );
            self.next_value += 1;
            let value = std::mem::replace(&mut *init.expr, path_expr(&tmp));
            if let Ok(s) = syn::parse2::<Stmt>(quote!(let #tmp = #value;)) {
                self.stmt(s, Tail::Keep, out);
            }
        }
        match crate::letelse::rewrite(local) {
            Ok(s) => self.stmt(s, tail, out),
            Err(e) => self.cx.syn_error(e),
        }
    }

    /// `return <construct with markers>;`: each value position returns.
    pub(super) fn return_construct(
        &mut self,
        r: syn::ExprReturn,
        semi: Option<syn::Token![;]>,
        out: &mut Vec<Stmt>,
    ) {
        let Some(mut e) = r.expr.map(|e| *e) else {
            return;
        };
        while let Expr::Paren(p) = e {
            e = *p.expr;
        }
        self.construct(&mut e, Tail::Return);
        out.push(Stmt::Expr(e, semi.or(Some(Default::default()))));
    }

    /// `place = <construct with markers>;` or `place op= <construct>;`. A local assigned
    /// whole (`x = ..`) takes the value in each value position (`if c { ..; x = v; } else {
    /// x = w; }`: Rust evaluates the right side before it writes the place, so this is the
    /// same), which also lets a value position be a `task!(..)`; other places and compound
    /// assignments go through a temporary, as `let` does: `let tmp; <construct with tmp =
    /// tail;> place op= tmp;`.
    pub(super) fn assign_construct(
        &mut self,
        left: Expr,
        op: Option<syn::BinOp>,
        right: Expr,
        semi: Option<syn::Token![;]>,
        out: &mut Vec<Stmt>,
    ) {
        let mut e = right;
        while let Expr::Paren(p) = e {
            e = *p.expr;
        }
        let semi = semi.or(Some(Default::default()));
        if let (None, Expr::Path(p)) = (&op, &left) {
            if let Some(x) = p.path.get_ident().filter(|_| p.qself.is_none()) {
                self.construct(&mut e, Tail::Assign(x.clone()));
                out.push(Stmt::Expr(e, semi));
                return;
            }
        }
        if let Some(task) = tails::tails(&e).tasks.first() {
            self.cx.error_at(
                *task,
                "a task's result cannot be stored into a field, an element or with a compound assignment from inside an `if`/`match`/block: its value is there only after the taskwait!(); write `let r = if c { task!(f(..)) } else { task!(g(..)) };` and store `r` after the join",
            );
            return;
        }
        let tmp = Ident::new(
            &format!("__gtap_value_{}", self.next_value),
            Span::call_site(),
        );
        self.next_value += 1;
        if let Ok(s) = syn::parse2::<Stmt>(quote!(let #tmp;)) {
            out.push(s);
        }
        self.construct(&mut e, Tail::Assign(tmp.clone()));
        out.push(Stmt::Expr(e, Some(Default::default())));
        let value = Box::new(typed_expr(&tmp));
        let store = match op {
            None => Expr::Assign(syn::ExprAssign {
                attrs: Vec::new(),
                left: Box::new(left),
                eq_token: Default::default(),
                right: value,
            }),
            Some(op) => Expr::Binary(syn::ExprBinary {
                attrs: Vec::new(),
                left: Box::new(left),
                op,
                right: value,
            }),
        };
        self.stmt(Stmt::Expr(store, semi), Tail::Keep, out);
    }
}

/// An `if`/`match`/block/labelled block/`loop` with markers, the value of an assignment or a
/// `return`.
pub(super) fn is_construct_value(e: &Expr) -> bool {
    let mut e = e;
    while let Expr::Paren(p) = e {
        e = &p.expr;
    }
    matches!(
        e,
        Expr::If(_) | Expr::Match(_) | Expr::Block(_) | Expr::Unsafe(_) | Expr::Loop(_)
    ) && has_markers(e)
}

/// `let PAT = e else { .. }` whose `else` block has markers (see [`crate::letelse`]).
pub(super) fn has_else_markers(local: &syn::Local) -> bool {
    local
        .init
        .as_ref()
        .and_then(|i| i.diverge.as_ref())
        .is_some_and(|(_, els)| has_markers(els))
}
