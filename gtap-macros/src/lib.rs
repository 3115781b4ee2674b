//! `#[gtap::function]`: turns a function with `task!`/`taskwait!` into a resumable task state
//! machine (a marker type implementing `gtap::TaskFn`, a task-data struct and a step function).
//!
//! The pipeline, one module per stage (see `docs/frontend.md`):
//! [`parse`] the item and its arguments → [`structure`] (normalize the body, replace the markers
//! by numbered placeholders) → [`check`] (markers left in places we cannot lower) → [`cfg`]
//! (scope resolution and the control-flow graph) → [`liveness`] (pending task results, locals
//! live across each `taskwait!()`) → [`lower`] (the state machine) → [`codegen`] (the items).
//! Every problem is a spanned `syn::Error` collected in [`diag::Ctxt`]; the macro never panics.

mod cfg;
mod check;
mod codegen;
mod diag;
mod expand;
mod liveness;
mod lower;
mod markers;
mod parse;
mod structure;
mod tokens;

#[cfg(test)]
mod tests;

use proc_macro::TokenStream;

/// Turns a function with `task!`/`taskwait!` into a resumable task state machine.
///
/// ```ignore
/// #[gtap::function]
/// fn fib(n: u32) -> u64 {
///     if n < 2 {
///         return n as u64;
///     }
///     let a = task!(fib(n - 1));
///     let b = task!(fib(n - 2));
///     taskwait!();
///     a + b
/// }
/// ```
///
/// Optional argument: `#[gtap::function(max_frame_bytes = N)]` raises the limit on the
/// task-data struct (default `gtap::__private::DEFAULT_MAX_FRAME_BYTES`).
#[proc_macro_attribute]
pub fn function(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(args.into(), item.into()).into()
}
