//! Outer locals hidden at a wait by a nested block's `let` of the same name.
//!
//! `let x = ..; { let x = x * 10; let a = task!(g(x)); taskwait!(); .. } x`: the wait must keep
//! the outer `x` (read after the block), but there it can name only the inner one. Nothing in
//! the inner `x`'s scope can name the outer one, so its value where that `let` runs is its value
//! until the scope ends: the outer `x` is saved into its own field (fields are per local, never
//! shared by two of one name) right before the `let` that hides it, in the code of every state
//! that emits that statement, and the wait does not save it
//! ([`LivenessInfo::saved_at_hider`]). Its resume state restores it at its own level, before
//! the inner one, like any live local.
//!
//! Invariants: every hider of [`LivenessInfo::hider_saves`] has a `let_path`
//! ([`crate::cfg::LocalDecl::let_path`]) to a statement of the pruned body; that statement is a
//! `let`, which [`tag`] marks with `#[__gtap_hides(N)]` (`N` the hider's number) and
//! [`take_tag`] strips before it is emitted, or a spawn placeholder whose target is the hider
//! (`let x = task!(..)`), which the lowering finds by its target.

use crate::{
    cfg::{block_at, Body, LocalId},
    liveness::LivenessInfo,
};
use syn::{parse_quote, Attribute, Block, Stmt};

/// The tag's name; not a real attribute, it never reaches the output.
const TAG: &str = "__gtap_hides";

/// Marks each hider's `let` statement in `block` (the pruned body whose paths the analyses
/// recorded) with the tag.
pub(super) fn tag(block: &mut Block, body: &Body, info: &LivenessInfo) {
    for (hider, _) in &info.hider_saves {
        let Some(path) = &body.locals[hider.0].let_path else {
            continue;
        };
        let Some((&(i, _), outer)) = path.split_last() else {
            continue;
        };
        let Some(Stmt::Local(local)) = block_at(block, outer).and_then(|b| b.stmts.get_mut(i))
        else {
            continue;
        };
        if !local.attrs.iter().any(is_tag) {
            let n = proc_macro2::Literal::usize_unsuffixed(hider.0);
            local.attrs.push(parse_quote!(#[__gtap_hides(#n)]));
        }
    }
}

/// For a statement `tag` marked: the statement without the tag, and the hider it declares.
pub(super) fn take_tag(s: &Stmt) -> Option<(Stmt, LocalId)> {
    let Stmt::Local(local) = s else { return None };
    let attr = local.attrs.iter().find(|a| is_tag(a))?;
    let n: syn::LitInt = attr.parse_args().ok()?;
    let mut s = s.clone();
    if let Stmt::Local(local) = &mut s {
        local.attrs.retain(|a| !is_tag(a));
    }
    Some((s, LocalId(n.base10_parse().ok()?)))
}

/// The locals to save right before the statement that declares `hider`.
pub(super) fn hidden_by(info: &LivenessInfo, hider: LocalId) -> impl Iterator<Item = LocalId> + '_ {
    info.hider_saves
        .iter()
        .filter(move |(h, _)| *h == hider)
        .map(|(_, l)| *l)
}

fn is_tag(a: &Attribute) -> bool {
    a.path().is_ident(TAG)
}
