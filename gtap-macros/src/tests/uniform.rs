//! Stage tests of the uniformity check of block-level functions (`crate::uniform`): which
//! locals a thread-dependent value taints, and which `taskwait!()`s, barriers and early exits
//! it rejects because not every thread of the block reaches them.

use super::{errors, errors_with};
use crate::{diag::Ctxt, parse};
use proc_macro2::TokenStream;
use quote::quote;

fn block_errors(item: TokenStream) -> Vec<String> {
    errors_with(quote!(block), item)
}

/// Errors of the uniformity check alone (the later stages are not run).
fn uniform_errors(item: TokenStream) -> Vec<String> {
    let mut cx = Ctxt::default();
    let def = parse::parse_fn(&mut cx, item).expect("parses");
    crate::uniform::check(&mut cx, &def.body, true);
    match cx.check() {
        Ok(()) => Vec::new(),
        Err(e) => e.into_iter().map(|e| e.to_string()).collect(),
    }
}

fn tainted(item: TokenStream) -> Vec<String> {
    let f: syn::ItemFn = syn::parse2(item).expect("parses");
    crate::uniform::tainted_locals(&f.block)
}

const WAIT_MSG: &str = "`taskwait!()` in a block-level task must be reached by every thread of the block: this one is under a condition that depends on `gtap::block::thread_index()`; move it out of the condition: spawn under the condition, join after it where every thread goes (`let mut a = 0; if gtap::block::is_leader() { a = task!(..); } taskwait!(); let a = gtap::block::broadcast(a);`)";
const SYNC_MSG: &str = "`gtap::block::sync()` is a block barrier that every thread of the block must reach: this one is under a condition that depends on `gtap::block::thread_index()`; move it out of the condition, to where every thread goes";

#[test]
fn block_shadowing_binding_is_a_local_of_its_own() {
    // `let a = broadcast(a)` after a leader-only `a` is uniform; an inner thread-dependent
    // `a` does not taint the outer one read after its block, and is itself tainted.
    let e = block_errors(quote! {
        fn f(n: u32) -> u32 {
            let mut a = 0;
            if gtap::block::is_leader() {
                a = task!(g(n));
            }
            taskwait!();
            let a = gtap::block::broadcast(a);
            if a > 3 {
                gtap::block::sync();
            }
            let b = 1;
            {
                let b = gtap::block::thread_index();
                let _ = b;
            }
            while b < a {
                taskwait!();
            }
            for b in 0..gtap::block::thread_index() {
                let _ = b;
            }
            if let Some(b) = Some(a) {
                if b > 1 {
                    gtap::block::sync();
                }
            }
            a
        }
    });
    assert!(e.is_empty(), "{e:?}");
    let e = block_errors(quote! {
        fn f(n: u32) {
            let a = 1;
            {
                let a = gtap::block::thread_index();
                if a > 0 {
                    gtap::block::sync();
                }
            }
        }
    });
    assert_eq!(e.len(), 2, "{e:?}");
    assert_eq!(e[0], SYNC_MSG);
}

#[test]
fn block_taint_propagation() {
    // Sources, derived locals, assignments (to a fixed point), patterns, `for` bindings,
    // match arm bindings, locals assigned under a tainted branch; collectives are uniform.
    let got = tainted(quote! {
        fn f(n: u32, s: Slice<u32>) {
            let t = gtap::block::thread_index();
            let u = t * 2;
            let mut y = 0;
            let mut x = 0;
            y += x;
            x = u;
            let (p, q) = (block::is_leader(), 1);
            let mut w = 0;
            if p { w = 1; }
            for i in (t..n).step_by(32) { let k = i; }
            match u { v => {} }
            let total = gtap::block::sum_u64(u as u64);
            let size = gtap::block::size();
            let c = task!(g(t));
            let d = task!(g(n));
            let mut arr = [0u32; 4];
            arr[t as usize] = 1;
            let r = s.read(0);
        }
    });
    assert_eq!(
        got,
        ["arr", "c", "i", "k", "p", "q", "t", "u", "v", "w", "x", "y"]
    );
}

#[test]
fn block_leader_guarded_spawn_is_accepted() {
    // The uniformity check alone: a spawn under thread-dependent control is fine.
    let e = uniform_errors(quote! {
        fn f(n: u32) -> f64 {
            let mut a = 0.0;
            if gtap::block::thread_index() == 0 {
                a = task!(g(n));
            }
            taskwait!();
            let s = gtap::block::sum_f64(a);
            gtap::block::sync();
            s
        }
    });
    assert!(e.is_empty(), "{e:?}");
    // The whole pipeline, with a result.
    let e = block_errors(quote! {
        fn f(n: u32) -> f64 {
            let mut a = 0.0;
            if gtap::block::thread_index() == 0 {
                a = task!(g(n));
            }
            taskwait!();
            gtap::block::broadcast(a)
        }
    });
    assert!(e.is_empty(), "{e:?}");
    // The whole pipeline, with a detached spawn.
    let e = block_errors(quote! {
        fn f(n: u32, out: Slice<f64>) -> f64 {
            if gtap::block::is_leader() {
                task!(g(n, out));
            }
            taskwait!();
            let t = gtap::block::thread_index();
            let mut part = 0.0;
            let mut i = t;
            while i < n {
                part += out.read(i as usize);
                i += gtap::block::size();
            }
            let total = gtap::block::sum_f64(part);
            if t == 0 {
                return total;
            }
            total
        }
    });
    assert!(e.is_empty(), "{e:?}");
}

#[test]
fn block_taskwait_under_derived_condition_is_rejected() {
    let e = block_errors(quote! {
        fn f(n: u32) {
            let t = gtap::block::thread_index();
            if t < 4 {
                taskwait!();
            }
        }
    });
    assert_eq!(e.len(), 2, "{e:?}");
    assert_eq!(e[0], WAIT_MSG);
    assert!(
        e[1].contains("depends on `gtap::block::thread_index()` through `t`"),
        "{e:?}"
    );
}

#[test]
fn block_taskwait_under_not_equal_condition_is_rejected() {
    // `t != 0`: the `!` of `!=` is not a macro's, so `t` is a use (and tainted).
    let e = block_errors(quote! {
        fn f(n: u32) {
            let t = gtap::block::thread_index();
            if t != 0 {
                taskwait!();
            }
        }
    });
    assert_eq!(e.len(), 2, "{e:?}");
    assert_eq!(e[0], WAIT_MSG);
}

#[test]
fn block_sync_in_loop_over_derived_variable_is_rejected() {
    let e = uniform_errors(quote! {
        fn f(n: u32) {
            let t = gtap::block::thread_index();
            let u = t * 2;
            while u > 0 {
                gtap::block::sync();
            }
        }
    });
    assert_eq!(e.len(), 2, "{e:?}");
    assert_eq!(e[0], SYNC_MSG);
    assert!(e[1].contains("through `u`"), "{e:?}");
    // A tainted `for` range, a tainted match scrutinee and guard, `&&` with a tainted left side.
    let e = uniform_errors(quote! {
        fn f(n: u32) {
            for i in gtap::block::thread_index()..n { block::sync(); }
            match gtap::block::is_leader() { true => block::sync(), false => {} }
            match n { 0 if block::is_leader() => {}, _ => { taskwait!(); } }
            if block::is_leader() && block::any(true) {}
        }
    });
    let head: Vec<_> = e
        .iter()
        .filter(|m| !m.starts_with("the condition"))
        .collect();
    assert_eq!(head.len(), 4, "{e:?}");
    assert!(
        head[3].starts_with("`gtap::block::any()` is a block collective"),
        "{e:?}"
    );
}

#[test]
fn block_early_exit_before_barrier_is_rejected() {
    let e = block_errors(quote! {
        fn f(n: u32) -> u32 {
            if gtap::block::thread_index() >= n {
                return 0;
            }
            let a = task!(g(n));
            taskwait!();
            a
        }
    });
    assert_eq!(e.len(), 2, "{e:?}");
    assert!(
        e[0].starts_with(
            "`return` under a condition that depends on `gtap::block::thread_index()`"
        ),
        "{e:?}"
    );
    assert!(e[0].contains("skip the later `taskwait!()`"), "{e:?}");
    // `break` out of a loop with a barrier in it; `continue` before a barrier.
    let e = uniform_errors(quote! {
        fn f(n: u32) {
            let t = gtap::block::thread_index();
            loop {
                gtap::block::sync();
                if t == n { break; }
            }
            for i in 0..n {
                if t == i { continue; }
                gtap::block::sync();
            }
        }
    });
    let head: Vec<_> = e
        .iter()
        .filter(|m| !m.starts_with("the condition"))
        .collect();
    assert_eq!(head.len(), 2, "{e:?}");
    assert!(head[0].starts_with("`break` under"), "{e:?}");
    assert!(
        head[0].contains("skip the loop's `gtap::block::sync()` barrier"),
        "{e:?}"
    );
    assert!(head[1].starts_with("`continue` under"), "{e:?}");
    assert!(
        head[1].contains("skip the later `gtap::block::sync()` barrier"),
        "{e:?}"
    );
    // Accepted: an early exit with no barrier after it, a `break` out of a loop without
    // barriers, a `continue` after the loop's barrier, a `return` inside a closure.
    let e = uniform_errors(quote! {
        fn f(n: u32) -> u32 {
            let t = gtap::block::thread_index();
            let mut i = 0;
            while i < n { if t == i { break; } i += 1; }
            loop { gtap::block::sync(); if t == n { continue; } break; }
            let g = |x: u32| { if t == x { return 1; } 0 };
            taskwait!();
            if t == 0 { return 1; }
            2
        }
    });
    assert!(e.is_empty(), "{e:?}");
}

#[test]
fn block_loop_left_early_taints_its_assignments() {
    // `i` counts iterations of a loop some threads leave early: thread-dependent.
    let got = tainted(quote! {
        fn f(n: u32) {
            let t = gtap::block::thread_index();
            let mut i = 0;
            let mut j = 0;
            loop { if t == i { break; } i += 1; }
            loop { if j == n { break; } j += 1; }
        }
    });
    assert_eq!(got, ["i", "t"]);
}

#[test]
fn block_api_in_thread_level_function_is_rejected() {
    let e = errors(quote! {
        fn f(n: u32) -> u32 {
            gtap::block::sync();
            let t = block::thread_index();
            let v = task!(g(gtap::block::size()));
            taskwait!();
            v + t
        }
    });
    assert_eq!(e.len(), 3, "{e:?}");
    assert_eq!(e[0], "`gtap::block::sync` is only meaningful in a block-level task: mark the function `#[gtap::function(block)]`");
    assert!(
        e[1].starts_with("`gtap::block::thread_index` is only meaningful"),
        "{e:?}"
    );
    assert!(
        e[2].starts_with("`gtap::block::size` is only meaningful"),
        "{e:?}"
    );
}

#[test]
fn block_attribute_arguments() {
    let item = quote! { fn f(n: u32) -> u32 { n } };
    let e = errors_with(quote!(blok), item.clone());
    assert_eq!(e, ["unknown argument `blok` of #[gtap::function]: expected `block` and/or `max_frame_bytes = N`, as in #[gtap::function(block, max_frame_bytes = 512)]"]);
    let e = errors_with(quote!(block = true), item.clone());
    assert_eq!(
        e,
        ["`block` takes no value: write #[gtap::function(block)]"]
    );
    let e = errors_with(quote!(block, block), item.clone());
    assert_eq!(e, ["`block` is given twice"]);
    let out = crate::expand::expand(quote!(block, max_frame_bytes = 512), item.clone()).to_string();
    assert!(out.contains("const BLOCK : bool = true"), "{out}");
    assert!(out.contains("512"), "{out}");
    let out = crate::expand::expand(quote!(max_frame_bytes = 512), item).to_string();
    assert!(!out.contains("BLOCK"), "{out}");
}
