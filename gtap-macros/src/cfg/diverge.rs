//! Which statements never complete, read from their syntax alone.
//!
//! rustc knows that the code after `panic!()`, `std::process::abort()`, `return` or a `loop`
//! without a `break` does not run: a `let` after a `match` whose other arms end that way reads
//! a value given on every path that completes. The graph must know it too, or a local that
//! rustc sees as possibly unassigned would be saved at a `taskwait!()` before such a statement
//! (E0381 on the generated code). Only what is certain is recognised: a statement taken for
//! diverging is dropped with everything after it, so a call is known by its full path
//! (`std::process::exit`, not `process::exit` or a bare `exit` that may be the user's own);
//! a user's function returning `!` is not seen (end the branch with `unreachable!()`).

use syn::{visit::Visit, Expr, Stmt};

/// Whether `mac` is one of the standard macros that never complete (`panic!`, `unreachable!`,
/// `todo!`, `unimplemented!`, by the last segment of the path: `core::panic!` too).
pub(super) fn macro_diverges(mac: &syn::Macro) -> bool {
    mac.path.segments.last().is_some_and(|s| {
        matches!(
            s.ident.to_string().as_str(),
            "panic" | "unreachable" | "todo" | "unimplemented"
        )
    })
}

/// Whether a call of `path` never returns: the standard functions of type `-> !` named by
/// their full path (`std::process::abort()`, `::std::process::exit(1)`,
/// `std::panic::panic_any(..)`, `core::panic::resume_unwind(..)`,
/// `core::hint::unreachable_unchecked()`, `core::intrinsics::abort()`). A shorter path
/// (`process::exit` after `use std::process;`) may name the user's own module, whose `exit`
/// would return: taking it for diverging would drop the code after it.
fn call_diverges(path: &syn::Path) -> bool {
    let names: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    let [krate, module, function] = names.as_slice() else {
        return false;
    };
    if krate != "std" && krate != "core" {
        return false;
    }
    matches!(
        (module.as_str(), function.as_str()),
        ("process", "abort" | "exit")
            | ("panic", "panic_any" | "resume_unwind")
            | ("hint", "unreachable_unchecked")
            | ("intrinsics", "abort")
    )
}

/// Whether evaluating `e` never completes: a `return`, `break` or `continue`, a diverging
/// macro or call, a block with such a statement, an `if`/`else` or `match` whose every branch
/// diverges, a `loop` that no `break` leaves, an assignment of a diverging value.
pub(super) fn expr_diverges(e: &Expr) -> bool {
    match e {
        Expr::Return(_) | Expr::Break(_) | Expr::Continue(_) => true,
        Expr::Macro(m) => macro_diverges(&m.mac),
        Expr::Call(c) => match &*c.func {
            Expr::Path(p) => call_diverges(&p.path),
            _ => false,
        },
        Expr::Block(b) => b.label.is_none() && b.block.stmts.iter().any(stmt_diverges),
        Expr::Unsafe(u) => u.block.stmts.iter().any(stmt_diverges),
        Expr::Paren(p) => expr_diverges(&p.expr),
        Expr::Group(g) => expr_diverges(&g.expr),
        Expr::Assign(a) => expr_diverges(&a.right),
        Expr::If(i) => match &i.else_branch {
            Some((_, els)) => i.then_branch.stmts.iter().any(stmt_diverges) && expr_diverges(els),
            None => false,
        },
        Expr::Match(m) => !m.arms.is_empty() && m.arms.iter().all(|a| expr_diverges(&a.body)),
        Expr::Loop(l) => {
            let mut breaks = LoopBreaks {
                label: l.label.as_ref(),
                inner: 0,
                found: false,
            };
            breaks.visit_block(&l.body);
            !breaks.found
        }
        _ => false,
    }
}

/// Whether the statement never completes (see [`expr_diverges`]); a `let` whose value (not
/// its `else` block) diverges too.
pub(super) fn stmt_diverges(s: &Stmt) -> bool {
    match s {
        Stmt::Local(l) => l.init.as_ref().is_some_and(|i| expr_diverges(&i.expr)),
        Stmt::Macro(m) => macro_diverges(&m.mac),
        Stmt::Expr(e, _) => expr_diverges(e),
        Stmt::Item(_) => false,
    }
}

/// Finds a `break` that leaves the loop being scanned: an unlabelled one outside nested loops,
/// or one naming the loop's label (closures, async blocks and nested items are not entered).
struct LoopBreaks<'l> {
    label: Option<&'l syn::Label>,
    inner: usize,
    found: bool,
}

impl<'ast> Visit<'ast> for LoopBreaks<'_> {
    fn visit_expr_closure(&mut self, _: &'ast syn::ExprClosure) {}
    fn visit_expr_async(&mut self, _: &'ast syn::ExprAsync) {}
    fn visit_item(&mut self, _: &'ast syn::Item) {}
    fn visit_expr_break(&mut self, b: &'ast syn::ExprBreak) {
        match (&b.label, self.label) {
            (None, _) if self.inner == 0 => self.found = true,
            (Some(l), Some(own)) if l.ident == own.name.ident => self.found = true,
            _ => {}
        }
        syn::visit::visit_expr_break(self, b);
    }
    fn visit_expr_loop(&mut self, l: &'ast syn::ExprLoop) {
        self.inner += 1;
        syn::visit::visit_expr_loop(self, l);
        self.inner -= 1;
    }
    fn visit_expr_while(&mut self, w: &'ast syn::ExprWhile) {
        self.inner += 1;
        syn::visit::visit_expr_while(self, w);
        self.inner -= 1;
    }
    fn visit_expr_for_loop(&mut self, f: &'ast syn::ExprForLoop) {
        self.inner += 1;
        syn::visit::visit_expr_for_loop(self, f);
        self.inner -= 1;
    }
}
