//! A `task!` and a `taskwait!()` in a state's code: the spawn (its queue, the child's
//! arguments written into its frame, its result slot in the task-data struct) and the wait
//! (the saves of the locals live after it, `Context::wait`, and the jump to its resume state
//! when nothing is left to wait for).

use super::*;

impl Lower<'_> {
    fn queue(q: Option<&Expr>) -> TokenStream {
        match q {
            Some(q) => quote!(::gtap::__private::queue(#q)),
            None => quote!(0),
        }
    }

    pub(super) fn spawn(&self, id: usize, sp: &Spawn) -> TokenStream {
        if let (Some(l), Target::Let { .. }) = (
            self.body.spawn_target.get(id).copied().flatten(),
            &sp.target,
        ) {
            self.spawned.borrow_mut().insert(l);
        }
        let f = &sp.func;
        let n = proc_macro2::Literal::usize_unsuffixed(sp.args.len());
        // `?` in an argument returns from the task, as anywhere in the body.
        let mut args = sp.args.clone();
        for a in &mut args {
            RewriteReturn.visit_expr_mut(a);
        }
        let (queue_let, queue) = match &sp.queue {
            Some(q) => (
                {
                    let mut q = q.clone();
                    RewriteReturn.visit_expr_mut(&mut q);
                    quote!(let __gtap_queue = ::gtap::__private::queue(#q);)
                },
                quote!(__gtap_queue),
            ),
            None => (TokenStream::new(), quote!(0)),
        };
        let dst = match (
            self.body.spawn_target.get(id).copied().flatten(),
            &sp.target,
        ) {
            (Some(l), Target::Place { root, place }) => {
                // The element of the root's task-data field: written by the child after this
                // step has saved the root there (children run only after the step returns).
                let field = self.place(l);
                let projected = reroot(place, &quote!((*__gtap_root)));
                quote!({
                    let __gtap_root = ::gtap::__private::field_like(&raw mut #field, &#root);
                    &raw mut #projected
                })
            }
            (Some(l), Target::Let { ty: Some(ty), .. }) => {
                // `let x: T = task!(..)`: the field is a `T`, and a callee returning another
                // type is rustc's mismatch at `T`.
                let place = self.place(l);
                let dst = Ident::new("__gtap_dst", Span::call_site().located_at(ty.span()));
                quote!({ let #dst: *mut #ty = &raw mut #place; #dst })
            }
            (Some(l), _) => {
                let place = self.place(l);
                quote!(&raw mut #place)
            }
            (None, _) => quote!(::gtap::__private::discard(&#f)),
        };
        let check = quote_spanned!(f.path.segments.last().map_or(sp.span, |s| s.ident.span())=>
            ::gtap::__private::arity::<_, #n>(&#f));
        quote! {
            {
                #check;
                let __gtap_args = (#(#args,)*);
                #queue_let
                if !unsafe {
                    ::gtap::__private::spawn_task(__gtap_ctx, &#f, #queue, #dst, __gtap_args)
                } {
                    return ::gtap::__private::Step::Aborted;
                }
            }
        }
    }

    /// The saves of the outer locals that `hider`'s `let` hides at a later wait, for right
    /// before that `let` (see [`hidden`]).
    pub(super) fn hidden_saves(&self, hider: LocalId) -> TokenStream {
        let mut out = TokenStream::new();
        for l in hidden::hidden_by(self.info, hider) {
            if self.spawned.borrow().contains(l) {
                // Declared by its spawn in this state's code: its child writes its field.
                continue;
            }
            out.extend(self.save(l));
        }
        out
    }

    /// The statement that saves local `l` into its field.
    fn save(&self, l: LocalId) -> TokenStream {
        let call = save_call(&self.body.locals[l.0].ident, &self.place(l));
        quote!(unsafe { #call };)
    }

    pub(super) fn wait(&self, id: usize, w: &Wait) -> TokenStream {
        let Some(wi) = self.body.waits.iter().position(|p| p.marker == id) else {
            return TokenStream::new();
        };
        let state = state_lit(wi);
        let mut saves = TokenStream::new();
        for l in self.info.live_after[wi].iter() {
            if self.info.joined[wi].contains(l) {
                continue;
            }
            let decl = &self.body.locals[l.0];
            if decl.param.is_some() && !decl.mutable {
                continue;
            }
            if self.info.unsaved_results[wi].contains(l) {
                // Its field holds its value already (see `Body::only_task_writes`).
                continue;
            }
            if self.info.saved_at_hider[wi].contains(l) {
                // Hidden here by a `let` of its name: saved right before that `let`.
                continue;
            }
            if self.spawned.borrow().contains(l) {
                // Declared by its spawn earlier in this state's code: no local here, and its
                // child writes its field.
                continue;
            }
            saves.extend(self.save(l));
        }
        let mut queue = w.queue.clone();
        if let Some(q) = &mut queue {
            // `?` in the hint returns from the task, as anywhere in the body.
            RewriteReturn.visit_expr_mut(q);
        }
        let queue = Self::queue(queue.as_ref());
        quote! {
            #saves
            if __gtap_ctx.wait(#state, #queue) {
                return ::gtap::__private::Step::Suspended;
            }
            __gtap_state = #state;
            continue '__gtap_dispatch;
        }
    }
}

/// `place` (fields and indexes over a local, see [`crate::markers::place_root`]) with its root
/// local replaced by `root`.
fn reroot(place: &Expr, root: &TokenStream) -> TokenStream {
    match place {
        Expr::Field(f) => {
            let (base, member) = (reroot(&f.base, root), &f.member);
            quote!(#base.#member)
        }
        Expr::Index(i) => {
            let (base, index) = (reroot(&i.expr, root), &i.index);
            quote!(#base[#index])
        }
        Expr::Paren(p) => reroot(&p.expr, root),
        _ => root.clone(),
    }
}
