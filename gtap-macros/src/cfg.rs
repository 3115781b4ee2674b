//! Scope resolution and the control-flow graph of a structured body.
//!
//! Every binding (parameter, `let`, match arm, `if let`/`while let`, `for` pattern, spawn
//! target) gets a fresh [`LocalId`]; a name resolves to the innermost binding in scope, which
//! handles shadowing without renaming. Statements become [`Node`]s of a graph whose edges mirror
//! Rust's control flow: `if`/`match` branch and join, `loop`/`while`/`for` get a header and an
//! exit, labelled and unlabelled `break`/`continue` jump to them (through a node ending the
//! scopes they leave, as the end of a block does), `return` (also inside an expression, and
//! `?`) goes to an exit node. Statements after one that never completes get no nodes. Expressions without markers are leaves: every name
//! in them is a use (a conservative, field-insensitive reading: `x.f = 1` and `*x = 1` use `x`,
//! and names in foreign macros such as `assert!` are uses), and only `x = e` defines `x`.
//!
//! For each `taskwait!()` the builder also records the *path* to it (statement index and the
//! child taken at each enclosing block) and the locals declared so far at each level: the
//! lowering rebuilds the resume code from exactly these.
//!
//! Refs: rustc `rustc_mir_build` (lowering of `for`/`while`), `rustc_mir_dataflow` (def/use).

mod address;
mod diverge;
mod immutable;
mod jumps;
mod patterns;
mod queries;

use crate::{
    diag::Ctxt,
    markers::{Marker, Target},
    parse::{Binding, Param},
    structure::placeholder_id,
    tokens::{cfg_attr_span, scan_idents},
};
use proc_macro2::{Ident, Span};
use quote::ToTokens;
use syn::{visit::Visit, Block, Expr, Pat, Stmt};

use jumps::FindJumps;
pub(crate) use patterns::bindings;
use patterns::borrow_of;

/// A binding of the function, numbered in source order.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
pub(crate) struct LocalId(pub(crate) usize);

/// A node of the graph.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct NodeId(pub(crate) usize);

/// What the lowering and the diagnostics need to know about a binding.
pub(crate) struct LocalDecl {
    /// Its name, with the span of the binding site.
    pub(crate) ident: Ident,
    /// `mut` binding.
    pub(crate) mutable: bool,
    /// Parameter index, for parameters (and for the names of a parameter pattern that are
    /// not `mut`: read from `args` like a parameter, never saved).
    pub(crate) param: Option<usize>,
    /// A name bound by a parameter pattern (`(lo, hi): (u64, u64)`).
    pub(crate) in_param_pattern: bool,
    /// Where it takes a borrow (`ref x`, `let x = &..`), if it does.
    pub(crate) borrow: Option<Span>,
    /// The `task!` that writes it, for messages.
    pub(crate) spawn_span: Option<Span>,
    /// It receives task results into its fields or elements (`x[i] = task!(..)`): saved at a
    /// join like any live local, the children write into its saved copy.
    pub(crate) place_spawn: bool,
    /// It receives task results whole (`let x = task!(..)`, `x = task!(..)`).
    pub(crate) whole_spawn: bool,
    /// Declared without a value (`let x: T;`).
    pub(crate) no_value: bool,
    /// Assigned by a destructuring assignment somewhere (`(x, y) = ..`).
    pub(crate) destructured: bool,
    /// Declared by its spawn, `let x = task!(..)`: dead before it (the spawn kills it).
    pub(crate) declared_by_spawn: bool,
    /// Bound to a closure (`let f = |..| ..`): where, and the node that binds it. Every
    /// closure expression has its own type, so one kept across a wait must be defined in the
    /// code of one state only.
    pub(crate) closure: Option<(Span, NodeId)>,
    /// Bound to a closure that borrows its captures (`let f = |..| ..` naming a local, no
    /// `move`): where.
    pub(crate) borrowing_closure: Option<Span>,
    /// Declared by a statement under `#[cfg]`/`#[cfg_attr]`: where. Such a local may not be
    /// live across a wait (the save and restore would name it where it is compiled out).
    pub(crate) cfg: Option<Span>,
    /// Declared by a `let` statement or by its spawn (`let x = task!(..)`): the path to that
    /// statement, as in [`WaitPoint::path`] (its last entry is the statement's index). `None`
    /// for parameters and the bindings of arm, `if let`, `while let` and `for` patterns. The
    /// lowering saves an outer local that this one hides right before it
    /// (`crate::lower::hidden`).
    pub(crate) let_path: Option<Vec<(usize, PathStep)>>,
}

/// What a node does besides its uses and defs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum NodeKind {
    /// Evaluates expressions.
    Eval,
    /// `task!` marker `marker`; its result (if captured) goes to `target`, or into a field
    /// or element of `target` when `place`.
    Spawn {
        marker: usize,
        target: Option<LocalId>,
        place: bool,
    },
    /// `taskwait!` marker `marker`.
    Wait { marker: usize },
    /// Leaves the function.
    Return,
}

/// A node: uses happen before defs.
pub(crate) struct Node {
    /// What it does.
    pub(crate) kind: NodeKind,
    /// Locals read, with the span of the reading name.
    pub(crate) uses: Vec<(LocalId, Span)>,
    /// Locals overwritten entirely.
    pub(crate) defs: Vec<(LocalId, Span)>,
    /// Its defs are assignments (`x = e`, `(a, b) = e`), not bindings (`let`, a pattern, the
    /// parameters at the entry).
    pub(crate) assigns: bool,
    /// Locals whose scope ends here.
    pub(crate) scope_end: Vec<LocalId>,
    /// Successors.
    pub(crate) succs: Vec<NodeId>,
}

/// How the path to a wait goes from a statement to the block inside it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum PathStep {
    /// The statement is the wait itself.
    Wait,
    /// A block statement (`{}`, `unsafe {}`, labelled block): its block.
    Block,
    /// An `if`: the then-branch.
    Then,
    /// An `if`: the else-branch (a block).
    Else,
    /// A `match`: the body block of arm `n`.
    Arm(usize),
    /// A `loop`/`while`/`for`: the body.
    LoopBody,
}

/// A `taskwait!()` and where it sits.
pub(crate) struct WaitPoint {
    /// Its marker number.
    pub(crate) marker: usize,
    /// Its node.
    pub(crate) node: NodeId,
    /// `(statement index, step)` per enclosing block, outermost (the body) first; the last
    /// entry is the wait statement, with [`PathStep::Wait`].
    pub(crate) path: Vec<(usize, PathStep)>,
    /// Locals declared before the wait, per level: `[0]` the parameters, `[i]` the block at
    /// `path[i - 1]`, in declaration order.
    pub(crate) visible: Vec<Vec<LocalId>>,
    /// Per entry of `path`: the node where control goes on once that statement completes
    /// (`None` when it never completes), known once the statement is built.
    pub(crate) after: Vec<Option<NodeId>>,
    /// Per entry of `path`: for a [`PathStep::LoopBody`], the loop's header (where `continue`
    /// and the end of the body go); `None` for the other steps.
    pub(crate) headers: Vec<Option<NodeId>>,
}

/// The graph of one function.
pub(crate) struct Body {
    /// All bindings.
    pub(crate) locals: Vec<LocalDecl>,
    /// All nodes; `NodeId(0)` is the entry.
    pub(crate) nodes: Vec<Node>,
    /// The waits, in source order; the resume state of `waits[i]` is `i + 1`.
    pub(crate) waits: Vec<WaitPoint>,
    /// The local a spawn marker writes, by marker number.
    pub(crate) spawn_target: Vec<Option<LocalId>>,
    /// Statements control cannot reach, after one that never completes (a `return`, `break`
    /// or `continue`, an `if`/`match` all of whose branches leave): the path to the first of
    /// them in its block, as in [`WaitPoint::path`]. They have no nodes, and the lowering
    /// drops them (see [`Body::prune`]).
    pub(crate) dead: Vec<Vec<(usize, PathStep)>>,
    /// The names whose address the body may take and keep (`address.rs`): an outer local of
    /// such a name is not saved at the `let` that hides it.
    pub(crate) address_taken: std::collections::BTreeSet<String>,
}

/// A loop or labelled block that `break` (and for a loop `continue`) can jump to.
struct LoopCtx {
    label: Option<String>,
    cont: Option<NodeId>,
    brk: NodeId,
    /// The number of scopes open outside it: a jump to it leaves the scopes above.
    scopes: usize,
}

struct Builder<'a> {
    cx: &'a mut Ctxt,
    markers: &'a [Marker],
    body: Body,
    cur: Option<NodeId>,
    scopes: Vec<Vec<LocalId>>,
    path: Vec<(usize, PathStep)>,
    loops: Vec<LoopCtx>,
}

/// Builds the graph of `block`, whose parameters are `params`.
pub(crate) fn build(cx: &mut Ctxt, markers: &[Marker], params: &[Param], block: &Block) -> Body {
    let mut b = Builder {
        cx,
        markers,
        body: Body {
            locals: Vec::new(),
            nodes: Vec::new(),
            waits: Vec::new(),
            spawn_target: vec![None; markers.len()],
            dead: Vec::new(),
            address_taken: address::address_taken(block),
        },
        cur: None,
        scopes: vec![Vec::new()],
        path: Vec::new(),
        loops: Vec::new(),
    };
    let entry = b.new_node(NodeKind::Eval);
    b.cur = Some(entry);
    let mut defs = Vec::new();
    for (i, p) in params.iter().enumerate() {
        let pattern = matches!(p.binding, Binding::Pattern(_));
        for (ident, mutable) in p.names() {
            let span = ident.span();
            let id = b.declare(ident, mutable, None);
            let decl = &mut b.body.locals[id.0];
            decl.in_param_pattern = pattern;
            // A pattern's `mut` names are ordinary locals, bound once in state 0.
            if !(pattern && mutable) {
                decl.param = Some(i);
            }
            defs.push((id, span));
        }
    }
    b.body.nodes[entry.0].defs = defs;
    b.block(block, |_| {});
    let ret = b.new_node(NodeKind::Return);
    if let Some(c) = b.cur {
        b.link(c, ret);
    }
    b.body
}

impl Builder<'_> {
    fn new_node(&mut self, kind: NodeKind) -> NodeId {
        self.body.nodes.push(Node {
            kind,
            uses: Vec::new(),
            defs: Vec::new(),
            assigns: false,
            scope_end: Vec::new(),
            succs: Vec::new(),
        });
        NodeId(self.body.nodes.len() - 1)
    }

    fn link(&mut self, from: NodeId, to: NodeId) {
        self.body.nodes[from.0].succs.push(to);
    }

    /// Appends a node after the current one (an unreachable one when there is none).
    fn push(&mut self, kind: NodeKind, uses: Vec<(LocalId, Span)>) -> NodeId {
        let n = self.new_node(kind);
        self.body.nodes[n.0].uses = uses;
        if let Some(c) = self.cur {
            self.link(c, n);
        }
        self.cur = Some(n);
        n
    }

    fn declare(&mut self, ident: Ident, mutable: bool, borrow: Option<Span>) -> LocalId {
        let id = LocalId(self.body.locals.len());
        self.body.locals.push(LocalDecl {
            ident,
            mutable,
            param: None,
            in_param_pattern: false,
            borrow,
            spawn_span: None,
            place_spawn: false,
            whole_spawn: false,
            no_value: false,
            destructured: false,
            declared_by_spawn: false,
            closure: None,
            borrowing_closure: None,
            cfg: None,
            let_path: None,
        });
        if let Some(s) = self.scopes.last_mut() {
            s.push(id);
        }
        id
    }

    fn resolve(&self, name: &Ident) -> Option<LocalId> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .copied()
            .find(|id| self.body.locals[id.0].ident == *name)
    }

    fn uses_of<T: ToTokens>(&self, t: &T) -> Vec<(LocalId, Span)> {
        let mut out = Vec::new();
        scan_idents(t.to_token_stream(), &mut |id| {
            if let Some(l) = self.resolve(id) {
                out.push((l, id.span()));
            }
        });
        out
    }

    /// Declares the bindings of `pat` and returns them as defs; `borrowed` when the value it
    /// matches is a borrow, `irrefutable` for a `let` without `else` or a `for` (see
    /// [`bindings`]).
    fn bind(
        &mut self,
        pat: &Pat,
        borrowed: Option<Span>,
        irrefutable: bool,
    ) -> Vec<(LocalId, Span)> {
        let mut found = Vec::new();
        bindings(pat, borrowed, irrefutable, &mut found);
        found
            .into_iter()
            .map(|(ident, mutable, borrow)| {
                let span = ident.span();
                let id = self.declare(ident, mutable, borrow);
                (id, span)
            })
            .collect()
    }

    /// A block with its own scope; `prelude` declares bindings that belong to it (arm
    /// patterns, `if let`/`while let` patterns).
    fn block(&mut self, block: &Block, prelude: impl FnOnce(&mut Self)) {
        self.scopes.push(Vec::new());
        self.path.push((0, PathStep::Wait));
        prelude(self);
        for (i, stmt) in block.stmts.iter().enumerate() {
            if let Some(last) = self.path.last_mut() {
                *last = (i, PathStep::Wait);
            }
            if self.cur.is_none() {
                self.body.dead.push(self.path.clone());
                break;
            }
            let first_wait = self.body.waits.len();
            self.stmt_maybe_compiled_out(stmt);
            let (level, cur) = (self.path.len() - 1, self.cur);
            for w in &mut self.body.waits[first_wait..] {
                w.after[level] = cur;
            }
        }
        self.path.pop();
        let ended = self.scopes.pop().unwrap_or_default();
        if self.cur.is_some() && !ended.is_empty() {
            let n = self.push(NodeKind::Eval, Vec::new());
            self.body.nodes[n.0].scope_end = ended;
        }
    }

    /// A statement under `#[cfg]` or `#[cfg_attr]` may be compiled out (the structure pass
    /// rejects one that holds a marker): what it assigns may not happen, so control may also
    /// go around it; the locals it declares are marked, see [`LocalDecl::cfg`].
    fn stmt_maybe_compiled_out(&mut self, stmt: &Stmt) {
        let Some(cfg) = cfg_attr_span(stmt) else {
            self.stmt(stmt);
            return;
        };
        let (before, first_local) = (self.cur, self.body.locals.len());
        self.stmt(stmt);
        for l in &mut self.body.locals[first_local..] {
            l.cfg = Some(cfg);
        }
        if !matches!(stmt, Stmt::Local(_) | Stmt::Item(_)) {
            let after = self.cur;
            self.join(vec![before, after]);
        }
    }

    fn set_step(&mut self, step: PathStep) {
        if let Some(last) = self.path.last_mut() {
            last.1 = step;
        }
    }

    fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Local(local) => {
                let mut uses = Vec::new();
                let mut borrow = None;
                if let Some(init) = &local.init {
                    uses = self.uses_of(&init.expr);
                    borrow = borrow_of(&init.expr);
                    if let Some((_, e)) = &init.diverge {
                        uses.extend(self.uses_of(e));
                    }
                }
                // A closure without `move` that names a local borrows it.
                let captures = !uses.is_empty();
                let n = self.push(NodeKind::Eval, uses);
                if let Some(init) = &local.init {
                    self.control_edges(n, &init.expr);
                    if let Some((_, e)) = &init.diverge {
                        self.control_edges(n, e);
                    }
                }
                // A `let` without `else` cannot be refutable: every name in it binds.
                let irrefutable = local.init.as_ref().is_none_or(|i| i.diverge.is_none());
                let defs = self.bind(&local.pat, borrow, irrefutable);
                for (l, _) in &defs {
                    self.body.locals[l.0].let_path = Some(self.path.clone());
                }
                if local.init.is_none() {
                    for (l, _) in &defs {
                        self.body.locals[l.0].no_value = true;
                    }
                }
                if let Some(init) = &local.init {
                    if let Expr::Closure(c) = &*init.expr {
                        for (l, _) in &defs {
                            self.body.locals[l.0].closure = Some((c.or1_token.span, n));
                        }
                        if c.capture.is_none() && captures {
                            for (l, _) in &defs {
                                self.body.locals[l.0].borrowing_closure = Some(c.or1_token.span);
                            }
                        }
                    }
                }
                let n = self.push(NodeKind::Eval, Vec::new());
                self.body.nodes[n.0].defs = defs;
                if local
                    .init
                    .as_ref()
                    .is_some_and(|i| diverge::expr_diverges(&i.expr))
                {
                    self.cur = None;
                }
            }
            Stmt::Item(_) => {}
            Stmt::Macro(m) => match placeholder_id(stmt) {
                Some(id) => self.marker(id),
                None => {
                    let uses = self.uses_of(&m.mac.tokens);
                    self.push(NodeKind::Eval, uses);
                    if diverge::macro_diverges(&m.mac) {
                        self.cur = None;
                    }
                }
            },
            Stmt::Expr(e, _) => self.expr_stmt(e),
        }
    }

    fn marker(&mut self, id: usize) {
        let Some(marker) = self.markers.get(id) else {
            return;
        };
        match marker {
            Marker::Spawn(s) => {
                let mut uses = Vec::new();
                if let Some(q) = &s.queue {
                    uses.extend(self.uses_of(q));
                }
                for a in &s.args {
                    uses.extend(self.uses_of(a));
                }
                let target = match &s.target {
                    Target::Detached => None,
                    Target::Let { ident, mutable, .. } => {
                        let l = self.declare(ident.clone(), *mutable, None);
                        self.body.locals[l.0].declared_by_spawn = true;
                        self.body.locals[l.0].let_path = Some(self.path.clone());
                        Some(l)
                    }
                    Target::Assign { ident } | Target::Place { root: ident, .. } => {
                        match self.resolve(ident) {
                            Some(l) => Some(l),
                            None => {
                                self.cx.error_spanned_by(
                                    ident,
                                    format!(
                                        "`{ident}` is not a local variable of this task function: task!(..) writes its result to a local (or a field or element of one)"
                                    ),
                                );
                                None
                            }
                        }
                    }
                };
                let place = matches!(s.target, Target::Place { .. });
                if let (Some(t), Target::Assign { ident }) = (target, &s.target) {
                    let decl = &self.body.locals[t.0];
                    if decl.in_param_pattern && !decl.mutable {
                        // Its value is read from `args` wherever it is needed.
                        self.cx.error_spanned_by(
                            ident,
                            format!(
                                "cannot write a task result into `{ident}`, a name of a parameter pattern that is not `mut`: write `mut {ident}` in the pattern"
                            ),
                        );
                    }
                }
                if let (Some(t), Target::Place { place: p, .. }) = (target, &s.target) {
                    uses.extend(self.uses_of(p).into_iter().filter(|(l, _)| *l != t));
                    if !self.body.locals[t.0].mutable {
                        self.cx.error_spanned_by(
                            p,
                            format!(
                                "cannot write a task result into `{}`: declare it mutable, `let mut {}`",
                                p.to_token_stream()
                                    .to_string()
                                    .replace(" [", "[")
                                    .replace(" . ", "."),
                                self.body.locals[t.0].ident
                            ),
                        );
                    }
                }
                if let Some(t) = target {
                    let decl = &mut self.body.locals[t.0];
                    decl.spawn_span.get_or_insert(s.span);
                    if place {
                        decl.place_spawn = true;
                    } else {
                        decl.whole_spawn = true;
                    }
                    if decl.place_spawn && decl.whole_spawn {
                        let name = decl.ident.to_string();
                        self.cx.error_at(
                            s.span,
                            format!(
                                "`{name}` receives task results both whole and into its fields or elements: use a separate local for one of them"
                            ),
                        );
                    }
                }
                self.body.spawn_target[id] = target;
                // `?` in an argument or in the queue hint leaves the task before the child
                // is spawned.
                let args = self.push(NodeKind::Eval, Vec::new());
                for a in s.args.iter().chain(&s.queue) {
                    self.control_edges(args, a);
                }
                self.push(
                    NodeKind::Spawn {
                        marker: id,
                        target,
                        place,
                    },
                    uses,
                );
            }
            Marker::Wait(w) => {
                let uses = w
                    .queue
                    .as_ref()
                    .map(|q| self.uses_of(q))
                    .unwrap_or_default();
                if let (Some(q), Some(before)) = (&w.queue, self.cur) {
                    // `?` in the hint leaves the task before the join.
                    self.control_edges(before, q);
                }
                let node = self.push(NodeKind::Wait { marker: id }, uses);
                self.body.waits.push(WaitPoint {
                    marker: id,
                    node,
                    path: self.path.clone(),
                    visible: self.scopes.clone(),
                    after: vec![None; self.path.len()],
                    headers: vec![None; self.path.len()],
                });
            }
        }
    }

    fn find_loop(&self, label: Option<&syn::Lifetime>) -> Option<&LoopCtx> {
        self.loops.iter().rev().find(|l| match label {
            Some(lt) => l.label.as_deref() == Some(&lt.ident.to_string()),
            None => l.cont.is_some(),
        })
    }

    /// The edge of a `break` (or `continue`) at `from` to its loop or labelled block. The
    /// scopes it leaves end on the way, in a node of its own, as at the end of a block: the
    /// analyses see the locals of a loop body go out of scope at `continue` too.
    fn jump(&mut self, from: NodeId, label: Option<&syn::Lifetime>, is_continue: bool) {
        let Some(l) = self.find_loop(label) else {
            return;
        };
        let Some(target) = (if is_continue { l.cont } else { Some(l.brk) }) else {
            return;
        };
        let ended: Vec<LocalId> = self.scopes[l.scopes..].iter().flatten().copied().collect();
        if ended.is_empty() {
            self.link(from, target);
            return;
        }
        let n = self.new_node(NodeKind::Eval);
        self.body.nodes[n.0].scope_end = ended;
        self.link(from, n);
        self.link(n, target);
    }

    /// Edges for `return`, `?`, `break` and `continue` inside a leaf expression.
    fn control_edges(&mut self, from: NodeId, e: &Expr) {
        let mut f = FindJumps::default();
        f.visit_expr(e);
        if f.returns {
            let r = self.new_node(NodeKind::Return);
            self.link(from, r);
        }
        for (label, is_continue) in f.jumps {
            self.jump(from, label.as_ref(), is_continue);
        }
    }

    fn leaf(&mut self, e: &Expr) {
        let uses = self.uses_of(e);
        let n = self.push(NodeKind::Eval, uses);
        self.control_edges(n, e);
    }

    fn join(&mut self, ends: Vec<Option<NodeId>>) {
        let live: Vec<NodeId> = ends.into_iter().flatten().collect();
        if live.is_empty() {
            self.cur = None;
            return;
        }
        let j = self.new_node(NodeKind::Eval);
        for e in live {
            self.link(e, j);
        }
        self.cur = Some(j);
    }

    fn loop_body(
        &mut self,
        label: Option<&syn::Label>,
        cont: NodeId,
        brk: NodeId,
        body: &Block,
        prelude: impl FnOnce(&mut Self),
    ) {
        self.loops.push(LoopCtx {
            label: label.map(|l| l.name.ident.to_string()),
            cont: Some(cont),
            brk,
            scopes: self.scopes.len(),
        });
        self.set_step(PathStep::LoopBody);
        let (first_wait, level) = (self.body.waits.len(), self.path.len() - 1);
        self.block(body, prelude);
        for w in &mut self.body.waits[first_wait..] {
            w.headers[level] = Some(cont);
        }
        if let Some(c) = self.cur {
            self.link(c, cont);
        }
        self.loops.pop();
        self.cur = Some(brk);
    }

    /// The locals that the left side of an assignment writes whole: `x = ..`, and each name
    /// of a destructuring assignment, `(a, b) = ..`, `[a, _] = ..`, `S { f: a, .. } = ..`,
    /// `T(a, b) = ..`; the other places in it (`p.x`, `v[i]`, `*r`) are uses of their roots,
    /// collected in `places`.
    fn assignees<'e>(
        &self,
        left: &'e Expr,
        defs: &mut Vec<(LocalId, Span)>,
        places: &mut Vec<&'e Expr>,
    ) {
        match left {
            Expr::Path(p) => match p.path.get_ident().and_then(|i| self.resolve(i)) {
                Some(l) => defs.push((l, p.path.segments[0].ident.span())),
                None => places.push(left),
            },
            Expr::Tuple(t) => t.elems.iter().for_each(|e| self.assignees(e, defs, places)),
            Expr::Array(a) => a.elems.iter().for_each(|e| self.assignees(e, defs, places)),
            Expr::Struct(s) => s
                .fields
                .iter()
                .for_each(|f| self.assignees(&f.expr, defs, places)),
            Expr::Call(c) => c.args.iter().for_each(|e| self.assignees(e, defs, places)),
            Expr::Paren(p) => self.assignees(&p.expr, defs, places),
            Expr::Infer(_) => {}
            Expr::Range(r) if r.start.is_none() && r.end.is_none() => {}
            _ => places.push(left),
        }
    }

    fn expr_stmt(&mut self, e: &Expr) {
        self.deferred_into_immutable(e);
        match e {
            Expr::If(i) => {
                let (cond_uses, pat) = match &*i.cond {
                    Expr::Let(l) => (self.uses_of(&l.expr), Some((&*l.pat, borrow_of(&l.expr)))),
                    c => (self.uses_of(c), None),
                };
                let c = self.push(NodeKind::Eval, cond_uses);
                self.control_edges(c, &i.cond);
                self.set_step(PathStep::Then);
                self.block(&i.then_branch, |b| {
                    if let Some((p, borrowed)) = pat {
                        let defs = b.bind(p, borrowed, false);
                        let n = b.push(NodeKind::Eval, Vec::new());
                        b.body.nodes[n.0].defs = defs;
                    }
                });
                let then_end = self.cur;
                self.cur = Some(c);
                if let Some((_, els)) = &i.else_branch {
                    if let Expr::Block(b) = &**els {
                        self.set_step(PathStep::Else);
                        self.block(&b.block, |_| {});
                    } else {
                        self.expr_stmt(els);
                    }
                }
                let else_end = self.cur;
                self.join(vec![then_end, else_end]);
            }
            Expr::Match(m) => {
                let uses = self.uses_of(&m.expr);
                let s = self.push(NodeKind::Eval, uses);
                self.control_edges(s, &m.expr);
                let borrowed = borrow_of(&m.expr);
                let mut ends = Vec::new();
                for (k, arm) in m.arms.iter().enumerate() {
                    self.cur = Some(s);
                    let prelude = |b: &mut Self| {
                        let defs = b.bind(&arm.pat, borrowed, false);
                        let n = b.push(NodeKind::Eval, Vec::new());
                        b.body.nodes[n.0].defs = defs;
                        if let Some((_, g)) = &arm.guard {
                            b.leaf(g);
                        }
                    };
                    match &*arm.body {
                        Expr::Block(b) if b.label.is_none() => {
                            self.set_step(PathStep::Arm(k));
                            self.block(&b.block, prelude);
                        }
                        body => {
                            self.scopes.push(Vec::new());
                            prelude(self);
                            self.expr_stmt(body);
                            self.scopes.pop();
                        }
                    }
                    ends.push(self.cur);
                }
                self.join(ends);
            }
            Expr::Loop(l) => {
                let header = self.push(NodeKind::Eval, Vec::new());
                let exit = self.new_node(NodeKind::Eval);
                self.loop_body(l.label.as_ref(), header, exit, &l.body, |_| {});
            }
            Expr::While(w) => {
                let (uses, pat) = match &*w.cond {
                    Expr::Let(l) => (self.uses_of(&l.expr), Some((&*l.pat, borrow_of(&l.expr)))),
                    c => (self.uses_of(c), None),
                };
                let header = self.push(NodeKind::Eval, uses);
                let exit = self.new_node(NodeKind::Eval);
                self.link(header, exit);
                self.loop_body(w.label.as_ref(), header, exit, &w.body, |b| {
                    if let Some((p, borrowed)) = pat {
                        let defs = b.bind(p, borrowed, false);
                        let n = b.push(NodeKind::Eval, Vec::new());
                        b.body.nodes[n.0].defs = defs;
                    }
                });
            }
            Expr::ForLoop(f) => {
                self.leaf(&f.expr);
                let header = self.push(NodeKind::Eval, Vec::new());
                let exit = self.new_node(NodeKind::Eval);
                self.link(header, exit);
                self.loop_body(f.label.as_ref(), header, exit, &f.body, |b| {
                    let defs = b.bind(&f.pat, None, true);
                    let n = b.push(NodeKind::Eval, Vec::new());
                    b.body.nodes[n.0].defs = defs;
                });
            }
            Expr::Block(b) => {
                self.set_step(PathStep::Block);
                if let Some(label) = &b.label {
                    let exit = self.new_node(NodeKind::Eval);
                    self.loops.push(LoopCtx {
                        label: Some(label.name.ident.to_string()),
                        cont: None,
                        brk: exit,
                        scopes: self.scopes.len(),
                    });
                    self.block(&b.block, |_| {});
                    if let Some(c) = self.cur {
                        self.link(c, exit);
                    }
                    self.loops.pop();
                    self.cur = Some(exit);
                } else {
                    self.block(&b.block, |_| {});
                }
            }
            Expr::Unsafe(u) => {
                self.set_step(PathStep::Block);
                self.block(&u.block, |_| {});
            }
            Expr::Assign(a) => {
                let mut defs = Vec::new();
                let mut places = Vec::new();
                self.assignees(&a.left, &mut defs, &mut places);
                if !matches!(&*a.left, Expr::Path(_)) {
                    for (l, _) in &defs {
                        self.body.locals[l.0].destructured = true;
                    }
                }
                if defs.is_empty() {
                    self.leaf(e);
                } else {
                    let mut uses = self.uses_of(&a.right);
                    for p in places {
                        uses.extend(self.uses_of(p));
                    }
                    let n = self.push(NodeKind::Eval, uses);
                    self.control_edges(n, &a.right);
                    let n = self.push(NodeKind::Eval, Vec::new());
                    self.body.nodes[n.0].defs = defs;
                    self.body.nodes[n.0].assigns = true;
                }
                if diverge::expr_diverges(&a.right) {
                    self.cur = None;
                }
            }
            Expr::Return(r) => {
                let uses = r.expr.as_ref().map(|x| self.uses_of(x)).unwrap_or_default();
                let n = self.push(NodeKind::Eval, uses);
                if let Some(x) = &r.expr {
                    self.control_edges(n, x);
                }
                let ret = self.push(NodeKind::Return, Vec::new());
                let _ = ret;
                self.cur = None;
            }
            Expr::Break(b) => {
                let uses = b.expr.as_ref().map(|x| self.uses_of(x)).unwrap_or_default();
                let n = self.push(NodeKind::Eval, uses);
                self.jump(n, b.label.as_ref(), false);
                self.cur = None;
            }
            Expr::Continue(c) => {
                let n = self.push(NodeKind::Eval, Vec::new());
                self.jump(n, c.label.as_ref(), true);
                self.cur = None;
            }
            Expr::Paren(p) => self.expr_stmt(&p.expr),
            _ => {
                self.leaf(e);
                if diverge::expr_diverges(e) {
                    self.cur = None;
                }
            }
        }
    }
}

/// The block that `path` (statement index and step per level, as in [`WaitPoint::path`])
/// leads to from `block`.
pub(crate) fn block_at<'b>(
    block: &'b mut Block,
    path: &[(usize, PathStep)],
) -> Option<&'b mut Block> {
    let Some((&(idx, step), inner)) = path.split_first() else {
        return Some(block);
    };
    let Some(Stmt::Expr(e, _)) = block.stmts.get_mut(idx) else {
        return None;
    };
    let child = match (step, e) {
        (PathStep::Block, Expr::Block(b)) => &mut b.block,
        (PathStep::Block, Expr::Unsafe(u)) => &mut u.block,
        (PathStep::Then, Expr::If(i)) => &mut i.then_branch,
        (PathStep::Else, Expr::If(i)) => match i.else_branch.as_mut().map(|(_, e)| &mut **e) {
            Some(Expr::Block(b)) => &mut b.block,
            _ => return None,
        },
        (PathStep::Arm(k), Expr::Match(m)) => match m.arms.get_mut(k).map(|a| &mut *a.body) {
            Some(Expr::Block(b)) => &mut b.block,
            _ => return None,
        },
        (PathStep::LoopBody, Expr::Loop(l)) => &mut l.body,
        (PathStep::LoopBody, Expr::While(w)) => &mut w.body,
        (PathStep::LoopBody, Expr::ForLoop(f)) => &mut f.body,
        _ => return None,
    };
    block_at(child, inner)
}
