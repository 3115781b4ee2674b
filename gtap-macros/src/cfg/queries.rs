//! Questions the later stages ask of a built [`Body`]: which statements a pruned body keeps,
//! which locals only tasks write, whether one node reaches another.

use proc_macro2::Ident;
use syn::{Block, Stmt};

use super::{block_at, Body, LocalId, NodeId};

impl Body {
    /// Drops from `block` (the body this graph was built from) the statements control cannot
    /// reach, but not items (visible in the whole block). Code after the wait in a resume state
    /// names only the locals the analyses saw used, so unreachable code must not be emitted.
    pub(crate) fn prune(&self, block: &mut Block) {
        for path in &self.dead {
            let Some((&(first, _), outer)) = path.split_last() else {
                continue;
            };
            if let Some(b) = block_at(block, outer) {
                let mut k = 0;
                b.stmts.retain(|s| {
                    k += 1;
                    k <= first || matches!(s, Stmt::Item(_))
                });
            }
        }
    }

    /// Whether every local named `name` declared without a value (`let v;`, there is at least
    /// one) is written only by whole task results, never by `v = e`: its `let` is dropped
    /// from the code (the children write its field, and the local is restored from it). When
    /// it is not `mut` either, nothing changes it after its join, so its field always holds
    /// its value once it has one and no wait needs to save it (`v += 1` is not a def here).
    pub(crate) fn only_task_writes(&self, name: &Ident) -> bool {
        let mut same = self
            .locals
            .iter()
            .enumerate()
            .filter(|(_, d)| d.ident == *name && d.no_value)
            .peekable();
        same.peek().is_some()
            && same.all(|(i, d)| {
                let defs = self
                    .nodes
                    .iter()
                    .flat_map(|n| &n.defs)
                    .filter(|(l, _)| l.0 == i)
                    .count();
                // The declaration itself is the one def.
                d.whole_spawn && !d.place_spawn && defs == 1
            })
    }

    /// Whether local `l`, declared without a value and not `mut` (`let v;`), receives whole
    /// task results on some paths and plain values, `v = e;` (not a destructuring
    /// assignment), on others, and is the only local of its name declared without a value.
    /// Like one that
    /// [`Body::only_task_writes`] covers, its field holds its value whenever it has one, so no
    /// wait saves it (on the paths where the task is pending it has no value for rustc): each
    /// `v = e` stores the value into the field as well (`crate::lower`'s `StoreAssigned`).
    pub(crate) fn stored_writes(&self, l: LocalId) -> bool {
        let d = &self.locals[l.0];
        let plain_defs = self
            .nodes
            .iter()
            .filter(|n| n.assigns)
            .flat_map(|n| &n.defs)
            .filter(|(x, _)| *x == l)
            .count();
        // `crate::lower` finds its assignments by name, in the scope of its `let v;`.
        let unique = self
            .locals
            .iter()
            .filter(|o| o.ident == d.ident && o.no_value)
            .count()
            == 1;
        d.no_value
            && !d.mutable
            && d.param.is_none()
            && d.whole_spawn
            && !d.place_spawn
            && !d.destructured
            && plain_defs > 0
            && unique
    }

    /// Whether only whole task results write local `l` (no `l = e`), which `let l =
    /// task!(..)` or `let l;` declares (not a parameter): until its first join it has no
    /// local in the generated code, only its field.
    pub(crate) fn task_written(&self, l: LocalId) -> bool {
        let d = &self.locals[l.0];
        let defs = self
            .nodes
            .iter()
            .flat_map(|n| &n.defs)
            .filter(|(x, _)| *x == l)
            .count();
        // `let l;` is one def; `let l = task!(..)` declares it at the spawn, no def.
        let declared = (d.no_value && defs == 1) || (d.declared_by_spawn && defs == 0);
        d.param.is_none() && d.whole_spawn && !d.place_spawn && declared
    }

    /// Whether a path of at least one edge leads from `from` to `to` without entering a node
    /// of `avoid`.
    pub(crate) fn reaches(&self, from: NodeId, to: NodeId, avoid: &[NodeId]) -> bool {
        let mut seen = vec![false; self.nodes.len()];
        let mut stack = vec![from];
        while let Some(n) = stack.pop() {
            for &s in &self.nodes[n.0].succs {
                if s == to {
                    return true;
                }
                if !seen[s.0] && !avoid.contains(&s) {
                    seen[s.0] = true;
                    stack.push(s);
                }
            }
        }
        false
    }
}
