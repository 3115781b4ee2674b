//! `#[gtap::function]` (stub; being written).
use proc_macro::TokenStream;

/// Turns a function with `task!`/`taskwait!` into a resumable task state machine.
#[proc_macro_attribute]
pub fn function(_args: TokenStream, item: TokenStream) -> TokenStream {
    item
}
