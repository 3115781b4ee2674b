//! Task results that land after their join: `place op= task!(f(..));` and a `let` that
//! destructures one, `let PAT = task!(f(..));` (also `let PAT = if c { task!(..) } else {
//! task!(..) };`). Their value may also be built of tasks: a cast, `task!(f(..)) as u32` (then
//! also in `let x = ..` and `place = ..`), a tuple or an array of tasks, `let (a, b) =
//! (task!(f(..)), task!(g(..)));`, each task with a hidden local of its own.
//!
//! Both bind the child's result to a hidden local, and move the rest of the statement to right
//! after the `taskwait!()` that joins it:
//!
//! ```text
//! // Before                            // After
//! total += task!(f(a));                let __gtap_deferred_0 = task!(f(a));
//! let (lo, hi) = task!(g(b));          let __gtap_deferred_1 = task!(g(b));
//! work(b);                             work(b);
//! taskwait!();                         taskwait!();
//!                                      total += __gtap_deferred_0;
//!                                      let (lo, hi) = __gtap_deferred_1;
//! ```
//!
//! The later stages see only forms they know (a result declared by its spawn, read after its
//! join). Invariants, each otherwise a spanned error naming the rewrite, that make the deferred
//! statement indistinguishable from Rust's (where the result is there at once):
//! - the join is the first `taskwait!()` statement after the spawn in the same block (a join
//!   nested in a construct before it may join the child earlier; the statement still waits for
//!   this one, and every way to it passes that join);
//! - between the spawn and that join (its queue hint included), no statement names the place's
//!   root or a name of the pattern, and none may change a local that the place's indexes read
//!   (see [`changed`]): nothing can observe that the update or the binding comes later. Only
//!   the target or pattern of another deferred statement may name them: those are applied after
//!   the join in source order, as Rust runs them;
//! - the place is a local, or fields and indexes over one, the indexes plain expressions (they
//!   are evaluated at the join), and the local's address is not taken as a raw pointer (see
//!   [`super::targets`]);
//! - the statement carries no `#[cfg]` (it is then left to the usual error).
//!
//! A loop that runs `total += task!(f(i))` in each iteration before one join after the loop
//! would need a result per child, a number known only at run time: that has no join in its
//! block, and the error names an array of results, `parts[i] = task!(..)`, combined after the
//! join. The update itself (an overflow of `+=`, a user's `AddAssign`) runs at the join.

use super::{
    is_compound, is_construct_init, is_wild, path_expr,
    targets::{complex_index, shown, through_pointer},
    Pass,
};
use crate::{
    cfg::bindings,
    markers::{parse_wait, place_root},
    tails,
    tokens::{cfg_attr_span, marker_kind, scan_idents, MarkerKind, DEFERRED},
};
use proc_macro2::{Ident, Span, TokenStream};
use quote::ToTokens;
use syn::{Expr, Pat, Stmt};

/// A deferred statement waiting for its join.
struct Waiting {
    /// The locals no statement may name before the join: the place's root, the pattern's names
    /// (emptied once one was named, so that each statement is reported once).
    watched: Vec<Ident>,
    /// The locals an index of the place reads, which no statement may change before the join
    /// (reading them is harmless).
    indexes: Vec<Ident>,
    /// What runs after the join.
    after: Stmt,
    /// The statement as the user wrote it, for messages (`` `total += task!(..)` ``).
    shown: String,
    /// `Some((place, op))` for an update, `None` for a pattern.
    update: Option<(String, String)>,
    /// The user's statement, where a missing join is reported.
    at: TokenStream,
}

/// A statement this pass defers, recognized.
enum Form<'s> {
    /// `left op= <value>` (`op` is `None` for `left = <value>`, deferred only when the value
    /// is not a bare task), with `value` a task or a cast of one (`task!(..) as u32`).
    Update {
        left: &'s Expr,
        op: Option<&'s syn::BinOp>,
        value: &'s Expr,
        attrs: &'s [syn::Attribute],
    },
    /// `let PAT = <value>;` with a destructuring `PAT`, or a value built of tasks (a cast, a
    /// tuple; see [`is_tasks`]).
    Pattern(&'s syn::Local),
}

fn form(s: &Stmt) -> Option<Form<'_>> {
    if cfg_attr_span(s).is_some() {
        return None;
    }
    match s {
        Stmt::Expr(Expr::Binary(b), _) if is_compound(&b.op) && is_one_task(&b.right) => {
            Some(Form::Update {
                left: &b.left,
                op: Some(&b.op),
                value: &b.right,
                attrs: &b.attrs,
            })
        }
        // `x = task!(..)` itself is the child's to write (see `crate::lower`).
        Stmt::Expr(Expr::Assign(a), _) if is_one_task(&a.right) && !is_task(&a.right) => {
            Some(Form::Update {
                left: &a.left,
                op: None,
                value: &a.right,
                attrs: &a.attrs,
            })
        }
        Stmt::Local(l) if destructures(l) => Some(Form::Pattern(l)),
        _ => None,
    }
}

fn is_task(e: &Expr) -> bool {
    matches!(e, Expr::Macro(m) if marker_kind(&m.mac.path) == Some(MarkerKind::Task))
}

/// One task, maybe cast (`task!(..) as T`) or parenthesized: the cast is applied at the join.
fn is_one_task(e: &Expr) -> bool {
    is_tasks(e) && !matches!(strip_parens(e), Expr::Tuple(_) | Expr::Array(_))
}

fn strip_parens(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip_parens(&p.expr),
        e => e,
    }
}

/// A value made of tasks only: a task, a cast of one, a tuple or an array of such values
/// (`(task!(f(..)), task!(g(..)))`), parenthesized or not. Each task is spawned where the
/// value stands (in order, as Rust evaluates it); the rest is built at the join.
fn is_tasks(e: &Expr) -> bool {
    match e {
        Expr::Paren(p) => is_tasks(&p.expr),
        Expr::Cast(c) => {
            is_tasks(&c.expr) && !matches!(strip_parens(&c.expr), Expr::Tuple(_) | Expr::Array(_))
        }
        Expr::Tuple(t) => !t.elems.is_empty() && t.elems.iter().all(is_tasks),
        Expr::Array(a) => !a.elems.is_empty() && a.elems.iter().all(is_tasks),
        e => is_task(e),
    }
}

/// The tasks of `value` (see [`is_tasks`]), each with the hidden local `ids` gives it, and
/// `value` with each task replaced by its local.
fn split_tasks(value: &Expr, ids: &mut dyn FnMut() -> Ident, out: &mut Vec<(Ident, Expr)>) -> Expr {
    let mut value = value.clone();
    match &mut value {
        Expr::Paren(p) => *p.expr = split_tasks(&p.expr, ids, out),
        Expr::Cast(c) => *c.expr = split_tasks(&c.expr, ids, out),
        Expr::Tuple(t) => t
            .elems
            .iter_mut()
            .for_each(|e| *e = split_tasks(e, ids, out)),
        Expr::Array(a) => a
            .elems
            .iter_mut()
            .for_each(|e| *e = split_tasks(e, ids, out)),
        task => {
            let id = ids();
            out.push((id.clone(), task.clone()));
            return path_expr(&id);
        }
    }
    value
}

/// `value` as a message shows it: `task!(..) as u32`.
fn shown_value(value: &Expr) -> String {
    let dots = Ident::new("__gtap_dots", Span::call_site());
    let mut ignored = Vec::new();
    let shown_dots = split_tasks(value, &mut || dots.clone(), &mut ignored);
    shown(&shown_dots).replace("__gtap_dots", "task!(..)")
}

fn is_wait(s: &Stmt) -> Option<&syn::Macro> {
    let mac = match s {
        Stmt::Macro(m) => &m.mac,
        Stmt::Expr(Expr::Macro(m), _) => &m.mac,
        _ => return None,
    };
    (marker_kind(&mac.path) == Some(MarkerKind::Wait)).then_some(mac)
}

/// `let PAT = task!(..);` or `let PAT = <construct whose values are all tasks>;` with a pattern
/// that is not one name (nor `_`), without `else`.
fn destructures(l: &syn::Local) -> bool {
    let Some(init) = &l.init else { return false };
    if init.diverge.is_some() || is_wild(&l.pat) {
        return false;
    }
    if is_tasks(&init.expr) && !is_task(&init.expr) {
        return true;
    }
    if tails::single_name(&l.pat).is_some() {
        return false;
    }
    if is_task(&init.expr) {
        return true;
    }
    let found = tails::tails(&init.expr);
    is_construct_init(l) && !found.tasks.is_empty() && found.values.is_empty()
}

/// The names a statement mentions, bindings of a `let` included (`let a: u32 = ..`, whose `a`
/// the token scan takes for a field name).
fn mentions(s: &Stmt) -> Vec<Ident> {
    let mut out = Vec::new();
    scan_idents(s.to_token_stream(), &mut |id| out.push(id.clone()));
    if let Stmt::Local(l) = s {
        let mut found = Vec::new();
        bindings(&l.pat, None, true, &mut found);
        out.extend(found.into_iter().map(|(id, _, _)| id));
    }
    out
}

impl Pass<'_> {
    /// Defers the statements of one block (see the module docs); `loop_body` when the block
    /// is a loop's body.
    pub(super) fn defer(&mut self, stmts: Vec<Stmt>, loop_body: bool) -> Vec<Stmt> {
        if !stmts.iter().any(|s| form(s).is_some()) {
            return stmts;
        }
        let mut out = Vec::with_capacity(stmts.len());
        let mut waiting: Vec<Waiting> = Vec::new();
        for stmt in stmts {
            if let Some(mac) = is_wait(&stmt) {
                // The hint is evaluated before the join.
                if let Ok(w) = parse_wait(mac) {
                    if let Some(q) = &w.queue {
                        self.check_between(&mut waiting, q);
                    }
                }
                out.push(stmt);
                out.extend(waiting.drain(..).map(|w| w.after));
                continue;
            }
            let Some(f) = form(&stmt) else {
                // Items capture nothing.
                if !matches!(stmt, Stmt::Item(_)) {
                    self.named_early(&mut waiting, &mentions(&stmt), &changed(&stmt));
                }
                out.push(stmt);
                continue;
            };
            // What the spawn itself evaluates (its arguments, its hint) runs before the join;
            // its target or pattern is the deferred part.
            let value = match &f {
                Form::Update { value, .. } => value.to_token_stream(),
                Form::Pattern(l) => l
                    .init
                    .as_ref()
                    .map(|i| i.expr.to_token_stream())
                    .unwrap_or_default(),
            };
            let deferred = match f {
                Form::Update {
                    left,
                    op,
                    value,
                    attrs,
                } => self.update(left, op, value, attrs),
                Form::Pattern(l) => Some(self.pattern(l)),
            };
            self.check_between(&mut waiting, &value);
            if let Some((spawns, w)) = deferred {
                out.extend(spawns);
                waiting.push(w);
            }
        }
        for w in waiting {
            self.no_join(&w, loop_body);
        }
        out
    }

    /// `left op= value` → the spawn into `id` and the update after the join; `None` after an
    /// error.
    fn update(
        &mut self,
        left: &Expr,
        op: Option<&syn::BinOp>,
        value: &Expr,
        attrs: &[syn::Attribute],
    ) -> Option<(Vec<Stmt>, Waiting)> {
        let (place, op_shown) = (shown(left), op.map_or_else(|| "=".to_string(), shown));
        let value_shown = shown_value(value);
        let Some(root) = place_root(left) else {
            let msg = through_pointer(left, &op_shown, &self.for_iters);
            self.cx.error_spanned_by(left, msg);
            return None;
        };
        if let Some(index) = complex_index(left) {
            self.cx.error_spanned_by(
                index,
                format!(
                    "the place of `{place} {op_shown} {value_shown}` is evaluated at the taskwait!() that joins the task, where the update is applied, so its indexes must be names, literals or arithmetic of them: bind this index to a local first, `let k = ..;`, and index with `k`"
                ),
            );
            return None;
        }
        if let Some((_, at)) = self.raw_roots.iter().find(|(r, _)| r == root) {
            self.cx.error_at(
                *at,
                format!(
                    "`{root}` has its address taken as a raw pointer here, and `{place} {op_shown} {value_shown}` applies the update only at the taskwait!() that joins the task, which a read through the pointer before that join would not see: write `let r = task!(f(..));` and `{place} {op_shown} r;` after the taskwait!()"
                ),
            );
            return None;
        }
        let mut indexes = Vec::new();
        scan_idents(left.to_token_stream(), &mut |i| {
            if i != root {
                indexes.push(i.clone());
            }
        });
        let (spawns, value) = self.spawns(value, attrs);
        let update = match op {
            Some(op) => Expr::Binary(syn::ExprBinary {
                attrs: Vec::new(),
                left: Box::new(left.clone()),
                op: *op,
                right: Box::new(value),
            }),
            None => Expr::Assign(syn::ExprAssign {
                attrs: Vec::new(),
                left: Box::new(left.clone()),
                eq_token: Default::default(),
                right: Box::new(value),
            }),
        };
        let after = Stmt::Expr(update, Some(Default::default()));
        Some((
            spawns,
            Waiting {
                watched: vec![root.clone()],
                indexes,
                after,
                shown: format!("`{place} {op_shown} {value_shown}`"),
                update: Some((place, op_shown)),
                at: op.map_or_else(|| left.to_token_stream(), ToTokens::to_token_stream),
            },
        ))
    }

    /// `let PAT = <value>;` → the hidden `let` and `let PAT = id;` after the join.
    fn pattern(&mut self, l: &syn::Local) -> (Vec<Stmt>, Waiting) {
        let value = l
            .init
            .as_ref()
            .map_or(Expr::Verbatim(TokenStream::new()), |i| (*i.expr).clone());
        // One task or a construct of tasks, destructured: a type ascription goes on the result
        // (rustc's mismatch then points at it). A value built of tasks (a cast, a tuple) is
        // built at the join, where the user's `let` keeps its type.
        let whole = is_task(&value) || !is_tasks(&value);
        let (pat, ty) = match &l.pat {
            Pat::Type(pt) if whole => ((*pt.pat).clone(), Some((*pt.ty).clone())),
            p => (p.clone(), None),
        };
        let (spawns, after_value) = if whole {
            let id = self.deferred_id();
            let spawn = hidden_let(&id, ty, value.clone(), l.attrs.clone());
            (vec![spawn], path_expr(&id))
        } else {
            self.spawns(&value, &l.attrs)
        };
        let mut names = Vec::new();
        bindings(&pat, None, true, &mut names);
        let shown_value = if is_tasks(&value) {
            shown_value(&value)
        } else {
            "..".to_string()
        };
        let after = Stmt::Local(syn::Local {
            attrs: Vec::new(),
            let_token: l.let_token,
            pat: pat.clone(),
            init: Some(syn::LocalInit {
                eq_token: Default::default(),
                expr: Box::new(after_value),
                diverge: None,
            }),
            semi_token: l.semi_token,
        });
        let pat = match &pat {
            Pat::Type(pt) => (*pt.pat).clone(),
            p => p.clone(),
        };
        (
            spawns,
            Waiting {
                watched: names.into_iter().map(|(i, _, _)| i).collect(),
                indexes: Vec::new(),
                after,
                shown: format!("`let {} = {shown_value}`", shown(&pat)),
                update: None,
                at: pat.to_token_stream(),
            },
        )
    }

    fn deferred_id(&mut self) -> Ident {
        let id = Ident::new(
            &format!("{DEFERRED}{}", self.next_deferred),
            Span::call_site(),
        );
        self.next_deferred += 1;
        id
    }

    /// `let __gtap_deferred_N = task!(..);` for each task of `value` (see [`is_tasks`], numbered
    /// in the order Rust evaluates them), and `value` built of those locals.
    fn spawns(&mut self, value: &Expr, attrs: &[syn::Attribute]) -> (Vec<Stmt>, Expr) {
        let mut tasks = Vec::new();
        let mut next = self.next_deferred;
        let built = split_tasks(
            value,
            &mut || {
                next += 1;
                Ident::new(&format!("{DEFERRED}{}", next - 1), Span::call_site())
            },
            &mut tasks,
        );
        self.next_deferred = next;
        let spawns = tasks
            .into_iter()
            .map(|(id, task)| hidden_let(&id, None, task, attrs.to_vec()))
            .collect();
        (spawns, built)
    }

    /// Reports the first name in `named` that a waiting statement watches, or the first in
    /// `changed` (the names the code may change) that an index of its place reads.
    fn named_early(&mut self, waiting: &mut [Waiting], named: &[Ident], changed: &[Ident]) {
        for w in waiting.iter_mut() {
            if let Some(id) = changed.iter().find(|n| w.indexes.contains(n)) {
                let (place, _) = w.update.clone().unwrap_or_default();
                self.cx.error_at(
                    id.span(),
                    format!(
                        "`{id}` may be changed here, between {} and the taskwait!() that joins that task: the place `{place}` is evaluated at that join, where the result is combined into it, so the locals its indexes read may not change before; bind the index to a local of its own first, `let k = ..;`",
                        w.shown
                    ),
                );
                w.indexes.clear();
                continue;
            }
            let Some(id) = named.iter().find(|n| w.watched.contains(n)) else {
                continue;
            };
            let msg = match &w.update {
                Some((place, op)) => format!(
                    "`{id}` is named here, between {} and the taskwait!() that joins that task: the result is combined into `{place}` only at that join, so nothing may read or write `{id}` before it; move this after the taskwait!(), or write `let r = task!(f(..));` and `{place} {op} r;` where the result is needed",
                    w.shown
                ),
                None => format!(
                    "`{id}` is named here, between {} and the taskwait!() that joins that task: the pattern binds its names only at that join (their values are the task's result); move this after the taskwait!(), or name the other binding differently",
                    w.shown
                ),
            };
            self.cx.error_at(id.span(), msg);
            w.watched.clear();
        }
    }

    /// [`Self::named_early`] for the tokens `t`.
    fn check_between<T: ToTokens>(&mut self, waiting: &mut [Waiting], t: &T) {
        let named = scanned(t);
        let changed = changed(t);
        self.named_early(waiting, &named, &changed);
    }

    /// A deferred statement with no join after it in its block.
    fn no_join(&mut self, w: &Waiting, loop_body: bool) {
        let shown = &w.shown;
        let msg = match (&w.update, loop_body) {
            (Some((place, op)), true) => format!(
                "{shown} in a loop spawns a child per iteration before the taskwait!() that joins them all, and each child needs a result of its own (the update is applied at a taskwait!() later in the same block, and this loop body has none): store the results in an array, `parts[i] = task!(f(..));` (with `let mut parts = [0; N];` before the loop), and combine them after the taskwait!(), `for p in parts {{ {place} {op} p; }}`"
            ),
            (Some((place, op)), false) => format!(
                "{shown} is applied at the taskwait!() that joins the task, which must be a later statement of the same block, and this block has none: declare the result before the block, `let mut r = ..;`, spawn into it here, `r = task!(f(..));`, and write `{place} {op} r;` after the taskwait!(){}",
                self.in_loop_hint()
            ),
            (None, true) => format!(
                "{shown} in a loop binds its names at a taskwait!() later in the loop body, and this loop body has none: join in the loop body, or store the results in an array, `parts[i] = task!(f(..));`, and destructure them after the taskwait!()"
            ),
            (None, false) => format!(
                "{shown} binds its names at the taskwait!() that joins the task, which must be a later statement of the same block, and this block has none: declare the result before the block, `let r;`, spawn into it here, `r = task!(f(..));`, and destructure `r` after the taskwait!(){}",
                self.in_loop_hint()
            ),
        };
        self.cx.error_spanned_by(&w.at, msg);
    }

    fn in_loop_hint(&self) -> &'static str {
        if self.loops > 0 {
            " (in a loop that spawns before a join after it, give each child a result of its own: `parts[i] = task!(f(..));`)"
        } else {
            ""
        }
    }
}

/// `let id[: ty] = value;` (the attributes of the user's statement kept, so that its lints
/// and a misplaced `#[cfg]` are seen there).
fn hidden_let(id: &Ident, ty: Option<syn::Type>, value: Expr, attrs: Vec<syn::Attribute>) -> Stmt {
    let ident = Pat::Ident(syn::PatIdent {
        attrs: Vec::new(),
        by_ref: None,
        mutability: None,
        ident: id.clone(),
        subpat: None,
    });
    let pat = match ty {
        Some(ty) => Pat::Type(syn::PatType {
            attrs: Vec::new(),
            pat: Box::new(ident),
            colon_token: Default::default(),
            ty: Box::new(ty),
        }),
        None => ident,
    };
    Stmt::Local(syn::Local {
        attrs,
        let_token: Default::default(),
        pat,
        init: Some(syn::LocalInit {
            eq_token: Default::default(),
            expr: Box::new(value),
            diverge: None,
        }),
        semi_token: Default::default(),
    })
}

/// The names the code `t` may change: the roots of assigned places (`k = ..`, `k += ..`,
/// `(k, j) = ..`), of `&mut` borrows and of method receivers (`k.step()` may take `&mut
/// self`), the names bound in it (a shadowing `let`, a pattern), and every name in the
/// arguments of a macro that do not parse as expressions. Closures are entered: one may assign
/// a capture.
fn changed<T: ToTokens>(t: &T) -> Vec<Ident> {
    use syn::visit::Visit;
    #[derive(Default)]
    struct Find(Vec<Ident>);
    impl Find {
        fn roots(&mut self, e: &Expr) {
            match e {
                Expr::Tuple(t) => t.elems.iter().for_each(|e| self.roots(e)),
                Expr::Array(a) => a.elems.iter().for_each(|e| self.roots(e)),
                Expr::Call(c) => c.args.iter().for_each(|e| self.roots(e)),
                Expr::Struct(s) => s.fields.iter().for_each(|f| self.roots(&f.expr)),
                Expr::Unary(u) => self.roots(&u.expr),
                e => self.0.extend(place_root(e).cloned()),
            }
        }
    }
    impl<'a> Visit<'a> for Find {
        fn visit_expr(&mut self, e: &'a Expr) {
            match e {
                Expr::Assign(a) => self.roots(&a.left),
                Expr::Binary(b) if is_compound(&b.op) => self.roots(&b.left),
                Expr::Reference(r) if r.mutability.is_some() => self.roots(&r.expr),
                Expr::RawAddr(r) => self.roots(&r.expr),
                Expr::MethodCall(m) => self.roots(&m.receiver),
                _ => {}
            }
            syn::visit::visit_expr(self, e);
        }
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.0.push(p.ident.clone());
            syn::visit::visit_pat_ident(self, p);
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            // Arguments that parse as expressions (`task!(f(k))`, `assert!(k < n)`) are
            // visited; in any other macro every name may change.
            let parser = syn::punctuated::Punctuated::<Expr, syn::Token![,]>::parse_terminated;
            match m.parse_body_with(parser) {
                Ok(args) => args.iter().for_each(|e| self.visit_expr(e)),
                Err(_) => scan_idents(m.tokens.clone(), &mut |i| self.0.push(i.clone())),
            }
        }
    }
    let mut find = Find::default();
    let tokens = t.to_token_stream();
    if let Ok(stmt) = syn::parse2::<syn::Block>(quote::quote!({ #tokens })) {
        find.visit_block(&stmt);
    } else {
        // Not parsed: every name may change.
        scan_idents(tokens, &mut |i| find.0.push(i.clone()));
    }
    find.0
}

/// The names `t` reads.
fn scanned<T: ToTokens>(t: &T) -> Vec<Ident> {
    let mut out = Vec::new();
    scan_idents(t.to_token_stream(), &mut |i| out.push(i.clone()));
    out
}
