//! Resume states: the code of state `k`, which goes on after wait `k - 1` (the parent
//! module's docs, "States"). It is built inside-out along the path to the wait: at each level,
//! the statements after the wait's construct (when the wait can reach them), after the
//! restores of the locals declared at that level; each construct on the path mirrored (a block
//! or branch as a block, a loop as the rest of its current iteration followed by its full
//! iterations, [`resume_loop`]).
//!
//! Invariant: a resume state names only the locals it restores or declares itself; code the
//! wait cannot reach is not emitted ([`Lower::resumes_to`]), since it may name locals that are
//! neither live nor mentioned after the wait.

use super::{names, Lower};
use crate::{
    cfg::{LocalId, NodeId, PathStep},
    diag::Ctxt,
};
use proc_macro2::{Ident, TokenStream};
use quote::quote;
use syn::{Block, Expr, Stmt};

impl Lower<'_> {
    /// The code of the resume state of wait `w`: the restores of the locals of the body's
    /// level, then the code along the path to the wait (see the module docs).
    pub(super) fn resume(&self, cx: &mut Ctxt, block: &Block, w: usize) -> TokenStream {
        self.spawned.take();
        let wait = &self.body.waits[w];
        let code = self.resume_level(cx, block, w, 0);
        let restores = self.restores(&wait.visible[0], w, &code);
        let end = self.unit_end();
        quote! {
            #restores
            #code
            #end
        }
    }

    /// The restores of the locals of one level, before `after`, the code that follows them.
    fn restores(&self, visible: &[LocalId], w: usize, after: &TokenStream) -> TokenStream {
        let live = &self.info.live_after[w];
        let mentioned = &self.info.mentioned_after[w];
        let mut out = TokenStream::new();
        for l in visible {
            let decl = &self.body.locals[l.0];
            let m = decl.mutable.then(|| quote!(mut));
            let id = &decl.ident;
            if self.info.unset_results[w].contains(*l) {
                // No value yet on some path: read again only after its next join, whose state
                // restores it.
                continue;
            }
            if live.contains(*l) {
                let place = self.place(*l);
                // A parameter is live to the end (it is read from the arguments, never
                // saved), also in a state that reaches only the next wait.
                // So is a result that a later wait does not save (its field keeps it).
                let unsaved = decl.param.is_some()
                    || self.info.unsaved_results.iter().any(|u| u.contains(*l));
                let allow = unsaved.then(
                    || quote!(#[allow(unused_variables, reason = "read after a later join")]),
                );
                if decl.in_param_pattern && decl.param.is_some() {
                    // The parameter's pattern again, binding its names that are live here (at
                    // its first one; `mut` names are ordinary locals).
                    let first = visible
                        .iter()
                        .find(|v| self.body.locals[v.0].param == decl.param && live.contains(**v));
                    if first != Some(l) {
                        continue;
                    }
                    let keep: Vec<&Ident> = visible
                        .iter()
                        .filter(|v| self.body.locals[v.0].param == decl.param && live.contains(**v))
                        .map(|v| &self.body.locals[v.0].ident)
                        .collect();
                    let pat = decl
                        .param
                        .and_then(|i| self.def.params.get(i))
                        .and_then(|p| p.pattern_binding_only(&keep));
                    out.extend(quote!(#allow let #pat = unsafe { #place };));
                } else {
                    out.extend(quote!(#allow let #m #id = unsafe { #place };));
                }
            } else if mentioned.contains(*l)
                && !(decl.no_value && self.body.only_task_writes(id))
                && names(after, id)
            {
                // Written before it is read again: declared here, assigned by the code after
                // (not when only spawns write it: they write its field; not when this state's
                // code does not name it, before the next wait: rustc could not type it).
                out.extend(quote!(let #m #id;));
            }
        }
        out
    }

    fn resume_level(&self, cx: &mut Ctxt, block: &Block, w: usize, depth: usize) -> TokenStream {
        let wait = &self.body.waits[w];
        let visible = &wait.visible[depth + 1];
        let Some(&(idx, step)) = wait.path.get(depth) else {
            return TokenStream::new();
        };
        let rest_stmts = block.stmts.get(idx + 1..).unwrap_or(&[]);
        // Items of this block before the wait's statement (a nested block's; the body's own
        // are hoisted): in scope for the code after it, as in the source.
        let items: TokenStream = block.stmts[..idx.min(block.stmts.len())]
            .iter()
            .filter(|s| matches!(s, Stmt::Item(_)))
            .map(|s| self.stmt(s))
            .collect();
        if step == PathStep::Wait {
            let rest = self.stmts(rest_stmts);
            let restores = self.restores(visible, w, &rest);
            return quote!(#items #restores #rest);
        }
        let rest = if self.resumes_to(w, depth, wait.after[depth]) {
            self.stmts(rest_stmts)
        } else {
            TokenStream::new()
        };
        let Some(Stmt::Expr(e, _)) = block.stmts.get(idx) else {
            return TokenStream::new();
        };
        let inner = match (step, e) {
            (PathStep::Block, Expr::Block(b)) => {
                let inner = self.resume_level(cx, &b.block, w, depth + 1);
                let label = &b.label;
                quote!(#label { #inner })
            }
            (PathStep::Block, Expr::Unsafe(u)) => {
                let inner = self.resume_level(cx, &u.block, w, depth + 1);
                quote!(unsafe { #inner })
            }
            (PathStep::Then, Expr::If(i)) => {
                let inner = self.resume_level(cx, &i.then_branch, w, depth + 1);
                quote!({ #inner })
            }
            (PathStep::Else, Expr::If(i)) => match i.else_branch.as_ref().map(|(_, e)| &**e) {
                Some(Expr::Block(b)) => {
                    let inner = self.resume_level(cx, &b.block, w, depth + 1);
                    quote!({ #inner })
                }
                _ => TokenStream::new(),
            },
            (PathStep::Arm(k), Expr::Match(m)) => match m.arms.get(k).map(|a| &*a.body) {
                Some(Expr::Block(b)) => {
                    let inner = self.resume_level(cx, &b.block, w, depth + 1);
                    quote!({ #inner })
                }
                _ => TokenStream::new(),
            },
            (PathStep::LoopBody, Expr::Loop(l)) => {
                let inner = self.resume_level(cx, &l.body, w, depth + 1);
                let again = self.resumes_to(w, depth, wait.headers[depth]);
                let full = again.then(|| self.stmts(&l.body.stmts));
                resume_loop(&l.label, &inner, full)
            }
            (PathStep::LoopBody, Expr::While(wh)) => {
                let inner = self.resume_level(cx, &wh.body, w, depth + 1);
                let again = self.resumes_to(w, depth, wait.headers[depth]);
                let full = again.then(|| {
                    let body = self.stmts(&wh.body.stmts);
                    match &*wh.cond {
                        Expr::Let(l) => {
                            let (pat, expr) = (&l.pat, &l.expr);
                            quote!(let #pat = #expr else { break; }; #body)
                        }
                        c => quote!(if !(#c) { break; } #body),
                    }
                });
                resume_loop(&wh.label, &inner, full)
            }
            _ => {
                cx.error_spanned_by(
                    e,
                    "internal error in #[gtap::function]: cannot resume inside this construct",
                );
                TokenStream::new()
            }
        };
        let restores = self.restores(visible, w, &quote!(#inner #rest));
        quote!(#items #restores #inner #rest)
    }

    /// Whether the resume code of wait `w`, at the construct on its path at `depth`, reaches
    /// `node` (the code after the construct, or its loop's next iteration): it is the wait's
    /// own node, or there is a path from the
    /// wait that stays in the current iteration of every loop enclosing that construct (the
    /// next iterations of those are the mirrored `FULL` iterations, built on their own).
    /// Code the resume state cannot reach is not emitted: it may name locals that are neither
    /// live nor mentioned after the wait, which the state does not declare.
    fn resumes_to(&self, w: usize, depth: usize, node: Option<NodeId>) -> bool {
        let wait = &self.body.waits[w];
        let outer: Vec<NodeId> = wait.headers[..depth].iter().flatten().copied().collect();
        // A construct whose last node is the wait itself (`unsafe { ..; taskwait!(); }`)
        // goes on right after it.
        node.is_some_and(|n| n == wait.node || self.body.reaches(wait.node, n, &outer))
    }
}

/// A loop on the path to a wait, in its resume state: the rest of the current iteration
/// (`inner`), then the full iterations (`full`, `None` when the wait cannot reach the loop's
/// next iteration: `inner` then ends in a `break` or leaves the function on every path).
fn resume_loop(
    label: &Option<syn::Label>,
    inner: &TokenStream,
    full: Option<TokenStream>,
) -> TokenStream {
    let Some(full) = full else {
        return quote!(#label loop { #inner };);
    };
    quote! {
        let mut __gtap_first = true;
        #label loop {
            if __gtap_first {
                __gtap_first = false;
                #inner
            } else {
                #full
            }
        };
    }
}
