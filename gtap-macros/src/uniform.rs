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
use proc_macro2::TokenStream;
use quote::ToTokens;
use std::collections::HashSet;
use syn::{
    parse::Parser,
    punctuated::Punctuated,
    visit::{self, Visit},
    Expr, Token,
};

mod taint;
use taint::{roots, taint_of, Reason, Scopes};

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

/// A thread-dependent control: a condition, or a loop some threads leave early.
struct Control {
    /// The condition (or the loop's keyword), for the note's span.
    tokens: TokenStream,
    /// What makes it thread-dependent, for the note.
    why: String,
    /// Whether barriers under it are reported as under it (not for loops left early: the
    /// `break`/`continue` is reported instead).
    report: bool,
}

/// A loop or labelled block: what `break`/`continue` leave.
struct Scope {
    start: usize,
    end: usize,
}

#[derive(Clone)]
enum Frame {
    /// Code under this thread-dependent control.
    Control(usize),
    /// Inside this loop or labelled block.
    Target {
        scope: usize,
        is_loop: bool,
        label: Option<String>,
    },
    /// Inside a closure or async block: exits inside do not leave the task.
    Closure,
}

#[derive(Clone, PartialEq, Eq, Debug)]
enum BarrierKind {
    Wait,
    Collective(String),
}

impl BarrierKind {
    fn display(&self) -> String {
        match self {
            BarrierKind::Wait => "`taskwait!()`".to_string(),
            BarrierKind::Collective(f) => format!("`gtap::block::{f}()` barrier"),
        }
    }
}

struct Barrier {
    seq: usize,
    kind: BarrierKind,
    tokens: TokenStream,
    /// The innermost reported thread-dependent control it is under.
    control: Option<usize>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum ExitKind {
    Return,
    Try,
    Break,
    Continue,
}

impl ExitKind {
    /// What to write instead, for the message.
    fn fix(self) -> &'static str {
        match self {
            ExitKind::Return | ExitKind::Try => {
                "keep every thread going to the barrier (record the value in a local and guard the work in between instead), or agree on leaving first with a uniform condition (`if gtap::block::any(c) { return .. }`)"
            }
            ExitKind::Break | ExitKind::Continue => {
                "let every thread take the same way: decide with a uniform condition (`if gtap::block::any(c) { break; }`) or guard the rest of the iteration instead"
            }
        }
    }

    fn display(self) -> &'static str {
        match self {
            ExitKind::Return => "`return`",
            ExitKind::Try => "`?`",
            ExitKind::Break => "`break`",
            ExitKind::Continue => "`continue`",
        }
    }
}

enum Dest {
    /// Leaves the task; these are the loops it is in.
    Function { loops: Vec<usize> },
    /// Leaves this loop or labelled block.
    Break { scope: usize, is_loop: bool },
    /// Goes to the next iteration of this loop.
    Continue { scope: usize },
}

/// An early exit under thread-dependent control.
struct Exit {
    seq: usize,
    kind: ExitKind,
    tokens: TokenStream,
    control: usize,
    dest: Dest,
}

/// What one walk over the body found.
#[derive(Default)]
struct Events {
    new_taint: Vec<String>,
    new_dep: Vec<usize>,
    scopes: Vec<Scope>,
    controls: Vec<Control>,
    barriers: Vec<Barrier>,
    exits: Vec<Exit>,
}

/// One walk over the body with the taint found so far.
struct Walker<'a> {
    tainted: &'a HashSet<String>,
    scopes: Scopes,
    /// Loops and labelled blocks that some threads leave early.
    dep: &'a HashSet<usize>,
    stack: Vec<Frame>,
    seq: usize,
    ev: Events,
}

impl Walker<'_> {
    fn tick(&mut self) -> usize {
        self.seq += 1;
        self.seq
    }

    fn taint(&self, e: &Expr) -> Option<Reason> {
        taint_of(e, self.tainted, &self.scopes)
    }

    fn under_control(&self) -> bool {
        self.stack.iter().any(|f| matches!(f, Frame::Control(_)))
    }

    fn mark(&mut self, names: Vec<String>) {
        for n in names {
            if !self.tainted.contains(&n) {
                self.ev.new_taint.push(n);
            }
        }
    }

    /// Runs `f` under a control when `why` is `Some`.
    fn controlled(&mut self, tokens: TokenStream, why: Option<Reason>, f: impl FnOnce(&mut Self)) {
        match why {
            Some(r) => {
                let c = self.ev.controls.len();
                self.ev.controls.push(Control {
                    tokens,
                    why: r.describe(),
                    report: true,
                });
                self.stack.push(Frame::Control(c));
                f(self);
                self.stack.pop();
            }
            None => f(self),
        }
    }

    fn scope(
        &mut self,
        label: Option<&syn::Label>,
        is_loop: bool,
        tokens: TokenStream,
        f: impl FnOnce(&mut Self),
    ) {
        let idx = self.ev.scopes.len();
        let start = self.tick();
        self.ev.scopes.push(Scope {
            start,
            end: usize::MAX,
        });
        let dep = self.dep.contains(&idx);
        if dep {
            let c = self.ev.controls.len();
            let what = if is_loop { "loop" } else { "block" };
            self.ev.controls.push(Control {
                tokens,
                why: format!(
                    "some threads leave this {what} early (a `break` or `continue` under a condition that depends on `gtap::block::thread_index()`)"
                ),
                report: false,
            });
            self.stack.push(Frame::Control(c));
        }
        self.stack.push(Frame::Target {
            scope: idx,
            is_loop,
            label: label.map(|l| l.name.ident.to_string()),
        });
        f(self);
        self.stack.pop();
        if dep {
            self.stack.pop();
        }
        let end = self.tick();
        self.ev.scopes[idx].end = end;
    }

    fn barrier(&mut self, kind: BarrierKind, tokens: TokenStream) {
        let seq = self.tick();
        let control = self.stack.iter().rev().find_map(|f| match f {
            Frame::Control(c) if self.ev.controls[*c].report => Some(*c),
            _ => None,
        });
        self.ev.barriers.push(Barrier {
            seq,
            kind,
            tokens,
            control,
        });
    }

    fn exit(&mut self, kind: ExitKind, tokens: TokenStream, label: Option<&syn::Lifetime>) {
        let seq = self.tick();
        let mut control = None;
        let mut loops = Vec::new();
        for f in self.stack.iter().rev() {
            match f {
                Frame::Control(c) => {
                    control.get_or_insert(*c);
                }
                Frame::Closure => return,
                Frame::Target {
                    scope,
                    is_loop,
                    label: l,
                } => match kind {
                    ExitKind::Return | ExitKind::Try => {
                        if *is_loop {
                            loops.push(*scope);
                        }
                    }
                    ExitKind::Break | ExitKind::Continue => {
                        let hit = match label {
                            Some(lt) => l.as_deref() == Some(&*lt.ident.to_string()),
                            None => *is_loop,
                        };
                        if !hit {
                            continue;
                        }
                        let Some(control) = control else { return };
                        let (scope, is_loop) = (*scope, *is_loop);
                        self.ev.new_dep.push(scope);
                        let dest = if kind == ExitKind::Break {
                            Dest::Break { scope, is_loop }
                        } else {
                            Dest::Continue { scope }
                        };
                        self.ev.exits.push(Exit {
                            seq,
                            kind,
                            tokens,
                            control,
                            dest,
                        });
                        return;
                    }
                },
            }
        }
        if let (Some(control), ExitKind::Return | ExitKind::Try) = (control, kind) {
            self.ev.exits.push(Exit {
                seq,
                kind,
                tokens,
                control,
                dest: Dest::Function { loops },
            });
        }
    }

    fn assigned(&mut self, left: &Expr, right: Option<&Expr>) {
        let tainted = self.under_control()
            || right.is_some_and(|r| self.taint(r).is_some())
            || self.taint(left).is_some();
        if tainted {
            let mut names = Vec::new();
            roots(left, &mut names);
            let keys = names.iter().map(|n| self.scopes.key(n)).collect();
            self.mark(keys);
        }
    }

    /// Runs `f` in a scope of its own: the bindings made in it end with it.
    fn in_scope<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
        self.scopes.stack.push(Vec::new());
        let r = f(self);
        self.scopes.stack.pop();
        r
    }
}

impl<'ast> Visit<'ast> for Walker<'_> {
    fn visit_local(&mut self, l: &'ast syn::Local) {
        let Some(init) = &l.init else {
            let keys = self.scopes.bind(&l.pat);
            if self.under_control() {
                self.mark(keys);
            }
            return;
        };
        self.visit_expr(&init.expr);
        let why = self.taint(&init.expr);
        if let Some((_, diverge)) = &init.diverge {
            self.controlled(init.expr.to_token_stream(), why.clone(), |s| {
                s.visit_expr(diverge);
            });
        }
        let keys = self.scopes.bind(&l.pat);
        if why.is_some() || self.under_control() {
            self.mark(keys);
        }
    }

    fn visit_block(&mut self, b: &'ast syn::Block) {
        self.in_scope(|s| visit::visit_block(s, b));
    }

    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        visit::visit_expr_assign(self, a);
        self.assigned(&a.left, Some(&a.right));
    }

    fn visit_expr_binary(&mut self, b: &'ast syn::ExprBinary) {
        use syn::BinOp as B;
        match b.op {
            B::And(_) | B::Or(_) => {
                self.visit_expr(&b.left);
                let why = self.taint(&b.left);
                self.controlled(b.left.to_token_stream(), why, |s| s.visit_expr(&b.right));
            }
            B::AddAssign(_)
            | B::SubAssign(_)
            | B::MulAssign(_)
            | B::DivAssign(_)
            | B::RemAssign(_)
            | B::BitXorAssign(_)
            | B::BitAndAssign(_)
            | B::BitOrAssign(_)
            | B::ShlAssign(_)
            | B::ShrAssign(_) => {
                visit::visit_expr_binary(self, b);
                self.assigned(&b.left, Some(&b.right));
            }
            _ => visit::visit_expr_binary(self, b),
        }
    }

    fn visit_expr_let(&mut self, l: &'ast syn::ExprLet) {
        self.visit_expr(&l.expr);
        let tainted = self.taint(&l.expr).is_some() || self.under_control();
        let keys = self.scopes.bind(&l.pat);
        if tainted {
            self.mark(keys);
        }
    }

    fn visit_expr_if(&mut self, i: &'ast syn::ExprIf) {
        // The bindings of `if let` are seen in the `then` branch only.
        self.scopes.stack.push(Vec::new());
        self.visit_expr(&i.cond);
        let why = self.taint(&i.cond);
        let bound = self.scopes.stack.pop().unwrap_or_default();
        self.controlled(i.cond.to_token_stream(), why, |s| {
            s.scopes.stack.push(bound);
            s.visit_block(&i.then_branch);
            s.scopes.stack.pop();
            if let Some((_, els)) = &i.else_branch {
                s.visit_expr(els);
            }
        });
    }

    fn visit_expr_while(&mut self, w: &'ast syn::ExprWhile) {
        self.scope(
            w.label.as_ref(),
            true,
            w.while_token.to_token_stream(),
            |s| {
                s.in_scope(|s| {
                    s.visit_expr(&w.cond);
                    let why = s.taint(&w.cond);
                    s.controlled(w.cond.to_token_stream(), why, |s| s.visit_block(&w.body));
                });
            },
        );
    }

    fn visit_expr_loop(&mut self, l: &'ast syn::ExprLoop) {
        self.scope(
            l.label.as_ref(),
            true,
            l.loop_token.to_token_stream(),
            |s| {
                s.visit_block(&l.body);
            },
        );
    }

    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.visit_expr(&f.expr);
        let why = self.taint(&f.expr);
        self.scope(f.label.as_ref(), true, f.for_token.to_token_stream(), |s| {
            s.in_scope(|s| {
                let keys = s.scopes.bind(&f.pat);
                if why.is_some() || s.under_control() {
                    s.mark(keys);
                }
                s.controlled(f.expr.to_token_stream(), why, |s| s.visit_block(&f.body));
            });
        });
    }

    fn visit_expr_block(&mut self, b: &'ast syn::ExprBlock) {
        match &b.label {
            Some(label) => {
                let tokens = label.name.to_token_stream();
                self.scope(Some(label), false, tokens, |s| s.visit_block(&b.block));
            }
            None => visit::visit_expr_block(self, b),
        }
    }

    fn visit_expr_match(&mut self, m: &'ast syn::ExprMatch) {
        self.visit_expr(&m.expr);
        let why = self.taint(&m.expr);
        self.controlled(m.expr.to_token_stream(), why.clone(), |s| {
            // A thread-dependent guard also controls the arms after it: its control stays on
            // the stack until the end of the match.
            let mut guards = 0;
            for arm in &m.arms {
                s.scopes.stack.push(Vec::new());
                let keys = s.scopes.bind(&arm.pat);
                if why.is_some() || s.under_control() {
                    s.mark(keys);
                }
                let Some((_, g)) = &arm.guard else {
                    s.visit_expr(&arm.body);
                    s.scopes.stack.pop();
                    continue;
                };
                s.visit_expr(g);
                if let Some(r) = s.taint(g) {
                    let c = s.ev.controls.len();
                    s.ev.controls.push(Control {
                        tokens: g.to_token_stream(),
                        why: r.describe(),
                        report: true,
                    });
                    s.stack.push(Frame::Control(c));
                    guards += 1;
                }
                s.visit_expr(&arm.body);
                s.scopes.stack.pop();
            }
            for _ in 0..guards {
                s.stack.pop();
            }
        });
    }

    fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
        visit::visit_expr_return(self, r);
        self.exit(ExitKind::Return, r.return_token.to_token_stream(), None);
    }

    fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
        visit::visit_expr_break(self, b);
        let (token, label) = (&b.break_token, &b.label);
        let tokens = quote::quote!(#token #label);
        self.exit(ExitKind::Break, tokens, b.label.as_ref());
    }

    fn visit_expr_continue(&mut self, c: &'ast syn::ExprContinue) {
        self.exit(ExitKind::Continue, c.to_token_stream(), c.label.as_ref());
    }

    fn visit_expr_try(&mut self, t: &'ast syn::ExprTry) {
        visit::visit_expr_try(self, t);
        self.exit(ExitKind::Try, t.question_token.to_token_stream(), None);
    }

    fn visit_expr_closure(&mut self, c: &'ast syn::ExprClosure) {
        self.stack.push(Frame::Closure);
        self.in_scope(|s| {
            for p in &c.inputs {
                let keys = s.scopes.bind(p);
                if s.under_control() {
                    s.mark(keys);
                }
            }
            s.visit_expr(&c.body);
        });
        self.stack.pop();
    }

    fn visit_expr_async(&mut self, a: &'ast syn::ExprAsync) {
        self.stack.push(Frame::Closure);
        self.visit_block(&a.block);
        self.stack.pop();
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        visit::visit_expr_call(self, c);
        if let Some(f) = collective(c) {
            self.barrier(BarrierKind::Collective(f), c.to_token_stream());
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        for e in macro_exprs(mac).unwrap_or_default() {
            self.visit_expr(&e);
        }
        if marker_kind(&mac.path) == Some(MarkerKind::Wait) {
            self.barrier(BarrierKind::Wait, mac.to_token_stream());
        }
    }
}

// ---- the fixed point and the diagnostics ----

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
