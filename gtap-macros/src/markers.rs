//! The marker statements `task!(..)` and `taskwait!(..)`, parsed from their tokens.
//!
//! Accepted forms (anything else is a spanned error naming the expected syntax):
//! - `task!(f(a, b))`, `let x = task!(f(..));`, `x = task!(f(..));`, `place = task!(f(..));`
//!   with `place` a field or element of a local (`counts[i]`, `s.x`, `arr[i].0`)
//! - `task!(queue = q, f(..))` in each of the above
//! - `taskwait!()`, `taskwait!(queue = q)`
//!
//! `place op= task!(f(..));` and `let (a, b) = task!(f(..));` reach this module as `let
//! __gtap_deferred_N = task!(f(..));`: the structure pass moves the rest of the statement after
//! the join (`structure/deferred.rs`).

use proc_macro2::Span;
use syn::{
    parse::{ParseStream, Parser},
    spanned::Spanned,
    Expr, Ident, Token,
};

/// Where a spawned task's result goes.
#[derive(Clone)]
pub(crate) enum Target {
    /// `task!(f(..));`: a detached child, or one whose result is discarded.
    Detached,
    /// `let x = task!(f(..));` (`mutable` for `let mut x`; `ty` for `let x: T = ..`, which
    /// the child's result must have).
    Let {
        ident: Ident,
        mutable: bool,
        ty: Option<Box<syn::Type>>,
    },
    /// `x = task!(f(..));`
    Assign { ident: Ident },
    /// `place = task!(f(..));` with `place` a field or element inside local `root`
    /// (`counts[i]`, `s.x`, `arr[i].0`): the child writes the element of `root`'s task-data
    /// field; see [`crate::lower`].
    Place { root: Ident, place: Box<Expr> },
}

/// A parsed `task!`.
#[derive(Clone)]
pub(crate) struct Spawn {
    /// The `queue = q` hint.
    pub(crate) queue: Option<Expr>,
    /// The callee: a path to a `#[gtap::function]` marker value.
    pub(crate) func: syn::ExprPath,
    /// The arguments, in order.
    pub(crate) args: Vec<Expr>,
    /// Where the result goes.
    pub(crate) target: Target,
    /// The whole marker, for messages.
    pub(crate) span: Span,
}

/// A parsed `taskwait!`.
#[derive(Clone)]
pub(crate) struct Wait {
    /// The `queue = q` hint: the queue the task is resumed on.
    pub(crate) queue: Option<Expr>,
}

/// A marker statement, numbered in source order by the structure pass.
#[derive(Clone)]
pub(crate) enum Marker {
    /// `task!(..)`
    Spawn(Spawn),
    /// `taskwait!(..)`
    Wait(Wait),
}

/// Parses an optional `queue = <expr>` option; `what` names the marker for messages.
fn parse_queue(input: ParseStream<'_>, what: &str) -> syn::Result<Option<Expr>> {
    if input.peek(Ident) && input.peek2(Token![=]) && !input.peek2(Token![==]) {
        let key: Ident = input.parse()?;
        if key != "queue" {
            return Err(syn::Error::new(
                key.span(),
                format!("unknown option `{key}` in {what}: expected `queue = <expr>`"),
            ));
        }
        input.parse::<Token![=]>()?;
        return Ok(Some(input.parse()?));
    }
    Ok(None)
}

/// Parses the tokens of `task!(..)`.
pub(crate) fn parse_spawn(mac: &syn::Macro, target: Target) -> syn::Result<Spawn> {
    let span = mac.span();
    let parser = |input: ParseStream<'_>| {
        let queue = parse_queue(input, "task!(..)")?;
        if queue.is_some() {
            if input.is_empty() {
                return Err(input.error("expected `, f(args)` after the queue hint in task!(..)"));
            }
            input.parse::<Token![,]>()?;
        }
        if input.is_empty() {
            return Err(
                input.error("task!(..) expects a call of a task function: `task!(f(args))`")
            );
        }
        let call: Expr = input.parse()?;
        if !input.is_empty() {
            input.parse::<Option<Token![,]>>()?;
            if !input.is_empty() {
                return Err(input.error("unexpected tokens after the call in task!(..)"));
            }
        }
        let (func, args) = match call {
            Expr::Call(c) => match *c.func {
                Expr::Path(p) if p.qself.is_none() => (p, c.args.into_iter().collect()),
                other => {
                    return Err(syn::Error::new_spanned(
                        other,
                        "task!(..) expects a call of a task function by name: `task!(f(args))`",
                    ))
                }
            },
            other => {
                return Err(syn::Error::new_spanned(
                    other,
                    "task!(..) expects a call of a task function: `task!(f(args))`",
                ))
            }
        };
        Ok(Spawn {
            queue,
            func,
            args,
            target: target.clone(),
            span,
        })
    };
    parser.parse2(mac.tokens.clone())
}

/// Parses the tokens of `taskwait!(..)`.
pub(crate) fn parse_wait(mac: &syn::Macro) -> syn::Result<Wait> {
    let parser = |input: ParseStream<'_>| {
        let queue = parse_queue(input, "taskwait!(..)")?;
        input.parse::<Option<Token![,]>>()?;
        if !input.is_empty() {
            return Err(input.error("expected `taskwait!()` or `taskwait!(queue = <expr>)`"));
        }
        Ok(Wait { queue })
    };
    parser.parse2(mac.tokens.clone())
}

/// The local at the root of a place expression made of fields and indexes (`x`, `x.f`,
/// `x[i]`, `x[i].f.0`, parenthesized), or `None` for any other expression.
pub(crate) fn place_root(e: &Expr) -> Option<&Ident> {
    match e {
        Expr::Path(p) if p.qself.is_none() => p.path.get_ident(),
        Expr::Field(f) => place_root(&f.base),
        Expr::Index(i) => place_root(&i.expr),
        Expr::Paren(p) => place_root(&p.expr),
        _ => None,
    }
}
