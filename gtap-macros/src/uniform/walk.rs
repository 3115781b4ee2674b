//! The walk of a block-level body (the parent module's docs): one pass over the syntax that
//! records the thread-dependent controls, the barriers and the early exits it meets, and the
//! locals it finds newly tainted; the parent repeats it until the taint is at a fixed point.
//!
//! Invariants: `stack` mirrors the thread-dependent controls, loops and closures open at the
//! current node, innermost last; barriers and exits record the position at which they were
//! met (`seq`, from [`Walker::tick`]) and loops their range of positions (`start..end`), so
//! the checks can order them as the source does.

use super::taint::{roots, taint_of, Reason, Scopes};
use super::{collective, macro_exprs};
use crate::{
    structure::is_compound,
    tokens::{marker_kind, MarkerKind},
};
use proc_macro2::TokenStream;
use quote::ToTokens;
use std::collections::HashSet;
use syn::{
    visit::{self, Visit},
    Expr,
};

/// A thread-dependent control: a condition, or a loop some threads leave early.
pub(super) struct Control {
    /// The condition (or the loop's keyword), for the note's span.
    pub(super) tokens: TokenStream,
    /// What makes it thread-dependent, for the note.
    pub(super) why: String,
    /// Whether barriers under it are reported as under it (not for loops left early: the
    /// `break`/`continue` is reported instead).
    pub(super) report: bool,
}

/// A loop or labelled block: what `break`/`continue` leave.
pub(super) struct Scope {
    pub(super) start: usize,
    pub(super) end: usize,
}

#[derive(Clone)]
pub(super) enum Frame {
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
pub(super) enum BarrierKind {
    Wait,
    Collective(String),
}

impl BarrierKind {
    pub(super) fn display(&self) -> String {
        match self {
            BarrierKind::Wait => "`taskwait!()`".to_string(),
            BarrierKind::Collective(f) => format!("`gtap::block::{f}()` barrier"),
        }
    }
}

pub(super) struct Barrier {
    pub(super) seq: usize,
    pub(super) kind: BarrierKind,
    pub(super) tokens: TokenStream,
    /// The innermost reported thread-dependent control it is under.
    pub(super) control: Option<usize>,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum ExitKind {
    Return,
    Try,
    Break,
    Continue,
}

impl ExitKind {
    /// What to write instead, for the message.
    pub(super) fn fix(self) -> &'static str {
        match self {
            ExitKind::Return | ExitKind::Try => {
                "keep every thread going to the barrier (record the value in a local and guard the work in between instead), or agree on leaving first with a uniform condition (`if gtap::block::any(c) { return .. }`)"
            }
            ExitKind::Break | ExitKind::Continue => {
                "let every thread take the same way: decide with a uniform condition (`if gtap::block::any(c) { break; }`) or guard the rest of the iteration instead"
            }
        }
    }

    pub(super) fn display(self) -> &'static str {
        match self {
            ExitKind::Return => "`return`",
            ExitKind::Try => "`?`",
            ExitKind::Break => "`break`",
            ExitKind::Continue => "`continue`",
        }
    }
}

pub(super) enum Dest {
    /// Leaves the task; these are the loops it is in.
    Function { loops: Vec<usize> },
    /// Leaves this loop or labelled block.
    Break { scope: usize, is_loop: bool },
    /// Goes to the next iteration of this loop.
    Continue { scope: usize },
}

/// An early exit under thread-dependent control.
pub(super) struct Exit {
    pub(super) seq: usize,
    pub(super) kind: ExitKind,
    pub(super) tokens: TokenStream,
    pub(super) control: usize,
    pub(super) dest: Dest,
}

/// What one walk over the body found.
#[derive(Default)]
pub(super) struct Events {
    pub(super) new_taint: Vec<String>,
    pub(super) new_dep: Vec<usize>,
    pub(super) scopes: Vec<Scope>,
    pub(super) controls: Vec<Control>,
    pub(super) barriers: Vec<Barrier>,
    pub(super) exits: Vec<Exit>,
}

/// One walk over the body with the taint found so far.
pub(super) struct Walker<'a> {
    pub(super) tainted: &'a HashSet<String>,
    pub(super) scopes: Scopes,
    /// Loops and labelled blocks that some threads leave early.
    pub(super) dep: &'a HashSet<usize>,
    pub(super) stack: Vec<Frame>,
    pub(super) seq: usize,
    pub(super) ev: Events,
}

impl Walker<'_> {
    pub(super) fn tick(&mut self) -> usize {
        self.seq += 1;
        self.seq
    }

    pub(super) fn taint(&self, e: &Expr) -> Option<Reason> {
        taint_of(e, self.tainted, &self.scopes)
    }

    pub(super) fn under_control(&self) -> bool {
        self.stack.iter().any(|f| matches!(f, Frame::Control(_)))
    }

    pub(super) fn mark(&mut self, names: Vec<String>) {
        for n in names {
            if !self.tainted.contains(&n) {
                self.ev.new_taint.push(n);
            }
        }
    }

    /// Runs `f` under a control when `why` is `Some`.
    pub(super) fn controlled(
        &mut self,
        tokens: TokenStream,
        why: Option<Reason>,
        f: impl FnOnce(&mut Self),
    ) {
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

    pub(super) fn scope(
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

    pub(super) fn barrier(&mut self, kind: BarrierKind, tokens: TokenStream) {
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

    pub(super) fn exit(
        &mut self,
        kind: ExitKind,
        tokens: TokenStream,
        label: Option<&syn::Lifetime>,
    ) {
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

    pub(super) fn assigned(&mut self, left: &Expr, right: Option<&Expr>) {
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
    pub(super) fn in_scope<R>(&mut self, f: impl FnOnce(&mut Self) -> R) -> R {
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
            op if is_compound(&op) => {
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
