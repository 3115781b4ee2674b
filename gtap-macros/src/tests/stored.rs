//! Stage tests: a local declared without a value that receives a task's result on
//! some paths and a plain value on others before one join (`crate::cfg::Body::stored_writes`)
//! is not saved at the wait, and each plain assignment also stores into its field; what stays
//! an error (`mut`, an `if` without `else`).

use super::{analyzed, assert_errors_contain};
use crate::cfg;
use proc_macro2::TokenStream;
use quote::quote;

/// Per wait, the names of the live locals that no wait saves (their field holds their value).
fn unsaved(item: TokenStream) -> Vec<Vec<String>> {
    let (body, info) = analyzed(item);
    let name = |l: cfg::LocalId| body.locals[l.0].ident.to_string();
    info.unsaved_results
        .iter()
        .map(|u| u.iter().map(name).collect())
        .collect()
}

/// The stores of plain values into the field of `name` in an expansion.
fn stores(item: TokenStream, name: &str) -> usize {
    let out = crate::expand::expand(TokenStream::new(), item).to_string();
    let store = format!("save (& raw mut (* __gtap_frame) . {name} , {name})");
    out.matches(&store).count()
}

#[test]
fn task_or_value_before_one_join() {
    let branches = quote! {
        fn f(n: u64) -> u64 {
            let r;
            if n > 2 { r = task!(g(n)); } else { r = n + 1; }
            let w = n * 2;
            taskwait!();
            r + w
        }
    };
    assert_eq!(unsaved(branches.clone()), [["r"]]);
    assert_eq!(stores(branches, "r"), 1);
    let let_if = quote! {
        fn f(n: u64, o: Option<u64>) -> u64 {
            let v = match o { Some(k) => task!(g(k)), None => n };
            taskwait!();
            let v = v + 1;
            v
        }
    };
    assert_eq!(unsaved(let_if.clone()), [["v"]]);
    assert_eq!(stores(let_if, "v"), 1);
    // A `let v = ..` in an arm is another local: its assignment stores nothing.
    let shadowed = quote! {
        fn f(n: u64, o: Option<u64>) -> u64 {
            let v;
            match o {
                Some(k) => v = task!(g(k)),
                None => { v = 3; let mut c = { let mut v = n; v = v + 1; v }; c += 1; let _ = c; }
            }
            taskwait!();
            v
        }
    };
    assert_eq!(stores(shadowed, "v"), 1);
}

#[test]
fn task_or_value_stays_an_error_where_mut_or_unit() {
    assert_errors_contain([
        (
            quote! {
                fn f(n: u64) -> u64 {
                    let mut a = if n > 2 { task!(g(n)) } else { n };
                    taskwait!();
                    a
                }
            },
            "`a` takes a task's result on some branches and this plain value on another",
        ),
        (
            quote! {
                fn f(n: u64) -> u64 {
                    let a = if n > 2 { task!(g(n)) };
                    taskwait!();
                    a
                }
            },
            "`a` takes a task's result on some branches and this plain value on another",
        ),
        (
            quote! {
                fn f(n: u64) -> u64 {
                    let mut v: u64;
                    if n > 2 { v = task!(g(n)); } else { v = 5; }
                    taskwait!();
                    v + n
                }
            },
            "`v` is declared without a value and receives this task's result on only some paths",
        ),
    ]);
}
