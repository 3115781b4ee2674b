//! The control constructs of the graph builder (`build.rs`): `if` and `match` branch and
//! join, loops get a header and an exit that `break` and `continue` jump to, labelled blocks an
//! exit, and assignments define what they assign.

use super::build::LoopCtx;
use super::{borrow_of, diverge, Builder, LocalId, NodeId, NodeKind, PathStep};
use proc_macro2::Span;
use syn::{Block, Expr};

impl Builder<'_> {
    pub(super) fn loop_body(
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
    pub(super) fn assignees<'e>(
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

    pub(super) fn expr_stmt(&mut self, e: &Expr) {
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
