//! Taint: which expressions and locals of a block-level body depend on the thread
//! (`gtap::block::thread_index()`, `is_leader()`, or a local computed from them), and the
//! scopes that make each binding of a name a local of its own.

use std::collections::HashSet;

use proc_macro2::{TokenStream, TokenTree};
use syn::{
    visit::{self, Visit},
    Expr, Pat,
};

use super::{collective, macro_exprs, SOURCES};
use crate::tokens::scan_idents;

/// Why an expression is thread-dependent.
#[derive(Clone, Debug)]
pub(super) enum Reason {
    /// It calls `gtap::block::<name>()` (`thread_index` or `is_leader`).
    Source(String),
    /// It names this tainted local.
    Local(String),
}

impl Reason {
    pub(super) fn describe(&self) -> String {
        match self {
            Reason::Source(f) => format!("depends on `gtap::block::{f}()`"),
            Reason::Local(x) => {
                format!("depends on `gtap::block::thread_index()` through `{x}`")
            }
        }
    }
}

/// Finds the first reason an expression is thread-dependent.
struct Finder<'a> {
    tainted: &'a HashSet<String>,
    scopes: &'a Scopes,
    found: Option<Reason>,
}

impl Finder<'_> {
    fn scan_tokens(&mut self, tokens: TokenStream) {
        for tt in tokens.clone() {
            match tt {
                TokenTree::Group(g) => self.scan_tokens(g.stream()),
                TokenTree::Ident(id) if SOURCES.iter().any(|s| id == s) => {
                    self.found.get_or_insert(Reason::Source(id.to_string()));
                }
                _ => {}
            }
        }
        scan_idents(tokens, &mut |id| {
            let name = id.to_string();
            if self.found.is_none() && self.tainted.contains(&self.scopes.key(&name)) {
                self.found = Some(Reason::Local(name));
            }
        });
    }
}

impl<'ast> Visit<'ast> for Finder<'_> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        if self.found.is_none() {
            visit::visit_expr(self, e);
        }
    }

    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if p.qself.is_some() {
            return;
        }
        if let Some(last) = p.path.segments.last() {
            if SOURCES.iter().any(|s| last.ident == s) {
                self.found = Some(Reason::Source(last.ident.to_string()));
                return;
            }
        }
        if let Some(id) = p.path.get_ident() {
            let name = id.to_string();
            if self.tainted.contains(&self.scopes.key(&name)) {
                self.found = Some(Reason::Local(name));
            }
        }
    }

    fn visit_expr_call(&mut self, c: &'ast syn::ExprCall) {
        // A collective's result is the same on every thread.
        if collective(c).is_none() {
            visit::visit_expr_call(self, c);
        }
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        match macro_exprs(mac) {
            Some(exprs) => exprs.iter().for_each(|e| self.visit_expr(e)),
            None => self.scan_tokens(mac.tokens.clone()),
        }
    }

    fn visit_item(&mut self, _: &'ast syn::Item) {}
}

pub(super) fn taint_of(e: &Expr, tainted: &HashSet<String>, scopes: &Scopes) -> Option<Reason> {
    let mut f = Finder {
        tainted,
        scopes,
        found: None,
    };
    f.visit_expr(e);
    f.found
}

/// The bindings in scope at a point of the walk, innermost last: each binding of a name is a
/// local of its own (its key, `name#k`, numbered in walk order, the same in every walk), so a
/// shadowing `let a = gtap::block::broadcast(a);` is uniform whatever the outer `a` is. A name
/// bound by no pattern (a parameter) is its own key.
#[derive(Default)]
pub(super) struct Scopes {
    pub(super) stack: Vec<Vec<(String, String)>>,
    next: usize,
}

impl Scopes {
    pub(super) fn key(&self, name: &str) -> String {
        self.stack
            .iter()
            .rev()
            .flat_map(|s| s.iter().rev())
            .find(|(n, _)| n == name)
            .map_or_else(|| name.to_string(), |(_, k)| k.clone())
    }

    /// Declares the names `p` binds in the innermost scope; returns their keys.
    pub(super) fn bind(&mut self, p: &Pat) -> Vec<String> {
        let mut keys = Vec::new();
        for name in bindings(p) {
            self.next += 1;
            let key = format!("{name}#{}", self.next);
            if let Some(scope) = self.stack.last_mut() {
                scope.push((name, key.clone()));
            }
            keys.push(key);
        }
        keys
    }
}

/// The names a pattern binds.
fn bindings(p: &Pat) -> Vec<String> {
    struct B(Vec<String>);
    impl<'ast> Visit<'ast> for B {
        fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
            self.0.push(p.ident.to_string());
            visit::visit_pat_ident(self, p);
        }
        fn visit_expr(&mut self, _: &'ast Expr) {}
    }
    let mut b = B(Vec::new());
    b.visit_pat(p);
    b.0
}

/// The locals an assignment writes: the root of each place on its left side.
pub(super) fn roots(e: &Expr, out: &mut Vec<String>) {
    match e {
        Expr::Path(p) if p.qself.is_none() => {
            if let Some(id) = p.path.get_ident() {
                out.push(id.to_string());
            }
        }
        Expr::Field(f) => roots(&f.base, out),
        Expr::Index(i) => roots(&i.expr, out),
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => roots(&u.expr, out),
        Expr::Paren(p) => roots(&p.expr, out),
        Expr::Tuple(t) => t.elems.iter().for_each(|e| roots(e, out)),
        Expr::Array(a) => a.elems.iter().for_each(|e| roots(e, out)),
        _ => {}
    }
}

// ---- the walk ----
