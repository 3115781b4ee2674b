//! The jumps (`return`, `?`, `break`, `continue`) that leave an expression the graph treats as
//! a leaf.

use syn::visit::Visit;

/// Finds `return`, `?`, and `break`/`continue` that leave a leaf expression (closures, async
/// blocks and nested items are not entered; jumps to loops inside the expression are skipped).
#[derive(Default)]
pub(super) struct FindJumps {
    pub(super) returns: bool,
    /// (label, is_continue)
    pub(super) jumps: Vec<(Option<syn::Lifetime>, bool)>,
    inner_loops: usize,
    inner_labels: Vec<String>,
}

impl FindJumps {
    fn jump(&mut self, label: Option<&syn::Lifetime>, is_continue: bool) {
        match label {
            Some(l) if self.inner_labels.contains(&l.ident.to_string()) => {}
            None if self.inner_loops > 0 => {}
            _ => self.jumps.push((label.cloned(), is_continue)),
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
