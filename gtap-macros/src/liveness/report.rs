//! The errors the analyses of [`super`] find, each reported once per local at its first
//! offending place: a result read, assigned, spawned into again, or left in scope or in the
//! function while it may be pending; a local without a value that a task fills on only some
//! paths to its join; a saved local that a later `let` hides; and a value that holds a borrow
//! across a `taskwait!()`.

use super::{hidden_at, saved_at_wait, states_reaching, BitSet, LivenessInfo, Pending};
use crate::{
    cfg::{Body, LocalId, NodeKind},
    diag::Ctxt,
};

pub(super) fn report(cx: &mut Ctxt, body: &Body, input: &[Option<Pending>], info: &LivenessInfo) {
    let name = |l: LocalId| body.locals[l.0].ident.to_string();
    let mut reported = BitSet::default();
    let mut never_joined = BitSet::default();
    let mut pending_at_return = BitSet::default();
    for (k, node) in body.nodes.iter().enumerate() {
        let Some(p) = &input[k] else { continue };
        for (u, span) in &node.uses {
            if p.may.contains(*u) && !reported.contains(*u) {
                reported.insert(*u);
                let msg = if body.locals[u.0].place_spawn {
                    format!(
                        "`{}` is used while a task!(..) writes into it: until the taskwait!() that joins it, `{}` may only receive more task results; move this use before the task!(..) or after the taskwait!()",
                        name(*u),
                        name(*u)
                    )
                } else {
                    format!(
                        "`{}` is read before the taskwait!() that joins its task!(..): add taskwait!() before this use",
                        name(*u)
                    )
                };
                cx.error_at(*span, msg);
            }
        }
        for (d, span) in &node.defs {
            if p.may.contains(*d) && !reported.contains(*d) {
                reported.insert(*d);
                cx.error_at(
                    *span,
                    format!(
                        "`{}` is assigned while the task!(..) that writes it is still running: add taskwait!() before this",
                        name(*d)
                    ),
                );
            }
        }
        match node.kind {
            NodeKind::Spawn {
                target: Some(t),
                place: false,
                ..
            } if p.may.contains(t) && !reported.contains(t) => {
                reported.insert(t);
                if let Some(span) = body.locals[t.0].spawn_span {
                    cx.error_at(
                        span,
                        format!(
                            "`{}` already receives the result of a running task!(..): add taskwait!() before spawning into it again",
                            name(t)
                        ),
                    );
                }
            }
            NodeKind::Return => {
                never_joined.union_with(&p.may);
                pending_at_return.union_with(&p.may);
            }
            _ => {}
        }
        for l in &node.scope_end {
            if p.may.contains(*l) {
                never_joined.insert(*l);
            }
        }
    }
    for l in never_joined.iter() {
        if reported.contains(l) {
            continue;
        }
        if let Some(span) = body.locals[l.0].spawn_span {
            let deferred = name(l).starts_with(crate::tokens::DEFERRED);
            let msg = if deferred && pending_at_return.contains(l) {
                "the result of this task!(..) is still pending where the task returns (a `return`, a `?`, also in a later task!(..)'s arguments, or the end of the body), before the taskwait!() that applies it (its `op=` update or `let` pattern runs at that join): move the early exit before this task!(..) or after the taskwait!()".to_string()
            } else if deferred {
                "the result of this task!(..) is never joined: control leaves its block (a `break` or `continue`) before the taskwait!() that applies it (its `op=` update or `let` pattern runs at that join); add taskwait!() before that point".to_string()
            } else if pending_at_return.contains(l) {
                format!(
                    "the result `{}` of this task!(..) is still pending where the task returns (a `return`, a `?`, also in a later task!(..)'s arguments, or the end of the body), before a taskwait!() joins it: add taskwait!() before that point, move an early exit before this task!(..), or write `task!(..);` without `let` to detach the task",
                    name(l)
                )
            } else {
                format!(
                    "the result `{}` of this task!(..) is never joined: add taskwait!() before it goes out of scope, or write `task!(..);` without `let` to detach the task",
                    name(l)
                )
            };
            cx.error_at(span, msg);
        }
    }
    // Values live across a wait that hold a borrow. (A result pending on only some paths,
    // `let mut a = 0; if c { a = task!(..) }`, is saved like any live local: the wait stores
    // its current value into its slot before the step returns, and the child, published only
    // after that, overwrites it on the paths that spawned; see the `Context` contract.)
    // A local declared without a value (`let x: T;`) that a task!(..) fills on only some
    // paths to a wait: the wait saves it like any live local, which Rust refuses on the
    // spawning paths (it has no value there), so the error would name generated code. (Not
    // when only task results write it: then no wait saves it, see `unsaved_results`.)
    let mut borrow_reported = BitSet::default();
    let states = states_reaching(body);
    for (w, wait) in body.waits.iter().enumerate() {
        let Some(p) = &input[wait.node.0] else {
            continue;
        };
        for l in info.live_after[w].iter() {
            if info.joined[w].contains(l) {
                continue;
            }
            let decl = &body.locals[l.0];
            if decl.no_value
                && p.may.contains(l)
                && !info.unsaved_results[w].contains(l)
                && !reported.contains(l)
            {
                reported.insert(l);
                cx.error_at(
                    decl.spawn_span.unwrap_or(decl.ident.span()),
                    format!(
                        "`{}` is declared without a value and receives this task's result on only some paths to the taskwait!() that joins it: give it a value where it is declared (`let mut {}: .. = ..;`), or spawn into it on every path",
                        name(l),
                        name(l)
                    ),
                );
            }
            if let Some(hider) = hidden_at(body, wait, l) {
                let saved = saved_at_wait(body, info, w, l);
                if saved && !info.saved_at_hider[w].contains(l) && !reported.contains(l) {
                    reported.insert(l);
                    let message = if body.locals[hider.0].let_path.is_some() {
                        format!(
                            "this `{}` hides an outer `{}` that must be kept across a taskwait!() in this scope (it is read after the scope ends), and the outer one's address is taken in this function (`&`, `&mut`, a raw pointer or a `.._mut()` method): it would be saved where this `let` runs, and a write through that address before the taskwait!() would be lost; rename one of them",
                            name(l),
                            name(l)
                        )
                    } else {
                        format!(
                            "this `{}` (a pattern's binding) hides an outer `{}` that must be kept across a taskwait!() in this scope (it is read after the scope ends), and a taskwait!() saves the locals it can name: rename one of them",
                            name(l),
                            name(l)
                        )
                    };
                    cx.error_at(body.locals[hider.0].ident.span(), message);
                }
            }
            if let Some(span) = decl.cfg {
                if !borrow_reported.contains(l) {
                    borrow_reported.insert(l);
                    cx.error_at(
                        span,
                        format!(
                            "`{}` is declared under `#[cfg(..)]` and is live across a taskwait!(): the code that keeps it across the join would name it where it is compiled out; compute it after the taskwait!(), or use `if cfg!(..)` in its value instead",
                            name(l)
                        ),
                    );
                }
            }
            if let Some((span, node)) = decl.closure {
                if states[node.0] > 1 && !borrow_reported.contains(l) {
                    borrow_reported.insert(l);
                    cx.error_at(
                        span,
                        format!(
                            "`{}` is a closure kept across a taskwait!(), and its definition runs both before and after a join (in a loop, or after a taskwait!() on some paths): each resumed copy of the code would make a closure of another type; define it after the taskwait!(), where it is used, or make it a `fn` item",
                            name(l)
                        ),
                    );
                }
            }
            if let Some(span) = decl.borrowing_closure {
                if !borrow_reported.contains(l) {
                    borrow_reported.insert(l);
                    cx.error_at(
                        span,
                        format!(
                            "`{}` is a closure that borrows what it captures and is live across a taskwait!(): write `move |..|` (what it captures must then be `Copy`), or define it after the taskwait!()",
                            name(l)
                        ),
                    );
                }
            }
            if let Some(span) = body.locals[l.0].borrow {
                if !borrow_reported.contains(l) {
                    borrow_reported.insert(l);
                    cx.error_at(
                        span,
                        format!(
                            "`{}` holds a borrow and is live across a taskwait!(): values kept across a join must be `Copy` and own no borrow; copy what you need before the taskwait!()",
                            name(l)
                        ),
                    );
                }
            }
        }
    }
}
