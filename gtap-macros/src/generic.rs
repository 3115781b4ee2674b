//! The type and const parameters of a generic task function (`fn sum<T: Add, const N: usize>`)
//! as the generated items use them.
//!
//! - the marker is an `enum sum<T, const N: usize> { sum, .. }` whose unit variant is
//!   glob-imported into the value namespace, so `sum::<u64, 4>` (and `sum`, with the arguments
//!   inferred from a use) is a value of the marker type, as `fib` is for a plain function;
//! - the impls are generic over the function's parameters, with `T: Copy + 'static` added for
//!   every type parameter (a task's arguments and result are copied between tasks);
//! - the task-data struct takes the function's parameters first, then the inferred ones;
//! - each instantiation's `ID` mixes the size and alignment of each type argument and the value
//!   of each const argument into the function's id (`kind_id_mix`).
//!
//! Invariant: for a non-generic function every helper returns empty tokens, so its expansion
//! is unchanged.

use crate::parse::TaskFnDef;
use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::GenericParam;

/// Whether the function has type or const parameters.
pub(crate) fn is_generic(def: &TaskFnDef) -> bool {
    !def.generics.params.is_empty()
}

/// `<T: Bounds, const N: usize>` for `impl` headers.
pub(crate) fn impl_params(def: &TaskFnDef) -> TokenStream {
    let (impl_generics, _, _) = def.generics.split_for_impl();
    quote!(#impl_generics)
}

/// `<T, N>` after the marker's name.
pub(crate) fn args(def: &TaskFnDef) -> TokenStream {
    let (_, ty_generics, _) = def.generics.split_for_impl();
    quote!(#ty_generics)
}

/// The where clause of the impls: the function's own, plus `T: Copy + 'static` per type
/// parameter.
pub(crate) fn where_clause(def: &TaskFnDef) -> TokenStream {
    let own = def
        .generics
        .where_clause
        .as_ref()
        .map(|w| {
            let p = w.predicates.iter();
            quote!(#(#p,)*)
        })
        .unwrap_or_default();
    let added = type_params(def).map(|t| quote!(#t: ::core::marker::Copy + 'static,));
    if !is_generic(def) {
        return TokenStream::new();
    }
    quote!(where #own #(#added)*)
}

fn type_params(def: &TaskFnDef) -> impl Iterator<Item = &syn::Ident> {
    def.generics.params.iter().filter_map(|p| match p {
        GenericParam::Type(t) => Some(&t.ident),
        _ => None,
    })
}

/// The function's parameters without bounds or defaults (`T, const N: usize`), for the
/// task-data struct's declaration; each followed by a comma.
pub(crate) fn frame_params(def: &TaskFnDef) -> TokenStream {
    let ps = def.generics.params.iter().filter_map(|p| match p {
        GenericParam::Type(t) => {
            let id = &t.ident;
            Some(quote!(#id,))
        }
        GenericParam::Const(c) => {
            let (id, ty) = (&c.ident, &c.ty);
            Some(quote!(const #id: #ty,))
        }
        GenericParam::Lifetime(_) => None,
    });
    quote!(#(#ps)*)
}

/// The function's parameters as arguments (`T, N`), each followed by a comma.
pub(crate) fn frame_args(def: &TaskFnDef) -> TokenStream {
    let ps = def.generics.params.iter().filter_map(|p| match p {
        GenericParam::Type(t) => Some(&t.ident),
        GenericParam::Const(c) => Some(&c.ident),
        GenericParam::Lifetime(_) => None,
    });
    quote!(#(#ps,)*)
}

/// A zero-sized field that uses every type parameter (one may appear only in the result).
pub(crate) fn frame_phantom(def: &TaskFnDef) -> TokenStream {
    let ts: Vec<_> = type_params(def).collect();
    if ts.is_empty() {
        return TokenStream::new();
    }
    quote!(__gtap_generics: ::core::marker::PhantomData<fn() -> (#(#ts,)*)>,)
}

/// The marker for a generic function (see the module docs); `None` for a plain one.
pub(crate) fn marker(def: &TaskFnDef) -> Option<TokenStream> {
    if !is_generic(def) {
        return None;
    }
    let (attrs, vis, name) = (&def.attrs, &def.vis, &def.ident);
    let params = &def.generics.params;
    let args = args(def);
    let impl_params = impl_params(def);
    let hidden = format_ident!("__gtap_phantom_{}", name);
    let phantom = frame_phantom_types(def);
    Some(quote! {
        #(#attrs)*
        #[allow(non_camel_case_types, reason = "a task function's marker is named like the function")]
        #vis enum #name<#params> {
            /// The task function's value (named in `task!`, `program!` and `Runtime::run`).
            #name,
            #[doc(hidden)]
            #hidden(::core::convert::Infallible, ::core::marker::PhantomData<#phantom>),
        }
        #[allow(unused_imports, reason = "the marker value may be unused in this module")]
        #vis use self::#name::*;
        impl #impl_params ::core::clone::Clone for #name #args {
            fn clone(&self) -> Self {
                *self
            }
        }
        impl #impl_params ::core::marker::Copy for #name #args {}
    })
}

/// `fn() -> (T, ..)`: mentions every type parameter; const parameters need no mention.
fn frame_phantom_types(def: &TaskFnDef) -> TokenStream {
    let ts = type_params(def);
    quote!(fn() -> (#(#ts,)*))
}

/// The `ID` of one instantiation.
pub(crate) fn id(def: &TaskFnDef, base: &TokenStream) -> TokenStream {
    if !is_generic(def) {
        return base.clone();
    }
    let parts = def.generics.params.iter().filter_map(|p| match p {
        GenericParam::Type(t) => {
            let id = &t.ident;
            Some(quote!(
                ::core::mem::size_of::<#id>() as u64,
                ::core::mem::align_of::<#id>() as u64,
            ))
        }
        GenericParam::Const(c) => {
            let id = &c.ident;
            Some(quote!(#id as u64,))
        }
        GenericParam::Lifetime(_) => None,
    });
    quote!(::gtap::__private::kind_id_mix(#base, &[#(#parts)*]))
}
