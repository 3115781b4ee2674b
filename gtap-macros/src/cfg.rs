//! Scope resolution and the control-flow graph of a structured body.
//!
//! Every binding (parameter, `let`, match arm, `if let`/`while let`, `for` pattern, spawn
//! target) gets a fresh [`LocalId`]; a name resolves to the innermost binding in scope, which
//! handles shadowing without renaming. Statements become [`Node`]s of a graph whose edges mirror
//! Rust's control flow: `if`/`match` branch and join, `loop`/`while`/`for` get a header and an
//! exit, labelled and unlabelled `break`/`continue` jump to them (through a node ending the
//! scopes they leave, as the end of a block does), `return` (also inside an expression, and
//! `?`) goes to an exit node. Statements after one that never completes get no nodes. Expressions without markers are leaves: every name
//! in them is a use (a conservative, field-insensitive reading: `x.f = 1` and `*x = 1` use `x`,
//! and names in foreign macros such as `assert!` are uses), and only `x = e` defines `x`.
//!
//! For each `taskwait!()` the builder also records the *path* to it (statement index and the
//! child taken at each enclosing block) and the locals declared so far at each level: the
//! lowering rebuilds the resume code from exactly these.
//!
//! Refs: rustc `rustc_mir_build` (lowering of `for`/`while`), `rustc_mir_dataflow` (def/use).

mod address;
mod build;
mod constructs;
mod diverge;
mod immutable;
mod jumps;
mod patterns;
mod queries;

use proc_macro2::{Ident, Span};
use syn::{Block, Expr, Stmt};

pub(crate) use build::build;
use build::Builder;
use jumps::FindJumps;
pub(crate) use patterns::bindings;
use patterns::borrow_of;

/// A binding of the function, numbered in source order.
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Debug, Hash)]
pub(crate) struct LocalId(pub(crate) usize);

/// A node of the graph.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) struct NodeId(pub(crate) usize);

/// What the lowering and the diagnostics need to know about a binding.
pub(crate) struct LocalDecl {
    /// Its name, with the span of the binding site.
    pub(crate) ident: Ident,
    /// `mut` binding.
    pub(crate) mutable: bool,
    /// Parameter index, for parameters (and for the names of a parameter pattern that are
    /// not `mut`: read from `args` like a parameter, never saved).
    pub(crate) param: Option<usize>,
    /// A name bound by a parameter pattern (`(lo, hi): (u64, u64)`).
    pub(crate) in_param_pattern: bool,
    /// Where it takes a borrow (`ref x`, `let x = &..`), if it does.
    pub(crate) borrow: Option<Span>,
    /// The `task!` that writes it, for messages.
    pub(crate) spawn_span: Option<Span>,
    /// It receives task results into its fields or elements (`x[i] = task!(..)`): saved at a
    /// join like any live local, the children write into its saved copy.
    pub(crate) place_spawn: bool,
    /// It receives task results whole (`let x = task!(..)`, `x = task!(..)`).
    pub(crate) whole_spawn: bool,
    /// Declared without a value (`let x: T;`).
    pub(crate) no_value: bool,
    /// Assigned by a destructuring assignment somewhere (`(x, y) = ..`).
    pub(crate) destructured: bool,
    /// Declared by its spawn, `let x = task!(..)`: dead before it (the spawn kills it).
    pub(crate) declared_by_spawn: bool,
    /// Bound to a closure (`let f = |..| ..`): where, and the node that binds it. Every
    /// closure expression has its own type, so one kept across a wait must be defined in the
    /// code of one state only.
    pub(crate) closure: Option<(Span, NodeId)>,
    /// Bound to a closure that borrows its captures (`let f = |..| ..` naming a local, no
    /// `move`): where.
    pub(crate) borrowing_closure: Option<Span>,
    /// Declared by a statement under `#[cfg]`/`#[cfg_attr]`: where. Such a local may not be
    /// live across a wait (the save and restore would name it where it is compiled out).
    pub(crate) cfg: Option<Span>,
    /// Declared by a `let` statement or by its spawn (`let x = task!(..)`): the path to that
    /// statement, as in [`WaitPoint::path`] (its last entry is the statement's index). `None`
    /// for parameters and the bindings of arm, `if let`, `while let` and `for` patterns. The
    /// lowering saves an outer local that this one hides right before it
    /// (`crate::lower::hidden`).
    pub(crate) let_path: Option<Vec<(usize, PathStep)>>,
}

/// What a node does besides its uses and defs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum NodeKind {
    /// Evaluates expressions.
    Eval,
    /// `task!` marker `marker`; its result (if captured) goes to `target`, or into a field
    /// or element of `target` when `place`.
    Spawn {
        marker: usize,
        target: Option<LocalId>,
        place: bool,
    },
    /// `taskwait!` marker `marker`.
    Wait { marker: usize },
    /// Leaves the function.
    Return,
}

/// A node: uses happen before defs.
pub(crate) struct Node {
    /// What it does.
    pub(crate) kind: NodeKind,
    /// Locals read, with the span of the reading name.
    pub(crate) uses: Vec<(LocalId, Span)>,
    /// Locals overwritten entirely.
    pub(crate) defs: Vec<(LocalId, Span)>,
    /// Its defs are assignments (`x = e`, `(a, b) = e`), not bindings (`let`, a pattern, the
    /// parameters at the entry).
    pub(crate) assigns: bool,
    /// Locals whose scope ends here.
    pub(crate) scope_end: Vec<LocalId>,
    /// Successors.
    pub(crate) succs: Vec<NodeId>,
}

/// How the path to a wait goes from a statement to the block inside it.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum PathStep {
    /// The statement is the wait itself.
    Wait,
    /// A block statement (`{}`, `unsafe {}`, labelled block): its block.
    Block,
    /// An `if`: the then-branch.
    Then,
    /// An `if`: the else-branch (a block).
    Else,
    /// A `match`: the body block of arm `n`.
    Arm(usize),
    /// A `loop`/`while`/`for`: the body.
    LoopBody,
}

/// A `taskwait!()` and where it sits.
pub(crate) struct WaitPoint {
    /// Its marker number.
    pub(crate) marker: usize,
    /// Its node.
    pub(crate) node: NodeId,
    /// `(statement index, step)` per enclosing block, outermost (the body) first; the last
    /// entry is the wait statement, with [`PathStep::Wait`].
    pub(crate) path: Vec<(usize, PathStep)>,
    /// Locals declared before the wait, per level: `[0]` the parameters, `[i]` the block at
    /// `path[i - 1]`, in declaration order.
    pub(crate) visible: Vec<Vec<LocalId>>,
    /// Per entry of `path`: the node where control goes on once that statement completes
    /// (`None` when it never completes), known once the statement is built.
    pub(crate) after: Vec<Option<NodeId>>,
    /// Per entry of `path`: for a [`PathStep::LoopBody`], the loop's header (where `continue`
    /// and the end of the body go); `None` for the other steps.
    pub(crate) headers: Vec<Option<NodeId>>,
}

/// The graph of one function.
pub(crate) struct Body {
    /// All bindings.
    pub(crate) locals: Vec<LocalDecl>,
    /// All nodes; `NodeId(0)` is the entry.
    pub(crate) nodes: Vec<Node>,
    /// The waits, in source order; the resume state of `waits[i]` is `i + 1`.
    pub(crate) waits: Vec<WaitPoint>,
    /// The local a spawn marker writes, by marker number.
    pub(crate) spawn_target: Vec<Option<LocalId>>,
    /// Statements control cannot reach, after one that never completes (a `return`, `break`
    /// or `continue`, an `if`/`match` all of whose branches leave): the path to the first of
    /// them in its block, as in [`WaitPoint::path`]. They have no nodes, and the lowering
    /// drops them (see [`Body::prune`]).
    pub(crate) dead: Vec<Vec<(usize, PathStep)>>,
    /// The names whose address the body may take and keep (`address.rs`): an outer local of
    /// such a name is not saved at the `let` that hides it.
    pub(crate) address_taken: std::collections::BTreeSet<String>,
}

/// The block that `path` (statement index and step per level, as in [`WaitPoint::path`])
/// leads to from `block`.
pub(crate) fn block_at<'b>(
    block: &'b mut Block,
    path: &[(usize, PathStep)],
) -> Option<&'b mut Block> {
    let Some((&(idx, step), inner)) = path.split_first() else {
        return Some(block);
    };
    let Some(Stmt::Expr(e, _)) = block.stmts.get_mut(idx) else {
        return None;
    };
    let child = match (step, e) {
        (PathStep::Block, Expr::Block(b)) => &mut b.block,
        (PathStep::Block, Expr::Unsafe(u)) => &mut u.block,
        (PathStep::Then, Expr::If(i)) => &mut i.then_branch,
        (PathStep::Else, Expr::If(i)) => match i.else_branch.as_mut().map(|(_, e)| &mut **e) {
            Some(Expr::Block(b)) => &mut b.block,
            _ => return None,
        },
        (PathStep::Arm(k), Expr::Match(m)) => match m.arms.get_mut(k).map(|a| &mut *a.body) {
            Some(Expr::Block(b)) => &mut b.block,
            _ => return None,
        },
        (PathStep::LoopBody, Expr::Loop(l)) => &mut l.body,
        (PathStep::LoopBody, Expr::While(w)) => &mut w.body,
        (PathStep::LoopBody, Expr::ForLoop(f)) => &mut f.body,
        _ => return None,
    };
    block_at(child, inner)
}
