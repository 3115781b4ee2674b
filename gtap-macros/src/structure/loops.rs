//! `for` loops with a join inside, rewritten as counter loops (the structure pass's rule for
//! them, in [`super`]'s module docs): `for pat in a..b`, `a..=b`, either's `.rev()` and
//! `.step_by(k)`. The counter and the end are ordinary locals, saved across a join when live.

use super::Pass;
use proc_macro2::{Ident, Span};
use quote::quote;
use syn::{Expr, Stmt};

impl Pass<'_> {
    /// `for pat in a..b { body }` / `a..=b`, or either's `.rev()` or `.step_by(k)`, → a
    /// counter loop (see the module docs); `None` after an error. The bounds go through a
    /// `Range` (`RangeInclusive`) so that they unify to one type, as in `for i in 0..n` with
    /// `n: u64`.
    pub(super) fn desugar_for(&mut self, f: &syn::ExprForLoop) -> Option<Expr> {
        let (range, stride) = match &*f.expr {
            Expr::MethodCall(m) if m.method == "rev" && m.args.is_empty() => {
                (bounded_range(&m.receiver), Stride::Down)
            }
            Expr::MethodCall(m) if m.method == "step_by" && m.args.len() == 1 => {
                (bounded_range(&m.receiver), Stride::By(&m.args[0]))
            }
            e => (bounded_range(e), Stride::Up),
        };
        let Some(range) = range else {
            self.cx.error_spanned_by(
                &f.expr,
                "a `for` loop containing taskwait!() must run over a range `a..b` or `a..=b`, its `.rev()` or its `.step_by(k)`: write a `while` loop for other iterators (their state is not kept across a join)",
            );
            return None;
        };
        let n = self.next_for;
        self.next_for += 1;
        let local = |what: &str| Ident::new(&format!("__gtap_{what}_{n}"), Span::call_site());
        let parts = CounterLoop {
            label: &f.label,
            pat: &f.pat,
            stmts: &f.body.stmts,
            start: range.start.as_deref()?,
            end: range.end.as_deref()?,
            inclusive: matches!(range.limits, syn::RangeLimits::Closed(_)),
            next: local("next"),
            last: local("end"),
            more: local("more"),
            range: local("range"),
            step: local("step"),
        };
        match syn::parse2::<Expr>(parts.tokens(stride)) {
            Ok(e) => Some(e),
            Err(e) => {
                self.cx.syn_error(e);
                None
            }
        }
    }
}

/// One `for` loop over a range with a join inside, as a counter loop. The counter steps
/// before the body, so that `continue` moves on.
struct CounterLoop<'a> {
    label: &'a Option<syn::Label>,
    pat: &'a syn::Pat,
    stmts: &'a [Stmt],
    start: &'a Expr,
    end: &'a Expr,
    inclusive: bool,
    /// The loop's locals (numbered per loop): the counter, the range's end, whether another
    /// iteration runs, the range, the step.
    next: Ident,
    last: Ident,
    more: Ident,
    range: Ident,
    step: Ident,
}

/// How a counter loop's counter moves.
#[derive(Clone, Copy)]
enum Stride<'a> {
    /// Up by one (`a..b`, `a..=b`).
    Up,
    /// Down by one (`.rev()`).
    Down,
    /// Up by `k`, a `usize` (`.step_by(k)`; 0 panics, as in `Iterator::step_by`), in the
    /// range's type, to the range's end or where the next step would overflow.
    By(&'a Expr),
}

impl CounterLoop<'_> {
    /// The loop, its counter moving by `stride`.
    fn tokens(&self, stride: Stride<'_>) -> proc_macro2::TokenStream {
        let Self {
            label,
            pat,
            stmts,
            start,
            end,
            next,
            last,
            more,
            range,
            step,
            ..
        } = self;
        match (self.inclusive, stride) {
            (true, Stride::Up) => quote! {
                {
                    let (mut #next, #last) = (#start..=#end).into_inner();
                    let mut #more = #next <= #last;
                    #label while #more {
                        let #pat = #next;
                        if #next < #last { #next += 1; } else { #more = false; }
                        #(#stmts)*
                    }
                }
            },
            (true, Stride::Down) => quote! {
                {
                    let (#last, mut #next) = (#start..=#end).into_inner();
                    let mut #more = #last <= #next;
                    #label while #more {
                        let #pat = #next;
                        if #next > #last { #next -= 1; } else { #more = false; }
                        #(#stmts)*
                    }
                }
            },
            (false, Stride::Up) => quote! {
                {
                    let #range = #start..#end;
                    let mut #next = #range.start;
                    let #last = #range.end;
                    #label while #next < #last {
                        let #pat = #next;
                        #next += 1;
                        #(#stmts)*
                    }
                }
            },
            (false, Stride::Down) => quote! {
                {
                    let #range = #start..#end;
                    let #last = #range.start;
                    let mut #next = #range.end;
                    #label while #next > #last {
                        #next -= 1;
                        let #pat = #next;
                        #(#stmts)*
                    }
                }
            },
            (_, Stride::By(k)) => {
                let (bounds, past_end) = if self.inclusive {
                    (
                        quote!(let (mut #next, #last) = (#start..=#end).into_inner();),
                        quote!(#next > #last),
                    )
                } else {
                    (
                        quote!(let #range = #start..#end; let mut #next = #range.start; let #last = #range.end;),
                        quote!(#next >= #last),
                    )
                };
                quote! {
                    {
                        let #step: usize = #k;
                        ::core::assert!(#step != 0, "assertion failed: step != 0");
                        #bounds
                        let mut #more = !(#past_end);
                        #label while #more {
                            let #pat = #next;
                            match ::core::convert::TryFrom::try_from(#step)
                                .ok()
                                .and_then(|s| #next.checked_add(s))
                            {
                                ::core::option::Option::Some(v) => #next = v,
                                ::core::option::Option::None => #more = false,
                            }
                            if #more && #past_end { #more = false; }
                            #(#stmts)*
                        }
                    }
                }
            }
        }
    }
}

/// `a..b` or `a..=b` with both bounds, through parentheses.
fn bounded_range(e: &Expr) -> Option<&syn::ExprRange> {
    match e {
        Expr::Range(r) if r.start.is_some() && r.end.is_some() => Some(r),
        Expr::Paren(p) => bounded_range(&p.expr),
        _ => None,
    }
}
