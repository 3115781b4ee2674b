//! A second assignment of a local that is not `mut`, where rustc cannot see it.
//!
//! Rust rejects `let a = 1; a = f();` (E0384, "cannot assign twice to immutable variable"). In
//! the generated code a task's result is not an assignment: `a = task!(f(..))` passes the
//! address of `a`'s task-data field to the child, and the local is restored from that field
//! after the join. And a resume state declares a local that is not live there without a value
//! (`let a;`), so `let a = 1; taskwait!(); a = 2;` is a first assignment in that state's code.
//! Either way rustc never sees the second assignment, so this module reports it.
//!
//! The analysis is forward, over the graph of [`crate::cfg`], to a fixed point:
//!
//! - `may`: the locals that may have a value. A binding with a value (`let a = ..`, a
//!   pattern, the parameters at the entry) and every assignment (`a = e`, a whole
//!   `a = task!(..)`, `let a = task!(..)`) adds its locals; `let a;` removes them (a `let` in
//!   a loop body binds a fresh local each iteration), and so does the end of their scope.
//! - `crossed`: of those, the ones that may have been assigned by a task, or before a
//!   `taskwait!()` on the way here (a wait adds all of `may`); a binding with a value resets
//!   them.
//!
//! Rejected: a whole `a = task!(..)` into a local that is not `mut` and may have a value
//! (`let a; a = task!(..)` on every path once stays accepted, as Rust accepts it, also on two
//! branches); and `a = e` into one that is not `mut` and is in `crossed`. A plain second
//! assignment with no task or wait between is in the code of one state, where rustc sees both
//! (left to it: a statement under `#[cfg]` may be compiled out, which only rustc knows).
//!
//! # Convergence
//!
//! Both sets only grow along the iteration (union at joins), over finite bitsets.

use crate::{
    cfg::{Body, LocalId, NodeKind},
    diag::Ctxt,
    liveness::BitSet,
    markers::{Marker, Target},
};
use proc_macro2::Span;

#[derive(Clone, Default, PartialEq, Eq)]
struct Assigned {
    may: BitSet,
    crossed: BitSet,
}

impl Assigned {
    fn union_with(&mut self, o: &Assigned) -> bool {
        let before = self.clone();
        for l in o.may.iter() {
            self.may.insert(l);
        }
        for l in o.crossed.iter() {
            self.crossed.insert(l);
        }
        *self != before
    }
}

/// Reports every second assignment of a local that is not `mut` that rustc would not see.
pub(crate) fn check(cx: &mut Ctxt, body: &Body, markers: &[Marker]) {
    let n = body.nodes.len();
    let mut input: Vec<Option<Assigned>> = vec![None; n];
    if n > 0 {
        input[0] = Some(Assigned::default());
    }
    let mut changed = true;
    while changed {
        changed = false;
        for k in 0..n {
            let Some(a) = &input[k] else { continue };
            let out = transfer(body, k, a.clone());
            for s in &body.nodes[k].succs {
                match &mut input[s.0] {
                    None => {
                        input[s.0] = Some(out.clone());
                        changed = true;
                    }
                    Some(old) => changed |= old.union_with(&out),
                }
            }
        }
    }
    let mut reported = BitSet::default();
    for (k, node) in body.nodes.iter().enumerate() {
        let Some(a) = &input[k] else { continue };
        if let NodeKind::Spawn {
            marker,
            target: Some(t),
            place: false,
        } = node.kind
        {
            let decl = &body.locals[t.0];
            // A name of a parameter pattern has its own error (`cfg.rs`).
            let own = decl.declared_by_spawn || decl.in_param_pattern;
            if !decl.mutable && !own && a.may.contains(t) {
                if let Some(Marker::Spawn(s)) = markers.get(marker) {
                    let at = match &s.target {
                        Target::Assign { ident } => ident.span(),
                        _ => s.span,
                    };
                    report(cx, body, &mut reported, t, at, "task!(..)'s result");
                }
            }
        }
        if node.assigns {
            for (l, at) in &node.defs {
                if !body.locals[l.0].mutable && a.crossed.contains(*l) {
                    report(cx, body, &mut reported, *l, *at, "this value");
                }
            }
        }
    }
}

fn transfer(body: &Body, k: usize, mut a: Assigned) -> Assigned {
    let node = &body.nodes[k];
    for (l, _) in &node.defs {
        if node.assigns {
            a.may.insert(*l);
        } else if body.locals[l.0].no_value {
            a.may.remove(*l);
            a.crossed.remove(*l);
        } else {
            a.may.insert(*l);
            a.crossed.remove(*l);
        }
    }
    match node.kind {
        NodeKind::Spawn {
            target: Some(t), ..
        } => {
            a.may.insert(t);
            a.crossed.insert(t);
        }
        NodeKind::Wait { .. } => {
            for l in a.may.clone().iter() {
                a.crossed.insert(l);
            }
        }
        _ => {}
    }
    for l in &node.scope_end {
        a.may.remove(*l);
        a.crossed.remove(*l);
    }
    a
}

fn report(cx: &mut Ctxt, body: &Body, reported: &mut BitSet, l: LocalId, at: Span, what: &str) {
    if reported.contains(l) {
        return;
    }
    reported.insert(l);
    let decl = &body.locals[l.0];
    let name = &decl.ident;
    let rewrite = if decl.param.is_some() || decl.in_param_pattern {
        format!("write `mut {name}` in the parameter list")
    } else {
        format!("declare it `let mut {name}`")
    };
    cx.error_at(
        at,
        format!(
            "cannot assign twice to `{name}`, which is not `mut`: it may already have a value here, and {what} would assign it again (Rust rejects this, E0384); {rewrite}"
        ),
    );
}
