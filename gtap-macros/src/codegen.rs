//! Codegen: the items `#[gtap::function] fn f` expands to. The only module that builds output
//! items with `quote!` (the lowering builds the step body).
//!
//! - `struct f;`: the marker, a unit struct (type and value namespace);
//! - `struct __gtap_frame_f<L0, ..>`: the task-data struct (see [`crate::lower`]);
//! - `unsafe impl TaskFn for f`: `Args`, `Output`, `ID`, `NAME`, `JOINS`, `CALLEES`, `step`,
//!   and `BLOCK = true` for a block-level function (`#[gtap::function(block)]`);
//! - `impl Arity<N> for f`.
//!
//! Generated names start with `__gtap_`; paths go through `::gtap::__private`. Callees are
//! named by value (`kind_of(&g)`) so a non-task function there gets `TaskFn`'s message.

use crate::{
    generic,
    lower::StateMachine,
    parse::{Args, TaskFnDef},
};
use proc_macro2::TokenStream;
use quote::{format_ident, quote};

/// The marker struct, with the function's documentation and lint attributes.
pub(crate) fn marker(def: &TaskFnDef) -> TokenStream {
    if let Some(m) = generic::marker(def) {
        return m;
    }
    let (attrs, vis, name) = (&def.attrs, &def.vis, &def.ident);
    quote! {
        #(#attrs)*
        #[allow(non_camel_case_types, reason = "a task function's marker is named like the function")]
        #[derive(Clone, Copy)]
        #vis struct #name;
    }
}

fn arg_types(def: &TaskFnDef) -> TokenStream {
    let tys = def.params.iter().map(|p| &p.ty);
    quote!((#(#tys,)*))
}

fn output(def: &TaskFnDef) -> TokenStream {
    match &def.output {
        Some(t) => quote!(#t),
        None => quote!(()),
    }
}

/// `const BLOCK: bool = true;` for a block-level function; nothing otherwise (the trait's
/// default is `false`).
fn block_const(block: bool) -> TokenStream {
    if block {
        quote!(
            const BLOCK: bool = true;
        )
    } else {
        TokenStream::new()
    }
}

/// A block-level function's `ARGS_READ_ONLY` (the trait's default, `false`, elsewhere: only
/// block-level workers read it).
fn args_read_only_const(block: bool, read_only: bool) -> TokenStream {
    if block && read_only {
        quote!(
            const ARGS_READ_ONLY: bool = true;
        )
    } else {
        TokenStream::new()
    }
}

/// A block-level step's pointer to its arguments (`Context::args`), and with per-thread
/// fields its thread's copy (`Context::copy`), after the probe pass.
fn args_pointer(block: bool, thread_fields: bool) -> TokenStream {
    let copy = thread_fields.then(|| {
        quote!(
            #[allow(unused_variables, reason = "a function without per-thread fields")]
            let __gtap_copy = __gtap_ctx.copy();
        )
    });
    if block {
        quote!(
            let __gtap_args_frame = ::gtap::__private::args_frame(__gtap_frame, __gtap_ctx.args());
            #copy
        )
    } else {
        TokenStream::new()
    }
}

fn arity(def: &TaskFnDef) -> TokenStream {
    let name = &def.ident;
    let n = proc_macro2::Literal::usize_unsuffixed(def.params.len());
    let (params, args, bounds) = (
        generic::impl_params(def),
        generic::args(def),
        generic::where_clause(def),
    );
    quote!(impl #params ::gtap::__private::Arity<#n> for #name #args #bounds {})
}

/// `unsafe impl<..> TaskFn for f<..> where ..` (the header of both the real and the stub impl).
fn task_fn_header(def: &TaskFnDef) -> TokenStream {
    let name = &def.ident;
    let (params, args, bounds) = (
        generic::impl_params(def),
        generic::args(def),
        generic::where_clause(def),
    );
    quote!(unsafe impl #params ::gtap::__private::TaskFn for #name #args #bounds)
}

fn id(def: &TaskFnDef) -> TokenStream {
    let path_str = format!("::{}", def.display);
    let base = quote!(::gtap::__private::kind_id(
        concat!(module_path!(), #path_str)
    ));
    generic::id(def, &base)
}

/// Everything but the marker, for a function that passed every check.
pub(crate) fn items(
    def: &TaskFnDef,
    args: &Args,
    callees: &[&syn::ExprPath],
    sm: &StateMachine,
) -> TokenStream {
    let block = block_const(args.block);
    let seq = crate::seq::items(def, args.block);
    let read_only = args_read_only_const(args.block, sm.args_read_only);
    let name = &def.ident;
    let name_str = &def.display;
    let header = task_fn_header(def);
    let id = id(def);
    let frame = format_ident!("__gtap_frame_{}", name);
    let generics: Vec<_> = sm
        .fields
        .iter()
        .map(|f| &f.generic)
        .chain(sm.type_fields.iter().map(|(_, g)| g))
        .collect();
    let field_names = sm.fields.iter().map(|f| &f.name);
    let field_generics = sm.fields.iter().map(|f| &f.generic);
    let type_names = sm.type_fields.iter().map(|(n, _)| n);
    let type_generics = sm.type_fields.iter().map(|(_, g)| g);
    let joins = sm.joins;
    let limit = match &args.max_frame_bytes {
        Some(e) => quote!({ #e }),
        None => quote!({ ::gtap::__private::DEFAULT_MAX_FRAME_BYTES }),
    };
    let infer = generics.iter().map(|_| quote!(_));
    let (fn_params, fn_args) = (generic::frame_params(def), generic::frame_args(def));
    let frame_ty = if generics.is_empty() && !generic::is_generic(def) {
        quote!(#frame)
    } else {
        quote!(#frame<#fn_args #(#infer),*>)
    };
    let frame_generics = if generics.is_empty() && !generic::is_generic(def) {
        quote!()
    } else {
        quote!(<#fn_params #(#generics),*>)
    };
    let args_ptr = args_pointer(args.block, sm.thread_fields);
    let phantom = generic::frame_phantom(def);
    let body = &sm.body;
    // The user's `allow`/`warn`/`deny` on the function reach its body, now the step.
    // (`expect` stays on the marker alone: a second copy could go unfulfilled.)
    let body_lints = def.attrs.iter().filter(|a| {
        ["allow", "warn", "deny"]
            .iter()
            .any(|n| a.path().is_ident(n))
    });
    let arity = arity(def);
    let args = arg_types(def);
    let out = output(def);
    let callees = callees.iter().map(|c| {
        let span = c
            .path
            .segments
            .last()
            .map_or_else(proc_macro2::Span::call_site, |s| s.ident.span());
        quote::quote_spanned!(span=> ::gtap::__private::kind_of(&#c))
    });
    let source = source(def);
    quote! {
        #[repr(C)]
        #[allow(non_camel_case_types, reason = "named after the task function")]
        #[allow(dead_code, reason = "result slots are written by child tasks through raw pointers")]
        struct #frame #frame_generics {
            args: #args,
            #phantom
            #(#field_names: #field_generics,)*
            #(#type_names: ::core::marker::PhantomData<#type_generics>,)*
        }

        // SAFETY: generated by #[gtap::function]: `step` follows the protocol of
        // `gtap::task`, `args` is the first field of the #[repr(C)] task-data struct, and the
        // probe pass reports that struct's layout.
        #header {
            type Args = #args;
            type Output = #out;
            const ID: ::gtap::__private::KindId = #id;
            const NAME: &'static str = #name_str;
            const JOINS: bool = #joins;
            #source
            const CALLEES: &'static [::gtap::__private::KindId] =
                &[#(#callees),*];
            #block
            #read_only

            #[allow(
                unused_mut,
                unused_assignments,
                unused_labels,
                unreachable_code,
                clippy::all,
                reason = "each resume state re-binds locals and repeats the code after it"
            )]
            #(#body_lints)*
            // On the GPU the step is inlined into the worker's loop: as a call, its context
            // (and the worker state it points to) would live in local memory.
            #[cfg_attr(target_arch = "nvptx64", inline(always))]
            unsafe fn step<__GtapCtx: ::gtap::__private::Context>(
                __gtap_ctx: &mut __GtapCtx,
            ) -> ::gtap::__private::Step {
                use ::gtap::__private::Context as _;
                let __gtap_frame = __gtap_ctx.frame() as *mut #frame_ty;
                if <__GtapCtx as ::gtap::__private::Context>::PROBE {
                    let (__gtap_size, __gtap_align) =
                        ::gtap::__private::frame_layout::<_, #limit>(__gtap_frame);
                    __gtap_ctx.report_layout(__gtap_size, __gtap_align);
                    return ::gtap::__private::Step::Done;
                }
                #args_ptr
                let __gtap_result =
                    unsafe { ::gtap::__private::ResultSlot::<#out>::new(__gtap_ctx.result_dst()) };
                #body
            }

            #seq
        }

        #arity
    }
}

/// Stub impls emitted next to the errors, so uses of the function elsewhere do not cascade.
pub(crate) fn fallback(def: &TaskFnDef, block: bool) -> TokenStream {
    let block = block_const(block);
    let name_str = &def.display;
    let header = task_fn_header(def);
    let id = id(def);
    let args = arg_types(def);
    let out = output(def);
    let arity = arity(def);
    quote! {
        // SAFETY: a stub next to a compile error; the program does not build.
        #header {
            type Args = #args;
            type Output = #out;
            const ID: ::gtap::__private::KindId = #id;
            const NAME: &'static str = #name_str;
            const JOINS: bool = false;
            const CALLEES: &'static [::gtap::__private::KindId] = &[];
            #block
            unsafe fn step<__GtapCtx: ::gtap::__private::Context>(
                __gtap_ctx: &mut __GtapCtx,
            ) -> ::gtap::__private::Step {
                ::gtap::__private::invalid_state(__gtap_ctx)
            }
        }
        #arity
    }
}

/// `const SOURCE`: `file!()` and `line!()` spanned at the function's name and at its body's
/// closing brace, so that they name the user's lines.
fn source(def: &TaskFnDef) -> TokenStream {
    let first = def.ident.span();
    let last = def.body.brace_token.span.close();
    let file = quote::quote_spanned!(first=> ::core::file!());
    let first_line = quote::quote_spanned!(first=> ::core::line!());
    let last_line = quote::quote_spanned!(last=> ::core::line!());
    quote! {
        const SOURCE: ::gtap::__private::Source = ::gtap::__private::Source {
            file: #file,
            first_line: #first_line,
            last_line: #last_line,
        };
    }
}
