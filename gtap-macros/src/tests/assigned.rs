//! Stage tests of the errors for a second assignment of a local that is not `mut` that
//! rustc would not see (`crate::assigned`), a deferred update of one (`cfg/immutable.rs`), and a
//! raw pointer to the root of `x = task!(..)` / `x[i] = task!(..)`; and what stays accepted.

use super::{assert_errors_contain, errors};
use quote::quote;

#[test]
fn second_assignments_and_raw_pointers_are_errors() {
    let cases = [
        (
            quote! {
                fn f(n: u64) -> u64 {
                    let a = 1;
                    a = task!(g(n));
                    taskwait!();
                    a
                }
            },
            "cannot assign twice to `a`, which is not `mut`: it may already have a value here, and task!(..)'s result would assign it again (Rust rejects this, E0384); declare it `let mut a`",
        ),
        (
            quote! {
                fn f(n: u64, c: bool) -> u64 {
                    let a;
                    if c { a = task!(g(n)); taskwait!(); }
                    a = task!(g(n + 1));
                    taskwait!();
                    a
                }
            },
            "cannot assign twice to `a`",
        ),
        (
            quote! {
                fn f(n: u64) -> u64 {
                    n = task!(g(n));
                    taskwait!();
                    n
                }
            },
            "write `mut n` in the parameter list",
        ),
        (
            quote! {
                fn f(n: u64) -> u64 {
                    let a;
                    a = task!(g(n));
                    taskwait!();
                    a = 5;
                    a
                }
            },
            "cannot assign twice to `a`, which is not `mut`: it may already have a value here, and this value would assign it again",
        ),
        (
            quote! {
                fn f(n: u64) -> u64 {
                    let a = 1;
                    taskwait!();
                    a = n;
                    a
                }
            },
            "cannot assign twice to `a`",
        ),
        (
            quote! {
                fn f(n: u64) -> u64 {
                    let v = [0u64; 2];
                    v[1] *= task!(g(n));
                    taskwait!();
                    v[1]
                }
            },
            "cannot write a task result into `v[1]`: declare it mutable, `let mut v`",
        ),
        (
            quote! {
                fn f(n: u64) -> u64 {
                    let mut x = 0;
                    let p = &raw const x;
                    x = task!(g(n));
                    taskwait!();
                    x + unsafe { *p }
                }
            },
            "`x` has its address taken as a raw pointer here, and `x = task!(..)` writes the result only when",
        ),
        (
            quote! {
                fn f(n: u64) -> u64 {
                    let mut v = [0u64; 2];
                    let p = &mut v as *mut [u64; 2];
                    v[0] = task!(g(n));
                    taskwait!();
                    v[0] + unsafe { (*p)[0] }
                }
            },
            "`v` has its address taken as a raw pointer here, and `v[0] = task!(..)`",
        ),
    ];
    assert_errors_contain(cases);
}

#[test]
fn one_assignment_per_path_and_mut_locals_are_accepted() {
    let cases = [
        quote! {
            fn f(n: u64) -> u64 {
                let a;
                if n > 1 { a = task!(g(n)); } else { a = task!(g(n + 1)); }
                let b;
                b = task!(g(2));
                taskwait!();
                a + b
            }
        },
        quote! {
            fn f(n: u64) -> u64 {
                let mut t = 0;
                for i in 0..n {
                    let r;
                    r = task!(g(i));
                    taskwait!();
                    t += r;
                }
                t
            }
        },
        quote! {
            fn f(mut n: u64) -> u64 {
                let mut a = 1;
                a = task!(g(a));
                taskwait!();
                a = task!(g(a));
                n = task!(g(n));
                taskwait!();
                a = a + n;
                a
            }
        },
        quote! {
            fn f(n: u64) -> u64 {
                let b;
                match n { 0 => return 0, _ => b = task!(g(n)) }
                let a;
                'b: {
                    if n > 1 { a = task!(g(n)); break 'b; }
                    a = task!(g(1));
                }
                let c;
                loop {
                    if n > 2 { c = task!(g(n)); break; }
                }
                taskwait!();
                a + b + c
            }
        },
        quote! {
            fn f(n: u64) -> u64 {
                // `let x = if ..` binds `x` as `let x = task!(..)` does: no pointer before it.
                let x = if n > 1 { task!(g(n)) } else { task!(g(1)) };
                taskwait!();
                let p = &raw const x;
                unsafe { *p }
            }
        },
        quote! {
            fn f(n: u64) -> u64 {
                let c;
                let a = task!(g(n));
                taskwait!();
                c = a + 1;
                c
            }
        },
    ];
    for item in cases {
        let got = errors(item.clone());
        assert!(got.is_empty(), "{item}: {got:?}");
    }
}
