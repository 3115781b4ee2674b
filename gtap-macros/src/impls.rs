//! `#[gtap::tasks]` on an inherent `impl`: its associated functions marked
//! `#[gtap::function]` become task functions that the code names as `Type::f` (and `Self::f`
//! inside the `impl`).
//!
//! A task function's marker is a struct and its task-data struct another, which an `impl`
//! cannot hold; an attribute on the function alone cannot see that it sits in one. This one
//! sees the whole `impl`, so it moves each marked function out as a module-level task function
//! with a generated name (`__gtap_Type_f`), whose `TaskFn::NAME` and kind ID still say
//! `Type::f`, and leaves in the `impl` an associated constant `f` holding its marker:
//! `task!(Type::f(..))`, `task!(Self::f(..))`, `gtap::program!(P = [Type::f])` and
//! `rt.run::<P, _>(Type::f, args)` all take markers by value, so they work unchanged.
//!
//! # Invariants
//!
//! - The items of the `impl` that are not marked stay in it, in their order.
//! - `Self` in a moved function's signature or body means the `impl`'s type (replaced token by
//!   token before the function pipeline runs); a method (a `self` receiver), a generic task
//!   function and a generic or trait `impl` are spanned errors of this macro.

use proc_macro2::{Group, TokenStream, TokenTree};
use quote::{format_ident, quote, ToTokens};
use syn::{spanned::Spanned, ImplItem, ItemImpl};

use crate::expand::expand_as;

/// Expands `#[gtap::tasks(args)] item`.
pub(crate) fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    match expand_impl(args, item) {
        Ok(out) => out,
        Err(e) => e.to_compile_error(),
    }
}

fn expand_impl(args: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !args.is_empty() {
        return Err(syn::Error::new(
            args.span(),
            "#[gtap::tasks] takes no arguments: put them on each #[gtap::function(..)]",
        ));
    }
    let mut imp: ItemImpl = syn::parse2(item).map_err(|e| {
        syn::Error::new(
            e.span(),
            "#[gtap::tasks] goes on an inherent `impl Type { .. }` whose task functions carry #[gtap::function]",
        )
    })?;
    if let Some((_, path, _)) = &imp.trait_ {
        return Err(syn::Error::new(
            path.span(),
            "#[gtap::tasks] goes on an inherent `impl Type { .. }`, not a trait's impl: a trait cannot require task functions",
        ));
    }
    if !imp.generics.params.is_empty() {
        return Err(syn::Error::new(
            imp.generics.span(),
            "task functions of a generic `impl` are not supported: define them at module level with the type parameters on the function (`#[gtap::function] fn f<T: ..>(..)`)",
        ));
    }
    let type_name = type_name(&imp.self_ty)?;
    let self_ty = imp.self_ty.to_token_stream();
    let mut moved = TokenStream::new();
    let mut kept = Vec::with_capacity(imp.items.len());
    for item in std::mem::take(&mut imp.items) {
        let ImplItem::Fn(mut f) = item else {
            kept.push(item);
            continue;
        };
        let Some(at) = f.attrs.iter().position(is_task_attr) else {
            kept.push(ImplItem::Fn(f));
            continue;
        };
        let attr = f.attrs.remove(at);
        let args = match &attr.meta {
            syn::Meta::Path(_) => TokenStream::new(),
            syn::Meta::List(list) => list.tokens.clone(),
            syn::Meta::NameValue(nv) => {
                return Err(syn::Error::new(
                    nv.span(),
                    "write #[gtap::function] or #[gtap::function(block, max_frame_bytes = N)]",
                ))
            }
        };
        if let Some(receiver) = f.sig.receiver() {
            return Err(syn::Error::new(
                receiver.span(),
                "a task function takes no `self`: pass the data it needs as arguments (a task may run on another thread or GPU warp than its parent)",
            ));
        }
        if !f.sig.generics.params.is_empty() {
            return Err(syn::Error::new(
                f.sig.generics.span(),
                "a generic task function cannot live in an `impl` (its marker would be a generic constant): define it at module level",
            ));
        }
        let name = f.sig.ident.clone();
        let marker = format_ident!("__gtap_{}_{}", type_name, name, span = name.span());
        let docs: Vec<_> = f
            .attrs
            .iter()
            .filter(|a| a.path().is_ident("doc") || a.path().is_ident("cfg"))
            .cloned()
            .collect();
        let vis = f.vis.clone();
        let mut sig = f.sig.clone();
        sig.ident = marker.clone();
        let (attrs, block) = (&f.attrs, &f.block);
        let free = replace_self(
            quote! {
                #(#attrs)*
                #vis #sig #block
            },
            &self_ty,
        );
        moved.extend(expand_as(args, free, Some(format!("{type_name}::{name}"))));
        let constant: ImplItem = syn::parse2(quote! {
            #(#docs)*
            #[allow(non_upper_case_globals, reason = "a task function's marker is named like the function")]
            #vis const #name: #marker = #marker;
        })?;
        kept.push(constant);
    }
    imp.items = kept;
    Ok(quote! {
        #imp
        #moved
    })
}

/// Whether `attr` is `#[gtap::function]` or `#[function]` (with or without arguments).
fn is_task_attr(attr: &syn::Attribute) -> bool {
    let path: Vec<String> = attr
        .path()
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    path == ["gtap", "function"] || path == ["function"]
}

/// The last segment of the `impl`'s type, for the generated names.
fn type_name(ty: &syn::Type) -> syn::Result<syn::Ident> {
    if let syn::Type::Path(p) = ty {
        if let Some(last) = p.path.segments.last() {
            if last.arguments.is_empty() {
                return Ok(last.ident.clone());
            }
        }
    }
    Err(syn::Error::new(
        ty.span(),
        "#[gtap::tasks] needs an `impl` of a named type without generic arguments (`impl Tree { .. }`)",
    ))
}

/// `tokens` with every `Self` replaced by `self_ty` (the moved function is no longer in the
/// `impl`, where `Self` meant the type).
fn replace_self(tokens: TokenStream, self_ty: &TokenStream) -> TokenStream {
    tokens
        .into_iter()
        .flat_map(|tt| -> Vec<TokenTree> {
            match tt {
                TokenTree::Ident(id) if id == "Self" => {
                    // The type, spanned at the use (errors point where `Self` was written).
                    let span = id.span();
                    self_ty
                        .clone()
                        .into_iter()
                        .map(|mut t| {
                            t.set_span(span);
                            t
                        })
                        .collect()
                }
                TokenTree::Group(g) => {
                    let mut inner = Group::new(g.delimiter(), replace_self(g.stream(), self_ty));
                    inner.set_span(g.span());
                    vec![TokenTree::Group(inner)]
                }
                other => vec![other],
            }
        })
        .collect()
}
