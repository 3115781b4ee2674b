//! The sequential clone (`TaskFn::seq`, host targets only): the function's body as the user
//! wrote it, each `task!(queue = q, f(..))` a call of `glue::seq_task` that returns the child's
//! result at once, and each `taskwait!(queue = q)` a call of `glue::seq_wait`; after the body,
//! a call of `glue::seq_end` with the spawns since its last join. A body that ends with a
//! spawn of the function itself, the join and a tail expression ends in one call of
//! `glue::seq_last_task` instead ([`LastSpawn`]), so that LLVM can make that call a loop. The CPU executor
//! runs it for a child that no idle worker needs (`docs/cpu-executor.md`), a GPU lane for a
//! child while its warp has enough ready work (`docs/gpu-runtime.md`, "Children as calls");
//! on both targets it is compiled only where an executor instantiates it.
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
    markers::{parse_spawn, parse_wait, Spawn, Target},
    parse::{Binding, TaskFnDef},
    tokens::{marker_kind, MarkerKind},
};
use proc_macro2::TokenStream;
use quote::quote;
use syn::{visit::Visit, visit_mut::VisitMut, Expr, Stmt};

/// The items of the clone inside the `TaskFn` impl; nothing for a block-level function.
pub(crate) fn items(def: &TaskFnDef, block: bool) -> TokenStream {
    if block {
        return TokenStream::new();
    }
    let mut body = def.body.clone();
    let last = LastSpawn::find(def);
    if last.is_some() {
        body.stmts.truncate(body.stmts.len() - 3);
    }
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
    let last = last.map(|l| l.call(&out));
    let body_lints = def.attrs.iter().filter(|a| {
        ["allow", "warn", "deny"]
            .iter()
            .any(|n| a.path().is_ident(n))
    });
    quote! {
        #[cfg(not(debug_assertions))]
        const HAS_SEQ: bool = true;

        #[cfg(not(debug_assertions))]
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
                    #last
                })()
            };
            ::gtap::__private::seq_end(__gtap_seq, __gtap_spawn_count);
            __gtap_out
        }
    }
}

/// A body that ends `let PAT = task!(f(..)); taskwait!(); TAIL` (or `task!(f(..));` without
/// the `let`), where `f` is the function itself and `TAIL` has no markers: the clone makes
/// these three one call of `glue::seq_last_task`, which counts the join before the child runs
/// and hands the child's result to `TAIL` in each of its branches, so that the clone's call of
/// itself is in tail position (with `TAIL`'s arithmetic as an accumulator) and LLVM can turn
/// it into a loop, as it does the plain recursion's second call (`docs/cpu-executor.md`).
/// `TAIL` becomes a closure's body: a `return` or `?` in it leaves the closure with the value
/// the body would have returned, and a non-`move` closure borrows what `TAIL` borrows.
struct LastSpawn {
    spawn: Spawn,
    /// The `let`'s pattern (with its type, if any); `None` for a result not bound.
    pat: Option<syn::Pat>,
    wait_queue: Option<Expr>,
    tail: Expr,
}

impl LastSpawn {
    fn find(def: &TaskFnDef) -> Option<Self> {
        let [.., spawn_stmt, wait_stmt, Stmt::Expr(tail, None)] = def.body.stmts.as_slice() else {
            return None;
        };
        let wait = parse_wait(marker_stmt(wait_stmt, MarkerKind::Wait)?).ok()?;
        let (mac, pat) = match spawn_stmt {
            Stmt::Local(local) => {
                let init = local.init.as_ref()?;
                // An attribute on the `let` (a `cfg`, say) would be lost on a closure's
                // parameter: such a body keeps its statements.
                if init.diverge.is_some() || !local.attrs.is_empty() {
                    return None;
                }
                let Expr::Macro(m) = &*init.expr else {
                    return None;
                };
                (&m.mac, Some(local.pat.clone()))
            }
            other => (marker_stmt(other, MarkerKind::Task)?, None),
        };
        if marker_kind(&mac.path) != Some(MarkerKind::Task) {
            return None;
        }
        let spawn = parse_spawn(mac, Target::Detached).ok()?;
        let path = &spawn.func.path;
        let calls_itself = spawn.func.qself.is_none()
            && path.leading_colon.is_none()
            && path.segments.len() == 1
            && path.segments[0].ident == def.ident;
        let mut markers = HasMarker(false);
        markers.visit_expr(tail);
        (calls_itself && !markers.0).then(|| Self {
            spawn,
            pat,
            wait_queue: wait.queue,
            tail: tail.clone(),
        })
    }

    /// The call that stands for the three statements.
    fn call(&self, out: &TokenStream) -> TokenStream {
        let (func, args) = (&self.spawn.func, &self.spawn.args);
        let (queue, wait_queue) = (
            queue(self.spawn.queue.as_ref()),
            queue(self.wait_queue.as_ref()),
        );
        let pat = match &self.pat {
            Some(p) => quote!(#p),
            None => quote!(_),
        };
        let tail = &self.tail;
        quote! {
            ::gtap::__private::seq_last_task(
                __gtap_seq, &#func, #queue, __gtap_spawned, (#(#args,)*), #wait_queue,
                |#pat| -> #out { #tail },
            )
        }
    }
}

/// The marker macro of a statement `m!(..);` of kind `kind`, without attributes.
fn marker_stmt(stmt: &Stmt, kind: MarkerKind) -> Option<&syn::Macro> {
    let mac = match stmt {
        Stmt::Macro(m) if m.attrs.is_empty() => &m.mac,
        Stmt::Expr(Expr::Macro(m), Some(_)) if m.attrs.is_empty() => &m.mac,
        _ => return None,
    };
    (marker_kind(&mac.path) == Some(kind)).then_some(mac)
}

/// Whether an expression holds a marker anywhere.
struct HasMarker(bool);

impl<'ast> Visit<'ast> for HasMarker {
    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        if marker_kind(&m.path).is_some() {
            self.0 = true;
        }
        syn::visit::visit_macro(self, m);
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
