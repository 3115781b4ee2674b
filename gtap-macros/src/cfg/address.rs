//! The names whose address the body may take and keep: a reference or raw pointer to a local
//! made in one statement and used in a later one.
//!
//! Used by the saving of an outer local at the `let` that hides it (`crate::lower::hidden`):
//! that save happens where the `let` runs, not at the join, so a write through an address of
//! the outer local taken before the `let` and made in the `let`'s scope before the join would
//! be lost. A local whose name appears here keeps the error that asks for a rename instead.
//!
//! Syntactic and by name, so conservative: an operand of `&`, `&mut` or `&raw` (also through
//! field and index projections, `&mut x.0`, `&x[i]`), the first argument of `addr_of!` and
//! `addr_of_mut!`, the receiver of a method whose name says it hands out a mutable
//! reference or a pointer (`..._mut`, `as_ptr`, `as_mut_ptr`), which autoref may take
//! (`x.iter_mut()`, `x.as_mut_ptr()`), and every name a closure without `move` mentions (it
//! may capture the local by reference and write it when called).

use std::collections::BTreeSet;

use syn::{visit::Visit, Block, Expr, ExprClosure, ExprMacro, ExprPath};

/// The names of [the module doc](self) in `block`.
pub(crate) fn address_taken(block: &Block) -> BTreeSet<String> {
    let mut v = Finder::default();
    v.visit_block(block);
    v.names
}

#[derive(Default)]
struct Finder {
    names: BTreeSet<String>,
    /// Inside a closure without `move`: every name counts.
    in_borrowing_closure: bool,
}

impl Finder {
    /// The local a place expression (`x`, `x.0`, `x[i]`, `(x)`) starts from.
    fn root(&mut self, e: &Expr) {
        match e {
            Expr::Path(p) => {
                if let Some(i) = p.path.get_ident() {
                    self.names.insert(i.to_string());
                }
            }
            Expr::Field(f) => self.root(&f.base),
            Expr::Index(i) => self.root(&i.expr),
            Expr::Paren(p) => self.root(&p.expr),
            _ => {}
        }
    }
}

impl<'a> Visit<'a> for Finder {
    fn visit_expr(&mut self, e: &'a Expr) {
        match e {
            Expr::Reference(r) => self.root(&r.expr),
            Expr::RawAddr(r) => self.root(&r.expr),
            Expr::MethodCall(m) => {
                let name = m.method.to_string();
                if name.ends_with("_mut") || name == "as_ptr" || name == "as_mut_ptr" {
                    self.root(&m.receiver);
                }
            }
            _ => {}
        }
        syn::visit::visit_expr(self, e);
    }

    fn visit_expr_closure(&mut self, c: &'a ExprClosure) {
        let outer = self.in_borrowing_closure;
        self.in_borrowing_closure |= c.capture.is_none();
        syn::visit::visit_expr_closure(self, c);
        self.in_borrowing_closure = outer;
    }

    fn visit_expr_path(&mut self, p: &'a ExprPath) {
        if self.in_borrowing_closure {
            if let Some(i) = p.path.get_ident() {
                self.names.insert(i.to_string());
            }
        }
        syn::visit::visit_expr_path(self, p);
    }

    fn visit_expr_macro(&mut self, m: &'a ExprMacro) {
        let last = m.mac.path.segments.last().map(|s| s.ident.to_string());
        if matches!(last.as_deref(), Some("addr_of" | "addr_of_mut")) {
            if let Ok(arg) = m.mac.parse_body::<Expr>() {
                self.root(&arg);
            }
        }
        syn::visit::visit_expr_macro(self, m);
    }
}
