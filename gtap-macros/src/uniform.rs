//! The block API rules: barriers in a block-level task must be uniform, and the block API is
//! rejected in thread-level tasks.
//!
//! A block-level task (`#[gtap::function(block)]`) runs its body on every thread of a thread
//! block at once. A `taskwait!()` and the block collectives (`gtap::block::sync`, `any`,
//! `count`, `sum_f64`, `sum_u64`, `max_u32`, `broadcast`: a call whose path ends in
//! `block::<name>`) are block barriers: every thread must reach each of them, the same number
//! of times. This stage rejects the two syntactic ways of breaking that:
//!
//! - a barrier lexically under *thread-dependent control*: the condition of an `if`/`while`,
//!   the scrutinee or a guard of a `match` (a tainted guard also controls the arms after it),
//!   the iterator of a `for`, the expression of `if let`/`while let`/`let .. else`, or the left
//!   side of `&&`/`||` (for the right side);
//! - an early exit (`return`, `?`, `break`, `continue`) under thread-dependent control that lets
//!   some threads skip a barrier: for `return`/`?` a barrier textually after it or anywhere in
//!   an enclosing loop; for `break` a barrier anywhere in the loop it leaves (for a labelled
//!   block: after it in the block); for `continue` a barrier after it in its loop.
//!
//! Thread dependence is a syntactic, flow-insensitive taint computed to a fixed point. Sources:
//! a path whose last segment is `thread_index` or `is_leader` (`gtap::block::thread_index()`,
//! or the function imported). An expression is tainted when it contains a source or names a
//! tainted local; the result of a collective is uniform, so its arguments are not looked at.
//! Tainted are: the bindings of a `let` (any pattern), `if let`, `while let`, `for` or `match`
//! arm whose expression is tainted; the root local of the left side of `x = e` / `x op= e`
//! (`x`, `x.f`, `x[i]`, `*x`) when `e` or the place is tainted; `let x = task!(f(args))` when an
//! argument is tainted; every local bound or assigned under thread-dependent control; and every
//! local assigned in a loop or labelled block that some threads leave early (a `break` or
//! `continue` under thread-dependent control).
//!
//! Each binding is a local of its own (a shadowing `let a = gtap::block::broadcast(a);` is
//! uniform whatever the outer `a` is; names resolve through the scopes of the walk).
//!
//! Limits: values loaded from memory (`Slice` reads, atomics' return values),
//! mutation through method calls (`v.push(t)`) and the bodies of called functions are not
//! tracked; arguments of foreign macros are seen when they parse as comma-separated
//! expressions, otherwise only their identifiers are scanned for taint; `return` inside a
//! closure or async block is not an exit of the task. A `task!` under thread-dependent control
//! is fine: every thread that runs it spawns its own child.
//!
//! In a thread-level function, a call of any `gtap::block` function (a path ending in
//! `block::<name>`) is an error: there is no block to synchronize with.

use crate::{
    diag::Ctxt,
    markers::{parse_spawn, parse_wait, Target},
    tokens::{marker_kind, MarkerKind},
};
use std::collections::HashSet;
use syn::{
    parse::Parser,
    punctuated::Punctuated,
    visit::{self, Visit},
    Expr, Token,
};

mod taint;
mod walk;
use taint::Scopes;
use walk::{BarrierKind, Dest, Events, Walker};

/// The block collectives: each is a barrier of the whole block.
const COLLECTIVES: &[&str] = &[
    "sync",
    "any",
    "count",
    "sum_f64",
    "sum_u64",
    "max_u32",
    "broadcast",
];

/// Every function of `gtap::block`.
const BLOCK_API: &[&str] = &[
    "sync",
    "any",
    "count",
    "sum_f64",
    "sum_u64",
    "max_u32",
    "broadcast",
    "thread_index",
    "size",
    "is_leader",
];

/// The last path segments that make an expression thread-dependent.
const SOURCES: &[&str] = &["thread_index", "is_leader"];

/// Runs the rules on a function body: the uniformity check for a block-level function, the
/// misuse check for a thread-level one.
pub(crate) fn check(cx: &mut Ctxt, body: &syn::Block, block: bool) {
    if block {
        check_uniform(cx, body);
    } else {
        let mut m = Misuse { cx };
        m.visit_block(body);
    }
}

/// The `gtap::block` function a path names (`block::f`, `gtap::block::f`, `::gtap::block::f`).
fn block_fn(path: &syn::Path) -> Option<String> {
    let n = path.segments.len();
    if n < 2 || path.segments[n - 2].ident != "block" {
        return None;
    }
    let last = path.segments[n - 1].ident.to_string();
    BLOCK_API.contains(&last.as_str()).then_some(last)
}

/// The collective a call names, if any.
fn collective(call: &syn::ExprCall) -> Option<String> {
    call_path(call)
        .and_then(block_fn)
        .filter(|f| COLLECTIVES.contains(&f.as_str()))
}

fn call_path(call: &syn::ExprCall) -> Option<&syn::Path> {
    match &*call.func {
        Expr::Path(p) if p.qself.is_none() => Some(&p.path),
        _ => None,
    }
}

/// The expressions inside a macro invocation that this stage can see: the queue hint and the
/// arguments of `task!`, the queue hint of `taskwait!`, and the arguments of a foreign macro
/// when they parse as comma-separated expressions (`None` when they do not).
fn macro_exprs(mac: &syn::Macro) -> Option<Vec<Expr>> {
    match marker_kind(&mac.path) {
        Some(MarkerKind::Task) => Some(
            parse_spawn(mac, Target::Detached)
                .map(|s| s.queue.into_iter().chain(s.args).collect())
                .unwrap_or_default(),
        ),
        Some(MarkerKind::Wait) => Some(
            parse_wait(mac)
                .map(|w| w.queue.into_iter().collect())
                .unwrap_or_default(),
        ),
        None => Punctuated::<Expr, Token![,]>::parse_terminated
            .parse2(mac.tokens.clone())
            .ok()
            .map(|p| p.into_iter().collect()),
    }
}

/// The tainted locals at the fixed point and the events of the last walk (made with them).
fn analyze(body: &syn::Block) -> (HashSet<String>, Events) {
    let mut tainted = HashSet::new();
    let mut dep = HashSet::new();
    loop {
        let mut w = Walker {
            tainted: &tainted,
            scopes: Scopes::default(),
            dep: &dep,
            stack: Vec::new(),
            seq: 0,
            ev: Events::default(),
        };
        w.visit_block(body);
        let mut ev = w.ev;
        let before = (tainted.len(), dep.len());
        tainted.extend(ev.new_taint.drain(..));
        dep.extend(ev.new_dep.drain(..));
        if (tainted.len(), dep.len()) == before {
            return (tainted, ev);
        }
    }
}

/// The locals the analysis finds thread-dependent, sorted (for tests).
#[cfg(test)]
pub(crate) fn tainted_locals(body: &syn::Block) -> Vec<String> {
    let mut v: Vec<_> = analyze(body)
        .0
        .into_iter()
        .map(|k| k.split('#').next().unwrap_or_default().to_string())
        .collect();
    v.sort();
    v.dedup();
    v
}

fn check_uniform(cx: &mut Ctxt, body: &syn::Block) {
    let (_, ev) = analyze(body);
    let mut noted = HashSet::new();
    let mut errors: Vec<(usize, Vec<syn::Error>)> = Vec::new();
    let note = |noted: &mut HashSet<usize>, errs: &mut Vec<syn::Error>, c: usize| {
        if noted.insert(c) {
            let ctl = &ev.controls[c];
            let msg = if ctl.report {
                format!(
                    "the condition: it {}, so the threads of a block may disagree on it",
                    ctl.why
                )
            } else {
                ctl.why.clone()
            };

            errs.push(syn::Error::new_spanned(&ctl.tokens, msg));
        }
    };
    for b in &ev.barriers {
        let Some(c) = b.control else { continue };
        let head = match &b.kind {
            BarrierKind::Wait => {
                "`taskwait!()` in a block-level task must be reached by every thread of the block"
                    .to_string()
            }
            BarrierKind::Collective(f) if f == "sync" => {
                "`gtap::block::sync()` is a block barrier that every thread of the block must reach"
                    .to_string()
            }
            BarrierKind::Collective(f) => format!(
                "`gtap::block::{f}()` is a block collective (a barrier) that every thread of the block must reach"
            ),
        };
        let fix = match &b.kind {
            BarrierKind::Wait => {
                "move it out of the condition: spawn under the condition, join after it where every thread goes (`let mut a = 0; if gtap::block::is_leader() { a = task!(..); } taskwait!(); let a = gtap::block::broadcast(a);`)"
            }
            BarrierKind::Collective(f) if f == "sync" => {
                "move it out of the condition, to where every thread goes"
            }
            BarrierKind::Collective(_) => {
                "call it where every thread goes and put the condition in its argument (`gtap::block::sum_u64(if c { v } else { 0 })`)"
            }
        };
        let mut errs = vec![syn::Error::new_spanned(
            &b.tokens,
            format!(
                "{head}: this one is under a condition that depends on `gtap::block::thread_index()`; {fix}"
            ),
        )];
        note(&mut noted, &mut errs, c);
        errors.push((b.seq, errs));
    }
    let in_scope = |s: usize, seq: usize| ev.scopes[s].start < seq && seq < ev.scopes[s].end;
    for x in &ev.exits {
        let skipped = match &x.dest {
            Dest::Function { loops } => ev
                .barriers
                .iter()
                .find(|b| b.seq > x.seq)
                .map(|b| (b, "the later"))
                .or_else(|| {
                    loops.iter().find_map(|&l| {
                        ev.barriers
                            .iter()
                            .find(|b| in_scope(l, b.seq))
                            .map(|b| (b, "the enclosing loop's"))
                    })
                }),
            Dest::Break {
                scope,
                is_loop: true,
            } => ev
                .barriers
                .iter()
                .find(|b| in_scope(*scope, b.seq))
                .map(|b| (b, "the loop's")),
            Dest::Break {
                scope,
                is_loop: false,
            }
            | Dest::Continue { scope } => ev
                .barriers
                .iter()
                .find(|b| b.seq > x.seq && in_scope(*scope, b.seq))
                .map(|b| (b, "the later")),
        };
        let Some((b, which)) = skipped else { continue };
        let mut errs = vec![syn::Error::new_spanned(
            &x.tokens,
            format!(
                "{} under a condition that depends on `gtap::block::thread_index()` in a block-level task: the threads that leave early here would skip {which} {}, which every thread of the block must reach; {}",
                x.kind.display(),
                b.kind.display(),
                x.kind.fix(),
            ),
        )];
        note(&mut noted, &mut errs, x.control);
        errors.push((x.seq, errs));
    }
    errors.sort_by_key(|(seq, _)| *seq);
    for e in errors.into_iter().flat_map(|(_, e)| e) {
        cx.syn_error(e);
    }
}

/// Reports every `gtap::block` call in a thread-level function.
struct Misuse<'a> {
    cx: &'a mut Ctxt,
}

impl<'ast> Visit<'ast> for Misuse<'_> {
    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        if let Some(path) = call_path(c) {
            if let Some(f) = block_fn(path) {
                self.cx.error_spanned_by(
                    path,
                    format!(
                        "`gtap::block::{f}` is only meaningful in a block-level task: mark the function `#[gtap::function(block)]`"
                    ),
                );
            }
        }
        visit::visit_expr_call(self, c);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        for e in macro_exprs(mac).unwrap_or_default() {
            self.visit_expr(&e);
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}
