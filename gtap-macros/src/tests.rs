//! Stage tests: the saved set at each `taskwait!()` (the `rustc_peek` idea: one fixture per
//! construct, asserting exactly which locals are saved and restored), and expansion snapshots.
//!
//! Bless the snapshots with `cargo insta review` (or `INSTA_UPDATE=always cargo test -p
//! gtap-macros`).

mod assigned;
mod deferred;
mod stored;
mod uniform;

use crate::{cfg, diag::Ctxt, liveness, parse, structure};
use proc_macro2::TokenStream;
use quote::quote;

/// The function's CFG and liveness, through the stages the macro runs before lowering; panics
/// on any error.
fn analyzed(item: TokenStream) -> (cfg::Body, liveness::LivenessInfo) {
    let mut cx = Ctxt::default();
    let def = parse::parse_fn(&mut cx, item).expect("parses");
    let s = structure::structure(&mut cx, def.body.clone(), def.output.is_none());
    let body = cfg::build(&mut cx, &s.markers, &def.params, &s.body);
    let info = liveness::analyze(&mut cx, &body);
    if let Err(e) = cx.check() {
        panic!("unexpected errors: {e}");
    }
    (body, info)
}

/// Per wait, in source order: (saved, restored) local names, each in declaration order.
/// Parameters that are not `mut` are never saved: they stay in `args`.
fn saved_sets(item: TokenStream) -> Vec<(Vec<String>, Vec<String>)> {
    let (body, info) = analyzed(item);
    let name = |l: cfg::LocalId| body.locals[l.0].ident.to_string();
    (0..body.waits.len())
        .map(|w| {
            let saved = info.live_after[w]
                .iter()
                .filter(|l| !info.joined[w].contains(*l))
                .filter(|l| {
                    let d = &body.locals[l.0];
                    d.param.is_none() || d.mutable
                })
                .map(name)
                .collect();
            let restored = info.live_after[w].iter().map(name).collect();
            (saved, restored)
        })
        .collect()
}

fn sets(v: &[(&[&str], &[&str])]) -> Vec<(Vec<String>, Vec<String>)> {
    v.iter()
        .map(|(s, r)| {
            (
                s.iter().map(ToString::to_string).collect(),
                r.iter().map(ToString::to_string).collect(),
            )
        })
        .collect()
}

/// Errors of an expansion, as strings.
fn errors(item: TokenStream) -> Vec<String> {
    errors_with(TokenStream::new(), item)
}

/// Asserts that every item's expansion reports an error containing its text.
fn assert_errors_contain<const N: usize>(cases: [(TokenStream, &str); N]) {
    for (item, want) in cases {
        let got = errors(item);
        assert!(
            got.iter().any(|e| e.contains(want)),
            "want {want:?}, got {got:?}"
        );
    }
}

#[test]
fn straight_line_fib() {
    let got = saved_sets(quote! {
        fn fib(n: u32) -> u64 {
            if n < 2 { return n as u64; }
            let a = task!(fib(n - 1));
            let b = task!(fib(n - 2));
            taskwait!();
            a + b
        }
    });
    assert_eq!(got, sets(&[(&[], &["a", "b"])]));
}

#[test]
fn if_branch_and_else() {
    let got = saved_sets(quote! {
        fn f(n: u32, m: u32) -> u32 {
            let unused = n + 1;
            let k = n * 2;
            let r;
            if n > 3 {
                let x = task!(g(n));
                taskwait!();
                r = x + k;
            } else {
                let y = task!(g(m));
                let z = m + 7;
                taskwait!();
                r = y + z;
            }
            r + m
        }
    });
    assert_eq!(
        got,
        sets(&[(&["k"], &["m", "k", "x"]), (&["z"], &["m", "y", "z"])])
    );
}

#[test]
fn match_arm_binding() {
    let got = saved_sets(quote! {
        fn f(o: Option<u32>) -> u32 {
            match o {
                Some(v) => {
                    let w = task!(g(v));
                    taskwait!();
                    w + v
                }
                None => 0,
            }
        }
    });
    assert_eq!(got, sets(&[(&["v"], &["v", "w"])]));
}

#[test]
fn loop_carries_accumulators() {
    let got = saved_sets(quote! {
        fn f(n: u32) -> u32 {
            let mut acc = 0;
            let mut i = 0;
            let dead = 5;
            loop {
                if i == n { break; }
                let s = task!(g(i));
                taskwait!();
                acc += s;
                i += 1;
            }
            acc
        }
    });
    assert_eq!(got, sets(&[(&["acc", "i"], &["n", "acc", "i", "s"])]));
}

#[test]
fn while_loop_and_dead_after() {
    let got = saved_sets(quote! {
        fn f(n: u32) -> u32 {
            let mut i = 0;
            let mut last = 0;
            while i < n {
                let t = i * 2;
                last = task!(g(t));
                taskwait!();
                i += 1;
            }
            last
        }
    });
    // `t` is dead after the wait; `last` is a joined result (restored, not saved).
    assert_eq!(got, sets(&[(&["i"], &["n", "i", "last"])]));
}

#[test]
fn for_over_range() {
    let got = saved_sets(quote! {
        fn f(n: u32) -> u64 {
            let mut total = 0;
            for i in 1..n {
                let s = task!(g(i));
                taskwait!();
                total += s;
            }
            total
        }
    });
    // The counter and the end of the desugared loop are ordinary locals; `i` is dead.
    assert_eq!(
        got,
        sets(&[(
            &["total", "__gtap_next_0", "__gtap_end_0"],
            &["total", "__gtap_next_0", "__gtap_end_0", "s"]
        )])
    );
}

#[test]
fn labels_break_continue() {
    let got = saved_sets(quote! {
        fn f(n: u32) -> u32 {
            let mut found = 0;
            let mut i = 0;
            'outer: loop {
                i += 1;
                let mut j = 0;
                while j < n {
                    j += 1;
                    let c = task!(g(i, j));
                    taskwait!();
                    if c == 0 { continue 'outer; }
                    if c == 1 { found = i; break 'outer; }
                }
                if i > n { break; }
            }
            found
        }
    });
    // `found` is overwritten before any read on every path from the wait but one: live.
    assert_eq!(
        got,
        sets(&[(&["found", "i", "j"], &["n", "found", "i", "j", "c"])])
    );
}

#[test]
fn nested_blocks_and_shadowing() {
    let got = saved_sets(quote! {
        fn f(n: u32) -> u32 {
            let x = n + 1;
            let y = 2;
            {
                let x = x * 10;
                let a = task!(g(x));
                taskwait!();
                let _ = a + x;
            }
            y
        }
    });
    // The inner `x` is live until its use; the outer one is dead. (Were the outer one read
    // after the block, the wait could not name it: `hidden_outer_local_is_saved_at_its_hider`.)
    assert_eq!(got, sets(&[(&["y", "x"], &["y", "x", "a"])]));
}

#[test]
fn hidden_outer_local_is_saved_at_its_hider() {
    let item = quote! {
        fn f(n: u32) -> u32 {
            let x = n + 1;
            {
                let x = x * 10;
                let a = task!(g(x));
                taskwait!();
                let _ = a + x;
            }
            x
        }
    };
    assert_eq!(errors(item.clone()), Vec::<String>::new());
    let (body, info) = analyzed(item.clone());
    let name = |l: cfg::LocalId| body.locals[l.0].ident.to_string();
    // The outer `x` (the first local after `n`) is live across the wait, which sees the inner
    // one: the lowering saves the outer one right before the inner `let`.
    let outer = cfg::LocalId(1);
    assert_eq!(name(outer), "x");
    assert!(info.saved_at_hider[0].contains(outer));
    assert_eq!(info.hider_saves, vec![(cfg::LocalId(2), outer)]);
    let code = crate::expand::expand(TokenStream::new(), item).to_string();
    assert!(
        !code.contains("__gtap_hides"),
        "the tag is stripped: {code}"
    );
}

#[test]
fn hidden_outer_local_whose_address_is_taken_is_an_error() {
    // Saved where the inner `let` runs, the outer `x` would miss the write through `p` made
    // before the join: the rename error stays, for every way to take and keep its address.
    for take in [
        quote!(let p = &mut x;),
        quote!(let p = &raw mut x;),
        quote!(let p = core::ptr::addr_of_mut!(x);),
        quote!(let p = x.as_mut_ptr();),
        quote!(let p = x.iter_mut();),
        quote!(let p = &mut x[0];),
        quote!(let mut p = || x[0] += 1;),
    ] {
        let e = errors(quote! {
            fn f(n: u32) -> u32 {
                let mut x = [n; 2];
                #take
                {
                    let x = 5u32;
                    let _ = &p;
                    let a = task!(g(x));
                    taskwait!();
                    let _ = a;
                }
                x[0]
            }
        });
        assert_eq!(e.len(), 1, "{take}: {e:?}");
        assert!(
            e[0].contains("hides an outer `x`") && e[0].contains("address is taken"),
            "{take}: {e:?}"
        );
    }
}

#[test]
fn hidden_by_a_pattern_is_an_error() {
    let e = errors(quote! {
        fn f(n: u32, o: Option<u32>) -> u32 {
            let x = n + 1;
            if let Some(x) = o {
                let a = task!(g(x));
                taskwait!();
                let _ = a + x;
            }
            x
        }
    });
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(
        e[0].contains("(a pattern's binding) hides an outer `x`"),
        "{e:?}"
    );
}

#[test]
fn several_waits() {
    let got = saved_sets(quote! {
        fn f(n: u32) -> u32 {
            let a = task!(g(n));
            taskwait!();
            let b = task!(g(a));
            let keep = a + 1;
            taskwait!();
            let c = b * 2;
            task!(h(c));
            taskwait!();
            keep + c
        }
    });
    assert_eq!(
        got,
        sets(&[
            (&[], &["a"]),
            (&["keep"], &["b", "keep"]),
            (&["keep", "c"], &["keep", "c"])
        ])
    );
}

#[test]
fn destructuring_assignment_defines() {
    // `(c, d) = ..` writes `c` and `d` whole: not live before it (so not saved at the first
    // wait), while `(p.x, e) = ..` uses `p` (one field is written) and defines `e`.
    let got = saved_sets(quote! {
        fn f(n: u32) -> u32 {
            let (c, d);
            let mut p = P::default();
            let e;
            let a = task!(g(n));
            taskwait!();
            (c, d) = (a, n);
            (p.x, e) = (c, d);
            let b = task!(g(e));
            taskwait!();
            b + p.x + c
        }
    });
    assert_eq!(
        got,
        sets(&[(&["p"], &["n", "p", "a"]), (&["c", "p"], &["c", "p", "b"])])
    );
}

#[test]
fn diverging_macro_ends_the_path() {
    // After the wait in the `_` arm only `panic!` runs: `m` is not live there, so it is saved
    // at neither wait (each wait's own arm reads it before its join, or never).
    let got = saved_sets(quote! {
        fn f(n: u32) -> u32 {
            let m = n + 1;
            let v = match n {
                0 => m,
                _ => {
                    let r = task!(g(n));
                    taskwait!();
                    unreachable!("{r}");
                }
            };
            v + m
        }
    });
    assert_eq!(got, sets(&[(&[], &["r"])]));
}

#[test]
fn diverging_call_ends_the_path() {
    // `std::process::abort()`, a `let` whose value returns and a `loop` without `break` end
    // their arm's path: `v` (unassigned there) is not live at the waits, so it is not saved.
    let got = saved_sets(quote! {
        fn f(n: u32) -> u32 {
            let v;
            match n {
                0 => v = n,
                1 => {
                    let r = task!(g(n));
                    taskwait!();
                    std::process::abort();
                }
                2 => {
                    let r = task!(g(n));
                    taskwait!();
                    let _z: u32 = { return r };
                }
                _ => {
                    let r = task!(g(n));
                    taskwait!();
                    loop {}
                }
            }
            v + 1
        }
    });
    assert_eq!(got, sets(&[(&[], &[]), (&[], &["r"]), (&[], &[])]));
}

#[test]
fn return_inside() {
    let got = saved_sets(quote! {
        fn f(n: u32) -> u32 {
            let m = n + 1;
            let a = task!(g(n));
            taskwait!();
            if a > 10 {
                return a;
            }
            let b = task!(g(m));
            taskwait!();
            b
        }
    });
    assert_eq!(got, sets(&[(&["m"], &["m", "a"]), (&[], &["b"])]));
}

#[test]
fn jump_ends_the_scopes_it_leaves() {
    let got = saved_sets(quote! {
        fn f(n: u32) -> u32 {
            let mut total = 0;
            let mut i = 0;
            'rows: while i < n {
                i += 1;
                let row = i * 10;
                let base = row + 1;
                let mut j = 0;
                while j < 3 {
                    j += 1;
                    let a = task!(g(base + j));
                    taskwait!();
                    if a == 0 { continue 'rows; }
                    total += a;
                }
            }
            total
        }
    });
    // `continue 'rows` leaves the scope of `row`: the next row declares it afresh, so its read
    // there is not a read after the wait, and `row` (outside `j`'s loop) is not kept across it.
    assert_eq!(
        got,
        sets(&[(
            &["total", "i", "base", "j"],
            &["n", "total", "i", "base", "j", "a"]
        )])
    );
}

#[test]
fn unit_task_and_detached_spawns() {
    let got = saved_sets(quote! {
        fn f(n: u32, out: Slice<u64>) {
            task!(g(n, out));
            task!(g(n + 1, out));
            taskwait!();
            out.set(0, n as u64);
            task!(g(n + 2, out));
        }
    });
    // Parameters that are not `mut` are restored from `args` and never saved.
    assert_eq!(got, sets(&[(&[], &["n", "out"])]));
}

#[test]
fn macro_arguments_are_uses() {
    let got = saved_sets(quote! {
        fn f(n: u32) -> u32 {
            let lim = n * 2;
            let a = task!(g(n));
            taskwait!();
            assert!(a < lim, "{}", a);
            a
        }
    });
    assert_eq!(got, sets(&[(&["lim"], &["lim", "a"])]));
}

#[test]
fn names_after_two_dots_and_format_captures_are_uses() {
    let got = saved_sets(quote! {
        fn f(mut n: u32, p: P) -> u32 {
            n += 1;
            let (lo, q, shown, z) = (1, p, 3, 4);
            let a = task!(g(n));
            taskwait!();
            debug_assert!(a > 0, "{shown:?} {{z}}");
            let r = P { x: a, ..q };
            (lo..n).sum::<u32>() + (0..=a).count() as u32 + r.x
        }
    });
    assert_eq!(
        got,
        sets(&[(&["n", "lo", "q", "shown"], &["n", "lo", "q", "shown", "a"])])
    );
}

#[test]
fn name_before_not_equal_is_a_use() {
    let got = saved_sets(quote! {
        fn f(mut n: u32, tag: char) -> bool {
            n += 1;
            let a = task!(g(n));
            taskwait!();
            a != 0 && n != 2 && tag != 'e'
        }
    });
    assert_eq!(got, sets(&[(&["n"], &["n", "tag", "a"])]));
}

#[test]
fn dataflow_errors() {
    let e = errors(quote! {
        fn f(n: u32) -> u32 {
            let a = task!(g(n));
            let b = a + 1;
            taskwait!();
            b
        }
    });
    assert_eq!(e.len(), 1, "{e:?}");
    assert!(e[0].contains("`a` is read before the taskwait!()"), "{e:?}");
    let e = errors(quote! {
        fn f(n: u32) -> u32 {
            let a = task!(g(n));
            n
        }
    });
    assert!(
        e[0].contains("still pending where the task returns"),
        "{e:?}"
    );
    let e = errors(quote! {
        fn f(n: u32) -> u32 {
            let v = [1u32, 2];
            let r = &v;
            taskwait!();
            r[0]
        }
    });
    assert!(e[0].contains("`r` holds a borrow"), "{e:?}");
}

// ---- expansion snapshots ----

fn pretty(item: TokenStream) -> String {
    let out = crate::expand::expand(TokenStream::new(), item);
    match syn::parse2::<syn::File>(out.clone()) {
        Ok(f) => prettyplease::unparse(&f),
        Err(_) => out.to_string(),
    }
}

#[test]
fn snapshot_fib() {
    let expanded = pretty(quote! {
        /// Fibonacci numbers, two children per call.
        pub fn fib(n: u32) -> u64 {
            if n < 2 {
                return n as u64;
            }
            let a = task!(fib(n - 1));
            let b = task!(fib(n - 2));
            taskwait!();
            a + b
        }
    });
    insta::assert_snapshot!(expanded);
}

#[test]
fn snapshot_early_return() {
    // The resume state of the wait holds only the rest of the `if`: the code after the `if`
    // cannot run after the wait, and is not emitted there (it reads `x` and `n`, which that
    // state does not declare).
    let expanded = pretty(quote! {
        pub fn leafy(n: u32, x: u64) -> u64 {
            if n == 0 {
                let a = task!(leaf(x));
                taskwait!();
                return a + 1;
            }
            x + u64::from(n)
        }
    });
    insta::assert_snapshot!(expanded);
}

#[test]
fn snapshot_nqueens() {
    let expanded = pretty(quote! {
        /// Counts the placements of `n` queens by bitmask backtracking; rows below `cutoff`
        /// run sequentially, and every solution adds 1 to `count[0]`.
        pub fn nqueens(n: u32, row: u32, cols: u32, diag1: u32, diag2: u32, cutoff: u32, count: Slice<u64>) {
            if row == n {
                count.atomic_add(0, 1);
                return;
            }
            let all = (1u32 << n) - 1;
            let mut free = all & !(cols | diag1 | diag2);
            while free != 0 {
                let bit = free & free.wrapping_neg();
                free &= free - 1;
                if row < cutoff {
                    task!(nqueens(n, row + 1, cols | bit, (diag1 | bit) << 1, (diag2 | bit) >> 1, cutoff, count));
                } else {
                    task!(nqueens_seq(n, row + 1, cols | bit, (diag1 | bit) << 1, (diag2 | bit) >> 1, count));
                }
            }
        }
    });
    insta::assert_snapshot!(expanded);
}

#[test]
fn snapshot_cilksort() {
    let expanded = pretty(quote! {
        /// Sorts `a` using `tmp` as scratch: four quarter sorts, two merges, one final merge.
        pub fn cilksort(a: Slice<u32>, tmp: Slice<u32>) {
            let n = a.len();
            if n < 2048 {
                seq_sort(a);
                return;
            }
            let q = n / 4;
            let (a1, rest) = a.split_at(q);
            let (a2, rest) = rest.split_at(q);
            let (a3, a4) = rest.split_at(q);
            let (t1, trest) = tmp.split_at(q);
            let (t2, trest) = trest.split_at(q);
            let (t3, t4) = trest.split_at(q);
            task!(cilksort(a1, t1));
            task!(cilksort(a2, t2));
            task!(cilksort(a3, t3));
            task!(cilksort(a4, t4));
            taskwait!();
            task!(cilkmerge(a1, a2, tmp.slice(0, 2 * q)));
            task!(cilkmerge(a3, a4, tmp.slice(2 * q, n)));
            taskwait!();
            let (lo, hi) = tmp.split_at(2 * q);
            task!(queue = 1, cilkmerge(lo, hi, a));
            taskwait!();
        }
    });
    insta::assert_snapshot!(expanded);
}

// ---- block-level functions: the uniformity check ----

/// Errors of an expansion with attribute arguments `args`, as strings.
fn errors_with(args: TokenStream, item: TokenStream) -> Vec<String> {
    let out = crate::expand::expand(args, item).to_string();
    out.split("compile_error !")
        .skip(1)
        .map(|s| s.split('"').nth(1).unwrap_or_default().to_string())
        .collect()
}

#[test]
fn snapshot_block_sum() {
    let out = crate::expand::expand(
        quote!(block),
        quote! {
            /// Sums `n` values computed by a child, with the whole block.
            pub fn block_sum(n: u32, buf: Slice<f64>) -> f64 {
                if gtap::block::thread_index() == 0 {
                    task!(fill(n, buf));
                }
                taskwait!();
                let t = gtap::block::thread_index();
                let mut part = 0.0;
                let mut i = t;
                while i < n {
                    part += buf.read(i as usize);
                    i += gtap::block::size();
                }
                gtap::block::sum_f64(part)
            }
        },
    );
    let expanded = match syn::parse2::<syn::File>(out.clone()) {
        Ok(f) => prettyplease::unparse(&f),
        Err(_) => out.to_string(),
    };
    insta::assert_snapshot!(expanded);
}

/// A block-level tree node: its results and the locals its threads keep across the join are
/// per-thread fields laid out field by field (`thread_field`), its arguments read from the
/// spawner's copy (`__gtap_args_frame`); a `mut` parameter kept across the join would turn both off.
#[test]
fn snapshot_block_tree() {
    let out = crate::expand::expand(
        quote!(block),
        quote! {
            pub fn tree(depth: u32, node: u64) -> u64 {
                let mut left = 0;
                let mut right = 0;
                let t = u64::from(gtap::block::thread_index());
                if depth > 0 && gtap::block::is_leader() {
                    left = task!(tree(depth - 1, 2 * node + 1));
                    right = task!(tree(depth - 1, 2 * node + 2));
                }
                taskwait!();
                left + right + gtap::block::sum_u64(node + t)
            }
        },
    );
    let expanded = match syn::parse2::<syn::File>(out.clone()) {
        Ok(f) => prettyplease::unparse(&f),
        Err(_) => out.to_string(),
    };
    insta::assert_snapshot!(expanded);
}

#[test]
fn place_root_is_saved_not_joined() {
    // `counts` receives results into its elements: saved at the wait (its other elements keep
    // their values) and restored, unlike a whole result, which is only restored.
    let got = saved_sets(quote! {
        fn f(n: u64) -> u64 {
            let mut counts = [0u64; 4];
            let mut i = 0;
            while i < 4 {
                counts[i] = task!(g(n));
                i += 1;
            }
            let w = task!(g(n));
            taskwait!();
            counts[0] + w
        }
    });
    assert_eq!(got, sets(&[(&["counts"], &["counts", "w"])]));
}

#[test]
fn let_loop_value_temporary_is_not_saved() {
    // `let v = loop { .. break a; }` → `let tmp; loop { .. { tmp = a; break; } } let v = tmp;`:
    // `tmp` is assigned after the wait, so only the loop counter is saved.
    let got = saved_sets(quote! {
        fn f(x: u64) -> u64 {
            let mut i = 0;
            let v = loop {
                let a = task!(g(i));
                taskwait!();
                if a > x {
                    break a;
                }
                i += 1;
            };
            v
        }
    });
    assert_eq!(got, sets(&[(&["i"], &["x", "i", "a"])]));
}

#[test]
fn local_read_in_loop_after_join_is_saved() {
    // `next` is assigned on every path after the wait before the loop reads it again, so it is
    // not live; it is still saved, because the mirrored loop reads it in its `FULL` branch.
    let got = saved_sets(quote! {
        fn f(x: u64) -> u64 {
            let mut next = Some(x);
            let mut total = 0;
            while let Some(v) = next {
                let s = task!(g(v));
                taskwait!();
                total += s;
                if v > 0 { next = Some(v / 2); } else { next = None; }
            }
            total
        }
    });
    assert_eq!(
        got,
        sets(&[(&["next", "total", "v"], &["next", "total", "v", "s"])])
    );
}
