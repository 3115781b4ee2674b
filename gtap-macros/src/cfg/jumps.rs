//! The jumps (`return`, `?`, `break`, `continue`) that leave an expression the graph treats as
//! a leaf, with the locals each one has certainly assigned on its way out.
//!
//! A leaf is one node, so an assignment inside it is no def of the node (it may not run). But
//! a jump out of the leaf carries what the statements before it, in its block and the blocks
//! around that one inside the leaf, assigned whole (`x = e;`): those ran on that path. The
//! value of a loop or labelled block with a join leaves as `{ tmp = v; break 'l; }`
//! (`breaks.rs`), also from a loop without markers nested in it (a leaf); without the def on
//! that edge, `tmp` looked live at the join, was saved before it had a value (rustc E0381) and
//! restored as an immutable local that the next break assigned again (E0384). Found by the
//! random-program tester (`docs/frontend.md`, "Random programs").

use syn::visit::Visit;

/// A jump out of a leaf: its label, whether it is a `continue`, and the locals (by name) the
/// statements before it assigned whole.
pub(super) type Jump = (Option<syn::Lifetime>, bool, Vec<syn::Ident>);

/// Finds `return`, `?`, and `break`/`continue` that leave a leaf expression (closures, async
/// blocks and nested items are not entered; jumps to loops inside the expression are skipped).
#[derive(Default)]
pub(super) struct FindJumps {
    pub(super) returns: bool,
    pub(super) jumps: Vec<Jump>,
    inner_loops: usize,
    inner_labels: Vec<String>,
    /// Names assigned whole by the statements before the current one, per enclosing block.
    assigned: Vec<Vec<syn::Ident>>,
    /// Names bound inside the leaf: an assignment to one is not the outer local's def.
    bound: Vec<String>,
}

impl FindJumps {
    fn jump(&mut self, label: Option<&syn::Lifetime>, is_continue: bool) {
        match label {
            Some(l) if self.inner_labels.contains(&l.ident.to_string()) => {}
            None if self.inner_loops > 0 => {}
            _ => {
                let defs = self
                    .assigned
                    .iter()
                    .flatten()
                    .filter(|i| !self.bound.contains(&i.to_string()))
                    .cloned()
                    .collect();
                self.jumps.push((label.cloned(), is_continue, defs));
            }
        }
    }

    fn enter_loop(&mut self, label: Option<&syn::Label>, f: impl FnOnce(&mut Self)) {
        self.inner_loops += 1;
        if let Some(l) = label {
            self.inner_labels.push(l.name.ident.to_string());
        }
        f(self);
        if label.is_some() {
            self.inner_labels.pop();
        }
        self.inner_loops -= 1;
    }
}

impl<'ast> Visit<'ast> for FindJumps {
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
    fn visit_block(&mut self, b: &'ast syn::Block) {
        self.assigned.push(Vec::new());
        for s in &b.stmts {
            self.visit_stmt(s);
            if let syn::Stmt::Expr(syn::Expr::Assign(a), Some(_)) = s {
                if let syn::Expr::Path(p) = &*a.left {
                    if let Some(i) = p.path.get_ident() {
                        self.assigned.last_mut().expect("a block").push(i.clone());
                    }
                }
            }
        }
        self.assigned.pop();
    }
    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        self.bound.push(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
    fn visit_expr_return(&mut self, r: &'ast syn::ExprReturn) {
        self.returns = true;
        syn::visit::visit_expr_return(self, r);
    }
    fn visit_expr_try(&mut self, t: &'ast syn::ExprTry) {
        self.returns = true;
        syn::visit::visit_expr_try(self, t);
    }
    fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
        self.jump(b.label.as_ref(), false);
        syn::visit::visit_expr_break(self, b);
    }
    fn visit_expr_continue(&mut self, c: &'ast syn::ExprContinue) {
        self.jump(c.label.as_ref(), true);
    }
    fn visit_expr_loop(&mut self, l: &'ast syn::ExprLoop) {
        self.enter_loop(l.label.as_ref(), |s| syn::visit::visit_expr_loop(s, l));
    }
    fn visit_expr_while(&mut self, w: &'ast syn::ExprWhile) {
        self.enter_loop(w.label.as_ref(), |s| syn::visit::visit_expr_while(s, w));
    }
    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.enter_loop(f.label.as_ref(), |s| syn::visit::visit_expr_for_loop(s, f));
    }
    fn visit_expr_block(&mut self, b: &'ast syn::ExprBlock) {
        if let Some(l) = &b.label {
            self.inner_labels.push(l.name.ident.to_string());
            syn::visit::visit_expr_block(self, b);
            self.inner_labels.pop();
        } else {
            syn::visit::visit_expr_block(self, b);
        }
    }
}

/// Counts, per name, the assignments `name = e` in an expression (every one, closures
/// included, as [`crate::tokens::scan_idents`] counts every name), for
/// `Builder::leaf_uses`.
#[derive(Default)]
pub(super) struct AssignedOnly {
    pub(super) targets: std::collections::HashMap<String, usize>,
}

impl<'ast> Visit<'ast> for AssignedOnly {
    fn visit_expr_assign(&mut self, a: &'ast syn::ExprAssign) {
        if let syn::Expr::Path(p) = &*a.left {
            if let Some(i) = p.path.get_ident() {
                *self.targets.entry(i.to_string()).or_default() += 1;
            }
        }
        syn::visit::visit_expr_assign(self, a);
    }
}
