//! The builder of the control-flow graph (the parent module's docs): scopes and name
//! resolution, nodes and edges, statements and markers, jumps and joins. The control
//! constructs (`if`, `match`, loops, labelled blocks, assignments) are `constructs.rs`.
//!
//! Invariants: `cur` is the node that the next statement follows, `None` after a statement
//! that never completes (what follows it gets no nodes); `scopes` holds the locals declared in
//! each open block, innermost last, and a name resolves to the innermost; `path` is the
//! statement index and child taken at each enclosing level, as [`WaitPoint::path`] records it.

use super::{
    address, bindings, borrow_of, diverge, jumps, Body, FindJumps, LocalDecl, LocalId, Node,
    NodeId, NodeKind, PathStep, WaitPoint,
};
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

/// A loop or labelled block that `break` (and for a loop `continue`) can jump to.
pub(super) struct LoopCtx {
    pub(super) label: Option<String>,
    pub(super) cont: Option<NodeId>,
    pub(super) brk: NodeId,
    /// The number of scopes open outside it: a jump to it leaves the scopes above.
    pub(super) scopes: usize,
}

pub(super) struct Builder<'a> {
    pub(super) cx: &'a mut Ctxt,
    pub(super) markers: &'a [Marker],
    pub(super) body: Body,
    pub(super) cur: Option<NodeId>,
    pub(super) scopes: Vec<Vec<LocalId>>,
    pub(super) path: Vec<(usize, PathStep)>,
    pub(super) loops: Vec<LoopCtx>,
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
    pub(super) fn new_node(&mut self, kind: NodeKind) -> NodeId {
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

    pub(super) fn link(&mut self, from: NodeId, to: NodeId) {
        self.body.nodes[from.0].succs.push(to);
    }

    /// Appends a node after the current one (an unreachable one when there is none).
    pub(super) fn push(&mut self, kind: NodeKind, uses: Vec<(LocalId, Span)>) -> NodeId {
        let n = self.new_node(kind);
        self.body.nodes[n.0].uses = uses;
        if let Some(c) = self.cur {
            self.link(c, n);
        }
        self.cur = Some(n);
        n
    }

    pub(super) fn declare(&mut self, ident: Ident, mutable: bool, borrow: Option<Span>) -> LocalId {
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

    pub(super) fn resolve(&self, name: &Ident) -> Option<LocalId> {
        self.scopes
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .copied()
            .find(|id| self.body.locals[id.0].ident == *name)
    }

    pub(super) fn uses_of<T: ToTokens>(&self, t: &T) -> Vec<(LocalId, Span)> {
        let mut out = Vec::new();
        scan_idents(t.to_token_stream(), &mut |id| {
            if let Some(l) = self.resolve(id) {
                out.push((l, id.span()));
            }
        });
        out
    }

    /// [`Builder::uses_of`] for an expression the graph treats as one node (a leaf): without
    /// the locals that it only assigns whole (`x = e` is no read of `x`). A leaf's assignment
    /// defines nothing either (it may not run), so such a local stays live through the node
    /// exactly when it is live after it. Counted as a use, the carry of a value loop assigned
    /// in a loop nested in it (`{ tmp = v; break 'l; }`, `breaks.rs`) was live at the loop's
    /// join before it had a value (`jumps.rs`).
    pub(super) fn leaf_uses(&self, e: &Expr) -> Vec<(LocalId, Span)> {
        let mut only = jumps::AssignedOnly::default();
        only.visit_expr(e);
        let mut all = std::collections::HashMap::<String, usize>::new();
        scan_idents(e.to_token_stream(), &mut |id| {
            *all.entry(id.to_string()).or_default() += 1
        });
        let written_only = |name: &str| {
            only.targets
                .get(name)
                .is_some_and(|n| all.get(name) == Some(n))
        };
        self.uses_of(e)
            .into_iter()
            .filter(|(l, _)| !written_only(&self.body.locals[l.0].ident.to_string()))
            .collect()
    }

    /// Declares the bindings of `pat` and returns them as defs; `borrowed` when the value it
    /// matches is a borrow, `irrefutable` for a `let` without `else` or a `for` (see
    /// [`bindings`]).
    pub(super) fn bind(
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
    pub(super) fn block(&mut self, block: &Block, prelude: impl FnOnce(&mut Self)) {
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
    pub(super) fn stmt_maybe_compiled_out(&mut self, stmt: &Stmt) {
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

    pub(super) fn set_step(&mut self, step: PathStep) {
        if let Some(last) = self.path.last_mut() {
            last.1 = step;
        }
    }

    pub(super) fn stmt(&mut self, stmt: &Stmt) {
        match stmt {
            Stmt::Local(local) => {
                let mut uses = Vec::new();
                let mut borrow = None;
                if let Some(init) = &local.init {
                    uses = self.leaf_uses(&init.expr);
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

    pub(super) fn marker(&mut self, id: usize) {
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

    pub(super) fn find_loop(&self, label: Option<&syn::Lifetime>) -> Option<&LoopCtx> {
        self.loops.iter().rev().find(|l| match label {
            Some(lt) => l.label.as_deref() == Some(&lt.ident.to_string()),
            None => l.cont.is_some(),
        })
    }

    /// The edge of a `break` (or `continue`) at `from` to its loop or labelled block. The
    /// scopes it leaves end on the way, in a node of its own, as at the end of a block: the
    /// analyses see the locals of a loop body go out of scope at `continue` too.
    pub(super) fn jump(&mut self, from: NodeId, label: Option<&syn::Lifetime>, is_continue: bool) {
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
    pub(super) fn control_edges(&mut self, from: NodeId, e: &Expr) {
        let mut f = FindJumps::default();
        f.visit_expr(e);
        if f.returns {
            let r = self.new_node(NodeKind::Return);
            self.link(from, r);
        }
        for (label, is_continue, assigned) in f.jumps {
            let defs: Vec<(LocalId, Span)> = assigned
                .iter()
                .filter_map(|i| Some((self.resolve(i)?, i.span())))
                .collect();
            let from = if defs.is_empty() {
                from
            } else {
                // What the path to the jump certainly assigned (`jumps.rs`).
                let n = self.new_node(NodeKind::Eval);
                self.body.nodes[n.0].defs = defs;
                self.body.nodes[n.0].assigns = true;
                self.link(from, n);
                n
            };
            self.jump(from, label.as_ref(), is_continue);
        }
    }

    pub(super) fn leaf(&mut self, e: &Expr) {
        let uses = self.leaf_uses(e);
        let n = self.push(NodeKind::Eval, uses);
        self.control_edges(n, e);
    }

    pub(super) fn join(&mut self, ends: Vec<Option<NodeId>>) {
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
}
