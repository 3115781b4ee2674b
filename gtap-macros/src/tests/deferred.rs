//! Stage tests of results taken by deferred updates (`x += task!(..)`), `let`s that destructure
//! a result, parameter patterns, and their errors.

use super::{assert_errors_contain, pretty, saved_sets, sets};
use quote::quote;

#[test]
fn deferred_update_saves_its_target_and_joins_hidden_results() {
    let got = saved_sets(quote! {
        fn f(n: u64) -> u64 {
            let mut s = 0;
            s += task!(f(n - 1));
            s += task!(f(n - 2));
            taskwait!();
            s
        }
    });
    assert_eq!(
        got,
        sets(&[(&["s"], &["s", "__gtap_deferred_0", "__gtap_deferred_1"])])
    );
}

#[test]
fn destructuring_let_binds_after_the_join() {
    let got = saved_sets(quote! {
        fn f(n: u64) -> u64 {
            let (a, b) = task!(g(n));
            let c = task!(g(n));
            taskwait!();
            let d = task!(h(a));
            taskwait!();
            a + b + d + c.0
        }
    });
    assert_eq!(
        got,
        sets(&[
            (&[], &["__gtap_deferred_0", "c"]),
            (&["c", "a", "b"], &["c", "a", "b", "d"]),
        ])
    );
}

#[test]
fn parameter_pattern_names_stay_in_args_unless_mut() {
    let got = saved_sets(quote! {
        fn f((lo, hi): (u64, u64), (mut a, b): (u64, u64)) -> u64 {
            a += 1;
            let r = task!(g(b));
            taskwait!();
            r + lo + hi + a + b
        }
    });
    // `lo`, `hi`, `b` are read from `args` again; `a` is an ordinary local.
    assert_eq!(got, sets(&[(&["a"], &["lo", "hi", "a", "b", "r"])]));
}

#[test]
fn deferred_form_errors() {
    let cases = [
        (
            quote! {
                fn f(n: u64) -> u64 {
                    let mut total = 0;
                    for i in 0..n { total += task!(g(i)); }
                    taskwait!();
                    total
                }
            },
            "`total += task!(..)` in a loop spawns a child per iteration",
        ),
        (
            quote! {
                fn f(n: u64) -> u64 {
                    let mut total = 0;
                    if n > 1 { total -= task!(g(n)); }
                    taskwait!();
                    total
                }
            },
            "`total -= task!(..)` is applied at the taskwait!() that joins the task, which must be a later statement of the same block",
        ),
        (
            quote! {
                fn f(n: u64) -> u64 {
                    let mut total = 0;
                    total += task!(g(n));
                    println!("{total}");
                    taskwait!();
                    total
                }
            },
            "`total` is named here, between `total += task!(..)` and the taskwait!()",
        ),
        (
            quote! {
                fn f(n: u64) -> u64 {
                    let mut v = [0u64; 4];
                    let mut k = 1;
                    v[k] |= task!(g(n));
                    k = 2;
                    taskwait!();
                    v[k]
                }
            },
            "`k` may be changed here, between `v[k] |= task!(..)`",
        ),
        (
            quote! {
                fn f(n: u64) -> u64 {
                    let mut v = [0u64; 4];
                    v[idx(n)] += task!(g(n));
                    taskwait!();
                    v[0]
                }
            },
            "the place of `v[idx(n)] += task!(..)` is evaluated at the taskwait!()",
        ),
        (
            quote! {
                fn f(n: u64) -> u64 {
                    let mut x = 0;
                    let p = core::ptr::addr_of!(x);
                    x += task!(g(n)) as u64;
                    taskwait!();
                    x + unsafe { *p }
                }
            },
            "`x` has its address taken as a raw pointer here, and `x += task!(..) as u64`",
        ),
        (
            quote! {
                fn f(n: u64) -> u64 {
                    let (a, b) = task!(g(n));
                    let c = b + 1;
                    taskwait!();
                    a + c
                }
            },
            "`b` is named here, between `let (a, b) = task!(..)` and the taskwait!()",
        ),
        (
            quote! {
                fn f(n: u64) -> u64 {
                    let c;
                    {
                        let (a, b) = task!(g(n));
                        c = n;
                    }
                    taskwait!();
                    c
                }
            },
            "`let (a, b) = task!(..)` binds its names at the taskwait!() that joins the task",
        ),
        (
            quote! {
                fn f(n: u64) -> u64 {
                    let Some(a) = task!(g(n)) else { return 0 };
                    taskwait!();
                    a
                }
            },
            "`let .. else` cannot take a task!(..)'s result",
        ),
        (
            quote! {
                fn f(n: u64) -> u64 {
                    let mut v = [0u64; 3];
                    for (j, slot) in v.iter_mut().enumerate() { *slot = task!(g(n)); }
                    taskwait!();
                    v[0]
                }
            },
            "task!(..) cannot write its result through `*slot`, which points into `v`: the child writes its result after this task has suspended at its taskwait!(), when the locals a pointer could point into have been copied into the task data and the stack they were on is gone; index `v` instead, `for j in 0..v.len() { v[j] = task!(f(..)); }`",
        ),
        (
            quote! {
                fn f((a, b): (u64, u64)) -> u64 {
                    a = task!(g(b));
                    taskwait!();
                    a
                }
            },
            "cannot write a task result into `a`, a name of a parameter pattern that is not `mut`",
        ),
        (
            quote! {
                fn f((ref a, b): (u64, u64)) -> u64 { *a + b }
            },
            "a task function's parameter pattern binds by value: write `a`, not `ref a`",
        ),
        (
            quote! {
                fn f(Some(a): Option<u64>) -> u64 { a }
            },
            "this part could fail to match",
        ),
        (
            quote! {
                fn f((a, 1..=3): (u64, u8)) -> u64 { a }
            },
            "this part could fail to match",
        ),
    ];
    assert_errors_contain(cases);
}

#[test]
fn a_join_later_in_the_block_after_a_nested_join_is_the_one_that_applies() {
    // The nested join may join the child first; the update waits for the block's own join,
    // which every way to the update passes.
    let got = saved_sets(quote! {
        fn f(n: u64, c: bool) -> u64 {
            let mut s = n;
            s += task!(g(n));
            if c { taskwait!(); }
            taskwait!();
            s
        }
    });
    assert_eq!(
        got,
        sets(&[
            (&["s"], &["s", "__gtap_deferred_0"]),
            // Pending on one way only: saved (state 0's code, where the child writes it, skips
            // the save; see `Lower::spawned`).
            (&["s", "__gtap_deferred_0"], &["s", "__gtap_deferred_0"]),
        ])
    );
}

#[test]
fn snapshot_deferred_forms() {
    let expanded = pretty(quote! {
        pub fn spans((lo, hi): (u64, u64)) -> u64 {
            if hi - lo < 2 {
                return lo;
            }
            let mid = (lo + hi) / 2;
            let mut total = 0;
            total += task!(spans((lo, mid)));
            let (q, r) = task!(divmod(hi, 3));
            total += task!(spans((mid, hi))) as u64;
            taskwait!();
            total + q + r + hi - lo
        }
    });
    insta::assert_snapshot!(expanded);
}
