//! `#[gtap::function]`: turns a function with `task!`/`taskwait!` into a resumable task state
//! machine (a marker type implementing `gtap::TaskFn`, a task-data struct and a step function).
//!
//! The pipeline, one module per stage (see `docs/frontend.md`):
//! [`parse`] the item and its arguments → [`uniform`] (a block-level function's barriers are
//! reached by every thread; no block API in thread-level functions) → [`structure`] (normalize
//! the body, replace the markers by numbered placeholders) → [`check`] (markers left in places
//! we cannot lower) → [`cfg`] (scope resolution and the control-flow graph) → [`liveness`]
//! (pending task results, locals live across each `taskwait!()`) → [`lower`] (the state
//! machine) → [`codegen`] (the items).
//! Every problem is a spanned `syn::Error` collected in [`diag::Ctxt`]; the macro never panics.

mod assigned;
mod breaks;
mod cfg;
mod check;
mod codegen;
mod diag;
mod expand;
mod generic;
mod impls;
mod letelse;
mod liveness;
mod lower;
mod markers;
mod parse;
mod seq;
mod structure;
mod tails;
mod tokens;
mod uniform;

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
/// Optional arguments, comma-separated, in any order:
///
/// - `max_frame_bytes = N` raises the limit on the task-data struct (default
///   `gtap::__private::DEFAULT_MAX_FRAME_BYTES`);
/// - `block` makes a block-level task (`TaskFn::BLOCK = true`): the body runs on every thread
///   of a GPU thread block at once, with per-thread locals, and may use `gtap::block`
///   (`thread_index`, `size`, `is_leader`, `sync` and the collectives). Every thread that runs
///   a `task!` spawns its own child; the task's result is thread 0's. A `taskwait!()` and the
///   collectives are block barriers: they may not sit under a condition that depends on
///   `gtap::block::thread_index()`, nor after a `return`/`break`/`continue` under one (a
///   compile error; see `docs/frontend.md`, "Block-level functions"). Without `block`, calling
///   a `gtap::block` function is an error.
///
/// ```ignore
/// #[gtap::function(block)]
/// fn block_sum(n: u32, buf: gtap::Slice<f64>) -> f64 {
///     let mut filled = 0;
///     if gtap::block::thread_index() == 0 {
///         filled = task!(fill(n, buf)); // one child, spawned by thread 0
///     }
///     taskwait!(); // every thread joins
///     let filled = gtap::block::broadcast(filled);
///     let mut part = 0.0;
///     let mut i = gtap::block::thread_index();
///     while i < filled {
///         part += buf.get(i as usize);
///         i += gtap::block::size();
///     }
///     gtap::block::sum_f64(part)
/// }
/// ```
#[proc_macro_attribute]
pub fn function(args: TokenStream, item: TokenStream) -> TokenStream {
    expand::expand(args.into(), item.into()).into()
}

/// Task functions as associated functions of a type: on an inherent `impl`, every function
/// marked `#[gtap::function]` becomes a task function named `Type::f` (and `Self::f` inside
/// the `impl`), spawned with `task!(Type::f(..))` and listed as `gtap::program!(P = [Type::f])`.
///
/// ```ignore
/// struct Tree;
///
/// #[gtap::tasks]
/// impl Tree {
///     #[gtap::function]
///     pub fn sum(lo: u64, hi: u64) -> u64 {
///         if hi - lo <= 1 {
///             return lo;
///         }
///         let mid = lo + (hi - lo) / 2;
///         let a = task!(Self::sum(lo, mid));
///         let b = task!(Self::sum(mid, hi));
///         taskwait!();
///         a + b
///     }
/// }
///
/// gtap::program!(pub Sums = [Tree::sum]);
/// ```
///
/// Each such function moves out of the `impl` as a module-level task function (a marker
/// struct cannot be an associated item); the `impl` keeps an associated constant `f` holding
/// its marker. Its `TaskFn::NAME`, and the name in its errors, is `Type::f`. Methods (a
/// `self` receiver), generic task functions and generic or trait `impl`s are refused with an
/// error that says what to write instead. The other items of the `impl` stay as they are.
#[proc_macro_attribute]
pub fn tasks(args: TokenStream, item: TokenStream) -> TokenStream {
    impls::expand(args.into(), item.into()).into()
}
