//! Markers the structure pass left in the body are misplaced: this pass reports each one with
//! the reason (inside a closure, an async block, a nested item, another macro's arguments, or
//! in expression position), and rejects the `?` operator inside another macro's arguments,
//! where the lowering cannot turn it into the task's early return. It also rejects a plain
//! call of the function's own name (`fib(n - 1)` in `fib`): that name is the task's handle.
//! For the same reason a binding may not take the name of a handle in scope (the function's
//! own, or a callee spawned by a one-segment path): `let sq = task!(sq(x));` would match the
//! unit struct `sq` instead of binding a local.
//!
//! Like async-trait's visitors, it does not lower anything inside closures, async blocks and
//! nested items; it only looks there for markers.

use crate::{
    diag::Ctxt,
    markers::{Marker, Target},
    tokens::{find_marker, find_question, marker_kind, MarkerKind, PLACEHOLDER},
};
use proc_macro2::Ident;
use syn::visit::{self, Visit};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Where {
    Body,
    Closure,
    Async,
    Item,
}

struct Checker<'a> {
    cx: &'a mut Ctxt,
    at: Where,
    /// The task function's name.
    name: &'a Ident,
    /// The task handles a binding could clash with: `name` and the one-segment callees.
    handles: Vec<&'a Ident>,
}

/// Reports every misplaced marker, every `?` in another macro's arguments, every plain call of
/// `name` (the task function's own) in `body`, and every parameter or binding named like a
/// task handle (`name` or a one-segment `callee`).
pub(crate) fn check_body(
    cx: &mut Ctxt,
    body: &syn::Block,
    name: &Ident,
    params: &[&Ident],
    markers: &[Marker],
) {
    let spawns = || {
        markers.iter().filter_map(|m| match m {
            Marker::Spawn(s) => Some(s),
            Marker::Wait(_) => None,
        })
    };
    let mut handles = vec![name];
    for id in spawns().filter_map(|s| s.func.path.get_ident()) {
        if !handles.contains(&id) {
            handles.push(id);
        }
    }
    let mut checker = Checker {
        cx,
        at: Where::Body,
        name,
        handles,
    };
    for p in params {
        checker.binding(p);
    }
    // `let x = task!(..)`: the structure pass took the `let` out of the body.
    for s in spawns() {
        if let Target::Let { ident, .. } = &s.target {
            checker.binding(ident);
        }
    }
    checker.visit_block(body);
}

fn message(kind: MarkerKind, at: Where) -> String {
    let m = kind.display();
    match at {
        Where::Closure => format!("{m} cannot be used inside a closure"),
        Where::Async => format!("{m} cannot be used inside an async block"),
        Where::Item => format!(
            "{m} cannot be used inside a nested item: only the #[gtap::function] itself is rewritten"
        ),
        Where::Body => match kind {
            MarkerKind::Task => "task!(..) must be a statement of its own: `task!(f(..));`, `let x = task!(f(..));`, `let (a, b) = task!(f(..));`, `x = task!(f(..));`, `x[i] = task!(f(..));` or `x += task!(f(..));` (the result may be cast, `task!(f(..)) as T`); bind the result and compute with it after the taskwait!()".to_string(),
            MarkerKind::Wait => "taskwait!() must be a statement of its own, not part of an expression".to_string(),
        },
    }
}

impl Checker<'_> {
    /// Reports a binding that takes a task handle's name.
    fn binding(&mut self, id: &Ident) {
        if self.handles.contains(&id) {
            self.cx.error_spanned_by(
                id,
                format!(
                    "`{id}` names a task function in scope (its handle, a unit struct), so a binding of that name would match the handle instead of binding a value: name it differently, e.g. `{id}_v`"
                ),
            );
        }
    }

    fn within(&mut self, at: Where, f: impl FnOnce(&mut Self)) {
        let saved = self.at;
        self.at = at;
        f(self);
        self.at = saved;
    }
}

impl<'ast> Visit<'ast> for Checker<'_> {
    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if let syn::Expr::Path(p) = &*call.func {
            let own = p.qself.is_none()
                && p.path.leading_colon.is_none()
                && p.path.segments.len() == 1
                && p.path.segments[0].ident == *self.name;
            if own {
                let name = self.name;
                self.cx.error_spanned_by(
                    &call.func,
                    format!(
                        "`{name}` is this task function's handle, not a Rust function: spawn it with `task!({name}(..))` and join it with `taskwait!()`, or call an ordinary `fn` for sequential code"
                    ),
                );
            }
        }
        visit::visit_expr_call(self, call);
    }

    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        // A nested item has its own scope, which may shadow the handle.
        if self.at != Where::Item {
            self.binding(&p.ident);
        }
        visit::visit_pat_ident(self, p);
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        self.within(Where::Closure, |s| visit::visit_expr_closure(s, c));
    }

    fn visit_expr_async(&mut self, a: &'ast syn::ExprAsync) {
        self.within(Where::Async, |s| visit::visit_expr_async(s, a));
    }

    fn visit_item(&mut self, i: &'ast syn::Item) {
        self.within(Where::Item, |s| visit::visit_item(s, i));
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        if mac.path.is_ident(PLACEHOLDER) {
            return;
        }
        if let Some(kind) = marker_kind(&mac.path) {
            self.cx.error_spanned_by(mac, message(kind, self.at));
        } else if let (Where::Body, Some(span)) = (self.at, find_question(mac.tokens.clone())) {
            self.cx.error_at(
                span,
                "the `?` operator cannot be used inside the arguments of another macro in a #[gtap::function]: bind the value first, `let v = e?;`, and pass `v`",
            );
        } else if let Some((kind, span)) = find_marker(mac.tokens.clone()) {
            let msg = if self.at == Where::Body {
                format!(
                    "{} cannot be used inside the arguments of another macro",
                    kind.display()
                )
            } else {
                message(kind, self.at)
            };
            self.cx.error_at(span, msg);
        }
    }
}
