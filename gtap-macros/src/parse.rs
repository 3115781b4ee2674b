//! The macro's input: the attribute arguments and the function, checked for the signature rules
//! of a task function.
//!
//! A task function is a free, non-async fn, generic over types and consts (not lifetimes), whose
//! parameters are of owned, `Copy + 'static` types: they are copied into the child's task-data
//! struct at the spawn. A parameter is a name (`x: T`, `mut x: T`) or an irrefutable pattern of
//! by-value bindings (`(lo, hi): (u64, u64)`, `Pair { a, b }: Pair`, `_: T`). Signature problems
//! are reported here; the body is left to the later stages.

use crate::diag::Ctxt;
use proc_macro2::TokenStream;
use quote::ToTokens;
use syn::{parse::Parser, Attribute, Block, FnArg, Ident, Pat, ReturnType, Type, Visibility};

/// `#[gtap::function(..)]` arguments.
#[cfg_attr(test, derive(Debug))]
#[derive(Default)]
pub(crate) struct Args {
    /// `max_frame_bytes = N`: the limit on the task-data struct.
    pub(crate) max_frame_bytes: Option<syn::Expr>,
    /// `block`: a block-level task, whose body runs on every thread of a thread block.
    pub(crate) block: bool,
}

/// How a parameter binds its argument.
pub(crate) enum Binding {
    /// `x: T` or `mut x: T` (the name with the user's span).
    Name { ident: Ident, mutable: bool },
    /// Any other pattern, `(lo, hi): (u64, u64)`, `Pair { a, b }: Pair`, `_: T`: state 0
    /// binds it from `args`; a resume state binds each of its names that are not `mut` from
    /// `args` again where the code needs it (as for a plain parameter), while its `mut` names
    /// are ordinary locals, saved across a join where they are live (see [`crate::lower`]).
    Pattern(Box<Pat>),
}

/// One parameter of the task function.
pub(crate) struct Param {
    /// How it binds its argument.
    pub(crate) binding: Binding,
    /// Its type, as written.
    pub(crate) ty: Type,
}

impl Param {
    /// The names it binds, with whether each is `mut`, in the pattern's order.
    pub(crate) fn names(&self) -> Vec<(Ident, bool)> {
        match &self.binding {
            Binding::Name { ident, mutable } => vec![(ident.clone(), *mutable)],
            Binding::Pattern(pat) => {
                let mut found = Vec::new();
                crate::cfg::bindings(pat, None, true, &mut found);
                found.into_iter().map(|(i, m, _)| (i, m)).collect()
            }
        }
    }

    /// For a pattern: the pattern that binds only the names `keep` (`(lo, hi)` → `(_, hi)`),
    /// which a resume state matches against `args` to read those names again.
    pub(crate) fn pattern_binding_only(&self, keep: &[&Ident]) -> Option<Pat> {
        use syn::visit_mut::VisitMut;
        struct Only<'k>(&'k [&'k Ident]);
        impl VisitMut for Only<'_> {
            fn visit_pat_mut(&mut self, p: &mut Pat) {
                if let Pat::Ident(pi) = p {
                    if self.0.contains(&&pi.ident) {
                        // `x @ sub` keeps `x @` and goes on in `sub`.
                        syn::visit_mut::visit_pat_ident_mut(self, pi);
                        return;
                    }
                    *p = match pi.subpat.take() {
                        Some((_, sub)) => *sub,
                        None => Pat::Wild(syn::PatWild {
                            attrs: Vec::new(),
                            underscore_token: Default::default(),
                        }),
                    };
                }
                syn::visit_mut::visit_pat_mut(self, p);
            }
            fn visit_field_pat_mut(&mut self, f: &mut syn::FieldPat) {
                syn::visit_mut::visit_field_pat_mut(self, f);
                // `Pair { a, b }` → `Pair { a: _, b }`: a shorthand field needs its `:` once its
                // binding is gone (and only then: rustc warns of a redundant `b: b`).
                let shorthand = match (&f.member, &*f.pat) {
                    (syn::Member::Named(m), Pat::Ident(pi)) => pi.ident == *m,
                    _ => false,
                };
                if !shorthand {
                    f.colon_token.get_or_insert_with(Default::default);
                }
            }
        }
        let Binding::Pattern(pat) = &self.binding else {
            return None;
        };
        let mut pat = (**pat).clone();
        Only(keep).visit_pat_mut(&mut pat);
        Some(pat)
    }
}

/// The function `#[gtap::function]` is applied to.
pub(crate) struct TaskFnDef {
    /// Attributes kept on the marker struct (docs, lints, cfg).
    pub(crate) attrs: Vec<Attribute>,
    /// Visibility of the marker.
    pub(crate) vis: Visibility,
    /// The function's name: also the marker's name.
    pub(crate) ident: Ident,
    /// Type and const parameters and the where clause (`fn sum<T: Add, const N: usize>`).
    pub(crate) generics: syn::Generics,
    /// Parameters in declaration order.
    pub(crate) params: Vec<Param>,
    /// The return type; `None` for `()`.
    pub(crate) output: Option<Type>,
    /// The body.
    pub(crate) body: Block,
    /// Whether the signature had errors (then no impls are emitted in the fallback).
    pub(crate) signature_ok: bool,
    /// The name errors and `TaskFn::NAME` give, and the path its kind ID hashes (below the
    /// module): the function's own name, or `Type::name` for an associated function that
    /// `#[gtap::tasks]` moved out of its `impl` (its marker then has a generated name).
    pub(crate) display: String,
}

/// Parses the attribute arguments: nothing, or a comma-separated list of `block` (at most
/// once) and `max_frame_bytes = <expr>`.
pub(crate) fn parse_args(cx: &mut Ctxt, args: TokenStream) -> Args {
    let mut out = Args::default();
    let parser = syn::meta::parser(|meta| {
        if meta.path.is_ident("max_frame_bytes") {
            out.max_frame_bytes = Some(meta.value()?.parse()?);
            Ok(())
        } else if meta.path.is_ident("block") {
            if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                return Err(meta.error("`block` takes no value: write #[gtap::function(block)]"));
            }
            if out.block {
                return Err(meta.error("`block` is given twice"));
            }
            out.block = true;
            Ok(())
        } else {
            let name = meta
                .path
                .get_ident()
                .map_or_else(|| "this argument".to_string(), |i| format!("`{i}`"));
            Err(meta.error(format!(
                "unknown argument {name} of #[gtap::function]: expected `block` and/or `max_frame_bytes = N`, as in #[gtap::function(block, max_frame_bytes = 512)]"
            )))
        }
    });
    if let Err(e) = parser.parse2(args) {
        cx.syn_error(e);
    }
    out
}

/// Lint and documentation attributes move to the marker struct; anything else is rejected.
fn keep_attr(attr: &Attribute) -> bool {
    ["doc", "allow", "warn", "deny", "expect", "cfg", "cfg_attr"]
        .iter()
        .any(|name| attr.path().is_ident(name))
}

/// `attr` as an outer attribute. syn's `ItemFn` holds the inner attributes of the body's
/// block (`fn f() { //! doc`, `#![allow(..)]`) in `attrs` with the outer ones; they apply to
/// the function as the outer ones do, but the marker and the step function that receive the
/// kept ones take them only in outer form (an inner one after an outer one is rustc's "an
/// inner attribute is not permitted following an outer attribute", spanned at the user's
/// attribute).
fn as_outer(attr: &Attribute) -> Attribute {
    let mut attr = attr.clone();
    attr.style = syn::AttrStyle::Outer;
    attr
}

/// What in a parameter or return type cannot cross into a child's task-data struct.
enum Borrowed<'t> {
    /// `&T` or `&mut T`: the whole type, or inside it without `'static` (`Option<&T>`,
    /// `(u64, &[u8])`; an `Option<&'static str>` is `Copy + 'static` and may be passed).
    Reference(&'t syn::TypeReference),
    /// A lifetime other than `'static` (`Wrapper<'_>`).
    Lifetime(&'t syn::Lifetime),
    /// `impl Trait`.
    ImplTrait(&'t syn::TypeImplTrait),
}

/// The first part of `ty` that borrows or hides its type, if any. Function pointer types and
/// `Fn(&T)` bounds are skipped: their references are their arguments', not values held.
fn borrowed(ty: &Type) -> Option<Borrowed<'_>> {
    use syn::visit::Visit;
    struct Find<'t>(Option<Borrowed<'t>>);
    impl<'t> Visit<'t> for Find<'t> {
        fn visit_type_reference(&mut self, r: &'t syn::TypeReference) {
            if r.lifetime.as_ref().is_some_and(|l| l.ident == "static") {
                syn::visit::visit_type_reference(self, r);
            } else {
                self.0.get_or_insert(Borrowed::Reference(r));
            }
        }
        fn visit_type_impl_trait(&mut self, t: &'t syn::TypeImplTrait) {
            self.0.get_or_insert(Borrowed::ImplTrait(t));
        }
        fn visit_lifetime(&mut self, l: &'t syn::Lifetime) {
            if l.ident != "static" {
                self.0.get_or_insert(Borrowed::Lifetime(l));
            }
        }
        fn visit_type_bare_fn(&mut self, _: &'t syn::TypeBareFn) {}
        fn visit_parenthesized_generic_arguments(
            &mut self,
            _: &'t syn::ParenthesizedGenericArguments,
        ) {
        }
    }
    let mut find = Find(None);
    find.visit_type(ty);
    find.0
}

/// The standard library's owning containers: never `Copy`, so never a task's argument or
/// result (`String`, `Vec<T>`, `Box<T>`, ..), by the last segment of a path at any depth.
const OWNING: [&str; 11] = [
    "String",
    "Vec",
    "Box",
    "Rc",
    "Arc",
    "HashMap",
    "HashSet",
    "BTreeMap",
    "BTreeSet",
    "VecDeque",
    "BinaryHeap",
];

/// The first path in `ty` that names one of [`OWNING`], if any.
fn owning(ty: &Type) -> Option<&syn::PathSegment> {
    use syn::visit::Visit;
    struct Find<'t>(Option<&'t syn::PathSegment>);
    impl<'t> Visit<'t> for Find<'t> {
        fn visit_path_segment(&mut self, s: &'t syn::PathSegment) {
            if OWNING.iter().any(|n| s.ident == n) {
                self.0.get_or_insert(s);
            }
            syn::visit::visit_path_segment(self, s);
        }
        fn visit_type_bare_fn(&mut self, _: &'t syn::TypeBareFn) {}
    }
    let mut find = Find(None);
    find.visit_type(ty);
    find.0
}

/// Reports an owning container in a parameter (`what` = "argument") or result type.
fn check_owning(cx: &mut Ctxt, ty: &Type, what: &str) {
    if let Some(seg) = owning(ty) {
        let name = &seg.ident;
        cx.error_spanned_by(
            seg,
            format!(
                "`{name}` owns heap memory and is not `Copy`: a task's {what} is copied into task data, so it must be `Copy + 'static`; pass data through a `gtap::Slice<T>` argument (and write results into one), or a `Copy` value"
            ),
        );
    }
}

/// Reports a parameter type that borrows or is `impl Trait`.
fn check_param_type(cx: &mut Ctxt, ty: &Type) {
    let found = match ty {
        Type::Reference(r) => Some(Borrowed::Reference(r)),
        ty => borrowed(ty),
    };
    match found {
        Some(Borrowed::Reference(r)) => cx.error_spanned_by(
            r,
            "task function parameters cannot be or hold references: arguments are copied into the child's task-data struct and must be `'static`; pass a `gtap::Slice<T>` or a `Copy` value",
        ),
        Some(Borrowed::Lifetime(l)) => cx.error_spanned_by(
            l,
            "task function parameters cannot hold borrowed data (a lifetime other than `'static`): arguments are copied into the child's task-data struct; pass a `gtap::Slice<T>` or a `Copy` value",
        ),
        Some(Borrowed::ImplTrait(t)) => cx.error_spanned_by(
            t,
            "a task function parameter cannot be `impl Trait`: name a type parameter, `fn f<T: Trait + Copy + 'static>(x: T)`, and spawn it as `task!(f::<T>(..))`",
        ),
        None => {}
    }
}

/// Parses and checks the function.
pub(crate) fn parse_fn(cx: &mut Ctxt, item: TokenStream) -> Option<TaskFnDef> {
    let f: syn::ItemFn = match syn::parse2(item) {
        Ok(f) => f,
        Err(e) => {
            cx.syn_error(syn::Error::new(
                e.span(),
                format!("#[gtap::function] applies to a function: {e}"),
            ));
            return None;
        }
    };
    let before = cx.has_errors();
    let sig = &f.sig;
    if let Some(t) = &sig.asyncness {
        cx.error_spanned_by(t, "a task function cannot be `async`");
    }
    if let Some(t) = &sig.constness {
        cx.error_spanned_by(t, "a task function cannot be `const`");
    }
    if let Some(t) = &sig.unsafety {
        cx.error_spanned_by(t, "a task function cannot be `unsafe`");
    }
    if let Some(t) = &sig.abi {
        cx.error_spanned_by(t, "a task function cannot have an `extern` ABI");
    }
    let mut generics = sig.generics.clone();
    for p in &sig.generics.params {
        if let syn::GenericParam::Lifetime(l) = p {
            cx.error_spanned_by(
                l,
                "a task function cannot have lifetime parameters: its arguments are copied into the child's task-data struct and must be `'static`; pass a `gtap::Slice<T>` instead of a reference",
            );
        }
    }
    // Reported above; the marker and stubs are generic over types and consts only.
    generics.params = generics
        .params
        .into_iter()
        .filter(|p| !matches!(p, syn::GenericParam::Lifetime(_)))
        .collect();
    if let Some(v) = &sig.variadic {
        cx.error_spanned_by(v, "a task function cannot be variadic");
    }
    let mut attrs = Vec::new();
    for attr in &f.attrs {
        if keep_attr(attr) {
            attrs.push(as_outer(attr));
        } else {
            let name = attr.path().get_ident().map_or_else(
                || attr.path().to_token_stream().to_string(),
                ToString::to_string,
            );
            cx.error_spanned_by(
                attr,
                format!(
                    "unsupported attribute `#[{name}]` on a #[gtap::function]: a task function becomes a handle and a state machine, not a Rust function, and keeps only doc, lint (`allow`, `warn`, `deny`, `expect`) and `cfg` attributes; remove it"
                ),
            );
        }
    }
    let mut params = Vec::new();
    // Reported after `signature_ok` is known: the types are usable, so the stub impls are
    // emitted and code that spawns the function sees no cascade of errors.
    let mut pattern_errors = Vec::new();
    for input in &sig.inputs {
        match input {
            FnArg::Receiver(r) => {
                cx.error_spanned_by(
                    r,
                    "a task function cannot take `self`: make it a free function",
                );
            }
            FnArg::Typed(pt) => {
                check_param_type(cx, &pt.ty);
                check_owning(cx, &pt.ty, "argument");
                let binding = match &*pt.pat {
                    Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => Binding::Name {
                        ident: pi.ident.clone(),
                        mutable: pi.mutability.is_some(),
                    },
                    other => {
                        if let Some(e) = unsupported_pattern(other) {
                            pattern_errors.push(e);
                        }
                        Binding::Pattern(Box::new(other.clone()))
                    }
                };
                params.push(Param {
                    binding,
                    ty: (*pt.ty).clone(),
                });
            }
        }
    }
    let output = match &sig.output {
        ReturnType::Default => None,
        ReturnType::Type(_, ty) => match &**ty {
            Type::Tuple(t) if t.elems.is_empty() => None,
            Type::Reference(r) => {
                cx.error_spanned_by(r, "a task function cannot return a reference");
                None
            }
            Type::ImplTrait(t) => {
                cx.error_spanned_by(t, "a task function cannot return `impl Trait`");
                None
            }
            ty => {
                check_owning(cx, ty, "result");
                match borrowed(ty) {
                    Some(Borrowed::Reference(r)) => cx.error_spanned_by(
                        r,
                        "a task function cannot return a reference, also not inside another type: return an owned `Copy` value, or write into a `gtap::Slice<T>` argument",
                    ),
                    Some(Borrowed::Lifetime(l)) => cx.error_spanned_by(
                        l,
                        "a task function cannot return borrowed data (a lifetime other than `'static`): return an owned `Copy` value, or write into a `gtap::Slice<T>` argument",
                    ),
                    Some(Borrowed::ImplTrait(t)) => {
                        cx.error_spanned_by(t, "a task function cannot return `impl Trait`");
                    }
                    None => {}
                }
                Some(ty.clone())
            }
        },
    };
    let signature_ok = cx.has_errors() == before;
    for e in pattern_errors {
        cx.syn_error(e);
    }
    Some(TaskFnDef {
        attrs,
        vis: f.vis.clone(),
        ident: sig.ident.clone(),
        generics,
        params,
        output,
        body: *f.block,
        signature_ok,
        display: sig.ident.to_string(),
    })
}

/// Why a parameter pattern cannot be taken, if it cannot: a `ref` binding (it would borrow
/// `args`, which a resume state binds again), or a part that can fail to match (a literal, a
/// range, `|`, a path, a `&`, a macro, `Some`/`Ok`/`Err`); a user's enum variants are
/// rustc's to reject.
fn unsupported_pattern(pat: &Pat) -> Option<syn::Error> {
    use syn::visit::Visit;
    struct Find(Option<syn::Error>);
    impl<'p> Visit<'p> for Find {
        fn visit_pat(&mut self, p: &'p Pat) {
            if self.0.is_some() {
                return;
            }
            match p {
                Pat::Ident(pi) if pi.by_ref.is_some() => {
                    let id = &pi.ident;
                    self.0 = Some(syn::Error::new_spanned(
                        pi,
                        format!(
                            "a task function's parameter pattern binds by value: write `{id}`, not `ref {id}` (the arguments are `Copy`)"
                        ),
                    ));
                }
                // `Some(x)`, `Ok(x)`, `Err(x)`: the variants everyone knows (a user's enum's
                // are rustc's E0005, at the pattern).
                Pat::TupleStruct(t)
                    if t.path.segments.last().is_some_and(|s| {
                        s.ident == "Some" || s.ident == "Ok" || s.ident == "Err"
                    }) =>
                {
                    self.0 = Some(syn::Error::new_spanned(
                        t,
                        "a task function's parameter is a name (`x: T`, `mut x: T`) or an irrefutable pattern of names (`(lo, hi): (u64, u64)`, `Pair { a, b }: Pair`, `_: T`): this part could fail to match; take the value whole, `x: T`, and `match` on it in the body",
                    ));
                }
                Pat::Ident(_)
                | Pat::Tuple(_)
                | Pat::TupleStruct(_)
                | Pat::Struct(_)
                | Pat::Slice(_)
                | Pat::Paren(_)
                | Pat::Wild(_)
                | Pat::Rest(_)
                | Pat::Type(_) => syn::visit::visit_pat(self, p),
                other => {
                    self.0 = Some(syn::Error::new_spanned(
                        other,
                        "a task function's parameter is a name (`x: T`, `mut x: T`) or an irrefutable pattern of names (`(lo, hi): (u64, u64)`, `Pair { a, b }: Pair`, `_: T`): this part could fail to match; take the value whole, `x: T`, and `match` on it in the body",
                    ));
                }
            }
        }
    }
    let mut find = Find(None);
    find.visit_pat(pat);
    find.0
}
