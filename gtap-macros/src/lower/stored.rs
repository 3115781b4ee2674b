//! `v = e` into a local that receives task results on some paths and plain values on others,
//! before one join (`let v; if c { v = task!(f(..)); } else { v = e; } taskwait!();`, see
//! [`crate::cfg::Body::stored_writes`]): no wait saves such a local (on the paths where its
//! task is pending it has no value, and rustc would refuse the save), so its task-data field
//! must hold its value whenever it has one. The children write the field; each plain
//! assignment stores its value there too, `{ v = e; save(&raw mut (*frame).v, v) }`.

use proc_macro2::{Ident, TokenStream};
use quote::quote;
use syn::{visit_mut::VisitMut, Block, Expr, Pat, Stmt};

/// Rewrites the assignments of the local declared by the one `let name;` (no value) of the
/// function, where that local is in scope (not under another binding of the name).
pub(super) struct StoreAssigned {
    /// The local's name.
    pub(super) name: Ident,
    /// Its field, `(*__gtap_frame).name`.
    pub(super) place: TokenStream,
    /// Whether `name` names that local at this point of the walk.
    active: bool,
}

impl StoreAssigned {
    pub(super) fn new(name: Ident, place: TokenStream) -> Self {
        StoreAssigned {
            name,
            place,
            active: false,
        }
    }

    fn binds(&self, pat: &Pat) -> bool {
        let mut found = Vec::new();
        crate::cfg::bindings(pat, None, false, &mut found);
        found.iter().any(|(id, _, _)| *id == self.name)
    }

    /// Visits `f` with `name` shadowed when `pat` binds it.
    fn under(&mut self, pat: &Pat, f: impl FnOnce(&mut Self)) {
        let outer = self.active;
        if self.binds(pat) {
            self.active = false;
        }
        f(self);
        self.active = outer;
    }
}

impl VisitMut for StoreAssigned {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            // A closure cannot assign a local that is not `mut`; an async block is not run here.
            Expr::Closure(_) | Expr::Async(_) => {}
            Expr::Assign(a) => {
                self.visit_expr_mut(&mut a.right);
                let Expr::Path(p) = &*a.left else { return };
                if !self.active || !p.path.is_ident(&self.name) {
                    return;
                }
                let store = super::save_call(&self.name, &self.place);
                *e = Expr::Verbatim(quote!({ #a; unsafe { #store } }));
            }
            Expr::If(i) => match &mut *i.cond {
                Expr::Let(l) => {
                    self.visit_expr_mut(&mut l.expr);
                    let pat = (*l.pat).clone();
                    self.under(&pat, |s| s.visit_block_mut(&mut i.then_branch));
                    if let Some((_, els)) = &mut i.else_branch {
                        self.visit_expr_mut(els);
                    }
                }
                _ => syn::visit_mut::visit_expr_if_mut(self, i),
            },
            Expr::While(w) => match &mut *w.cond {
                Expr::Let(l) => {
                    self.visit_expr_mut(&mut l.expr);
                    let pat = (*l.pat).clone();
                    self.under(&pat, |s| s.visit_block_mut(&mut w.body));
                }
                _ => syn::visit_mut::visit_expr_while_mut(self, w),
            },
            Expr::ForLoop(f) => {
                self.visit_expr_mut(&mut f.expr);
                let pat = (*f.pat).clone();
                self.under(&pat, |s| s.visit_block_mut(&mut f.body));
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_arm_mut(&mut self, arm: &mut syn::Arm) {
        let pat = arm.pat.clone();
        self.under(&pat, |s| syn::visit_mut::visit_arm_mut(s, arm));
    }

    fn visit_block_mut(&mut self, b: &mut Block) {
        let outer = self.active;
        for s in &mut b.stmts {
            self.visit_stmt_mut(s);
            if let Stmt::Local(l) = s {
                if self.binds(&l.pat) {
                    // The one `let name;` without a value is the local (`stored_writes`); a
                    // `let name = ..` is another, which the rest of the block sees.
                    self.active = l.init.is_none();
                }
            }
        }
        self.active = outer;
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}
