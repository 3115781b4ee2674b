//! Break values of a loop or labelled block that contains markers: the lowering mirrors such a
//! construct as a statement in each resume state, so its value is carried out explicitly.
//!
//! `let v = 'l: loop { .. break 'l e; .. };` becomes `let tmp; 'l: loop { .. { tmp = e; break
//! 'l; } .. } let v = tmp;` (the structure pass declares `tmp`), and a loop that is the
//! function's result (`loop { .. break e; .. }` as the tail) has `break e` turned into
//! `return e`.
//!
//! Invariant: only the breaks that leave *this* construct are rewritten: a labelled `break 'l`
//! with its label, or an unlabelled `break` of a `loop` that is not inside a nested
//! `loop`/`while`/`for`. Closures, async blocks and nested items are not entered (their
//! `break`s cannot leave the construct).

use crate::tokens::contains_marker;
use proc_macro2::Ident;
use quote::{quote, ToTokens};
use syn::{visit_mut::VisitMut, Expr};

/// Where a break value goes.
pub(crate) enum Carry<'a> {
    /// Returned from the task: `break e` → `return e`.
    Return,
    /// Assigned to this local: `break 'l e` → `{ x = e; break 'l; }`.
    Assign(&'a Ident),
}

/// Rewrites the value-carrying breaks that leave the construct labelled `label` (a loop when
/// `is_loop`, else a labelled block) inside `body`.
pub(crate) fn rewrite(
    body: &mut syn::Block,
    label: Option<&syn::Label>,
    is_loop: bool,
    carry: &Carry<'_>,
) {
    let mut r = Rewriter {
        label: label.map(|l| l.name.ident.to_string()),
        is_loop,
        inner_loops: 0,
        carry,
        label_tokens: label.map(|l| l.name.clone()),
    };
    r.visit_block_mut(body);
}

struct Rewriter<'a> {
    label: Option<String>,
    is_loop: bool,
    inner_loops: usize,
    carry: &'a Carry<'a>,
    label_tokens: Option<syn::Lifetime>,
}

impl Rewriter<'_> {
    fn targets_us(&self, b: &syn::ExprBreak) -> bool {
        match &b.label {
            Some(l) => self.label.as_deref() == Some(&l.ident.to_string()),
            None => self.is_loop && self.inner_loops == 0,
        }
    }

    fn nested_loop(&mut self, f: impl FnOnce(&mut Self)) {
        self.inner_loops += 1;
        f(self);
        self.inner_loops -= 1;
    }
}

impl VisitMut for Rewriter<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Closure(_) | Expr::Async(_) => {}
            Expr::Loop(l) => self.nested_loop(|s| syn::visit_mut::visit_expr_loop_mut(s, l)),
            Expr::While(w) => self.nested_loop(|s| syn::visit_mut::visit_expr_while_mut(s, w)),
            Expr::ForLoop(f) => {
                self.nested_loop(|s| syn::visit_mut::visit_expr_for_loop_mut(s, f));
            }
            // A marker as the value (`break task!(..)`) is left for `crate::check` to report.
            Expr::Break(b)
                if b.expr.is_some()
                    && self.targets_us(b)
                    && !contains_marker(b.to_token_stream(), false) =>
            {
                let Some(value) = b.expr.take() else { return };
                let mut value = *value;
                self.visit_expr_mut(&mut value);
                let tokens = match self.carry {
                    Carry::Return => quote!(return #value),
                    Carry::Assign(x) => {
                        let label = &self.label_tokens;
                        quote!({ #x = #value; break #label; })
                    }
                };
                // Parsed back, so that the CFG sees the `break`/`return` it holds.
                *e = syn::parse2(tokens.clone()).unwrap_or(Expr::Verbatim(tokens));
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
