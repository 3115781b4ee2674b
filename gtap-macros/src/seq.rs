//! The sequential clone (`TaskFn::seq`, host targets only): the function's body as the user
//! wrote it, each `task!(queue = q, f(..))` a call of `glue::seq_task` that returns the child's
//! result at once, and each `taskwait!(queue = q)` a call of `glue::seq_wait`; after the body,
//! a call of `glue::seq_end` with the spawns since its last join. The CPU executor
//! runs it for a child that no idle worker needs (`docs/cpu-executor.md`); the GPU never sees
//! it (`#[cfg(not(target_arch = "nvptx64"))]`), so the PTX does not change.
//!
//! The clone is compiled only without debug assertions (release builds). A second copy of the
//! body would report a type error in it a second time wherever the glue differs from the
//! step's (a callee that is not a task function, a wrong argument count, `?` on a value that
//! is not an `Option` or `Result`): `cargo check` and debug builds, where such errors are
//! read, compile the state machine alone and report each error once; release builds, where the
//! CPU executor's speed matters, have both. Debug builds run every child on the state machine.
//!
//! The body is the original one, not the structured one: markers only stand where the checks
//! allow them (a statement's value, never inside a closure or another macro), and there a
//! call that returns the result is the sequential meaning of the fork and the join. Block-level
//! functions get no clone: their bodies run on every thread of a block.

use crate::{
    markers::{parse_spawn, parse_wait, Target},
    parse::{Binding, TaskFnDef},
    tokens::{marker_kind, MarkerKind},
};
use proc_macro2::TokenStream;
use quote::quote;
use syn::{visit_mut::VisitMut, Expr, Stmt};

/// The items of the clone inside the `TaskFn` impl; nothing for a block-level function.
pub(crate) fn items(def: &TaskFnDef, block: bool) -> TokenStream {
    if block {
        return TokenStream::new();
    }
    let mut body = def.body.clone();
    let mut rewrite = Rewrite { ok: true };
    rewrite.visit_block_mut(&mut body);
    if !rewrite.ok {
        // A marker the checks let through but this pass cannot read: no clone, the executor
        // runs the state machine.
        return TokenStream::new();
    }
    let pats = def.params.iter().map(|p| match &p.binding {
        Binding::Name { ident, mutable } => {
            let m = mutable.then(|| quote!(mut));
            quote!(#m #ident)
        }
        Binding::Pattern(pat) => quote!(#pat),
    });
    let out = match &def.output {
        Some(t) => quote!(#t),
        None => quote!(()),
    };
    let stmts = &body.stmts;
    let body_lints = def.attrs.iter().filter(|a| {
        ["allow", "warn", "deny"]
            .iter()
            .any(|n| a.path().is_ident(n))
    });
    quote! {
        #[cfg(all(not(target_arch = "nvptx64"), not(debug_assertions)))]
        const HAS_SEQ: bool = true;

        #[cfg(all(not(target_arch = "nvptx64"), not(debug_assertions)))]
        #[allow(
            unused_mut,
            unused_variables,
            unused_assignments,
            unreachable_code,
            unused_unsafe,
            clippy::all,
            clippy::undocumented_unsafe_blocks,
            reason = "the function's body as written, run as a plain function: what the step's rewriting needs (an `unsafe` around a task's result, say) is not needed here"
        )]
        #(#body_lints)*
        #[inline]
        fn seq<__GtapSeq: ::gtap::__private::SeqContext>(
            __gtap_seq: &mut __GtapSeq,
            __gtap_args: Self::Args,
        ) -> #out {
            // The spawns since the last join, counted by the executor at each join and, for
            // those after the last one, when the body has returned (the closure is the body:
            // its `return`s and `?`s leave it, not the clone).
            let mut __gtap_spawn_count: u32 = 0;
            let __gtap_out = {
                let __gtap_spawned: &mut u32 = &mut __gtap_spawn_count;
                let __gtap_seq: &mut __GtapSeq = &mut *__gtap_seq;
                (move || -> #out {
                    let (#(#pats,)*) = __gtap_args;
                    #(#stmts)*
                })()
            };
            ::gtap::__private::seq_end(__gtap_seq, __gtap_spawn_count);
            __gtap_out
        }
    }
}

/// A `queue = q` hint as the `u32` the executor checks (any integer type, as in the step).
fn queue(q: Option<&Expr>) -> TokenStream {
    match q {
        Some(q) => quote!(::gtap::__private::queue(#q)),
        None => quote!(0),
    }
}

/// Replaces the markers of a body with the clone's calls.
struct Rewrite {
    ok: bool,
}

impl Rewrite {
    /// The call that stands for the marker `mac`, or `None` for a macro that is not one.
    fn call(&mut self, mac: &syn::Macro) -> Option<Expr> {
        let kind = marker_kind(&mac.path)?;
        let tokens = match kind {
            MarkerKind::Task => {
                let Ok(spawn) = parse_spawn(mac, Target::Detached) else {
                    self.ok = false;
                    return None;
                };
                let (func, args) = (&spawn.func, &spawn.args);
                let queue = queue(spawn.queue.as_ref());
                quote! {
                    ::gtap::__private::seq_task(
                        __gtap_seq, &#func, #queue, __gtap_spawned, (#(#args,)*)
                    )
                }
            }
            MarkerKind::Wait => {
                let Ok(wait) = parse_wait(mac) else {
                    self.ok = false;
                    return None;
                };
                let queue = queue(wait.queue.as_ref());
                quote!(::gtap::__private::seq_wait(__gtap_seq, #queue, __gtap_spawned))
            }
        };
        match syn::parse2(tokens) {
            Ok(e) => Some(e),
            Err(_) => {
                self.ok = false;
                None
            }
        }
    }
}

impl VisitMut for Rewrite {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Macro(m) = e {
            if let Some(call) = self.call(&m.mac) {
                *e = call;
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }

    fn visit_stmt_mut(&mut self, s: &mut Stmt) {
        if let Stmt::Macro(m) = s {
            if let Some(call) = self.call(&m.mac) {
                *s = Stmt::Expr(call, Some(Default::default()));
                return;
            }
        }
        syn::visit_mut::visit_stmt_mut(self, s);
    }
}
