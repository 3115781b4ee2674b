//! The pipeline, read top to bottom: parse → uniform (the block API rules) → structure →
//! check → cfg → assigned (a second assignment rustc cannot see) → liveness → lower → codegen. On any error the output is the marker struct, stub impls (when the signature is
//! usable) and the errors, so that code using the function sees no cascade of rustc errors.

use crate::{
    assigned, cfg, check, codegen,
    diag::Ctxt,
    liveness, lower,
    markers::Marker,
    parse::{parse_args, parse_fn},
    structure::structure,
    uniform,
};
use proc_macro2::TokenStream;
use quote::quote;

/// Expands `#[gtap::function(args)] item`.
pub fn expand(args: TokenStream, item: TokenStream) -> TokenStream {
    if let Some(out) = associated(&item) {
        return out;
    }
    expand_as(args, item, None)
}

/// Expands `#[gtap::function(args)] item`, the task named `display` in errors, `TaskFn::NAME`
/// and its kind ID when given (an associated function moved out of its `impl`, `impls.rs`).
pub(crate) fn expand_as(
    args: TokenStream,
    item: TokenStream,
    display: Option<String>,
) -> TokenStream {
    let mut cx = Ctxt::default();
    let args = parse_args(&mut cx, args);
    let Some(mut def) = parse_fn(&mut cx, item) else {
        return cx
            .check()
            .err()
            .map(|e| e.to_compile_error())
            .unwrap_or_default();
    };
    if let Some(display) = display {
        def.display = display;
    }
    uniform::check(&mut cx, &def.body, args.block);
    let structured = structure(&mut cx, def.body.clone(), def.output.is_none());
    let param_names: Vec<_> = def.params.iter().flat_map(|p| p.names()).collect();
    let param_names: Vec<_> = param_names.iter().map(|(ident, _)| ident).collect();
    check::check_body(
        &mut cx,
        &structured.body,
        &def.ident,
        &param_names,
        &structured.markers,
    );
    let mut generated = TokenStream::new();
    if !cx.has_errors() {
        let graph = cfg::build(&mut cx, &structured.markers, &def.params, &structured.body);
        assigned::check(&mut cx, &graph, &structured.markers);
        let info = liveness::analyze(&mut cx, &graph);
        if !cx.has_errors() {
            let sm = lower::lower(
                &mut cx,
                &def,
                args.block,
                &structured.body,
                &structured.markers,
                &graph,
                &info,
            );
            let callees: Vec<&syn::ExprPath> = structured
                .markers
                .iter()
                .filter_map(|m| match m {
                    Marker::Spawn(s) => Some(&s.func),
                    Marker::Wait(_) => None,
                })
                .collect();
            generated = codegen::items(&def, &args, &callees, &sm);
        }
    }
    let marker = codegen::marker(&def);
    match cx.check() {
        Ok(()) => quote!(#marker #generated),
        Err(e) => {
            let errors = e.to_compile_error();
            let stubs = if def.signature_ok {
                codegen::fallback(&def, args.block)
            } else {
                TokenStream::new()
            };
            quote!(#marker #stubs #errors)
        }
    }
}

/// A function that names `Self` is an associated function (or a method) of a type: the macro
/// cannot emit its marker struct inside an `impl`, so it reports that with the way to write it,
/// and leaves the function with an empty body so that the `impl` around it still compiles.
/// (Without `Self` the attribute cannot tell; rustc then reports "struct is not supported in
/// `trait`s or `impl`s", see `docs/frontend.md`.)
fn associated(item: &TokenStream) -> Option<TokenStream> {
    let span = find_self(item.clone())?;
    let f: syn::ItemFn = syn::parse2(item.clone()).ok()?;
    let name = &f.sig.ident;
    let error = syn::Error::new(
        span,
        format!(
            "a #[gtap::function] in an `impl` needs #[gtap::tasks] on that `impl` (its marker is a struct, which an `impl` cannot hold; #[gtap::tasks] moves it out and keeps `Type::{}` and `Self`), or define it at module level without `Self`, e.g. `fn {}_task(..)`, and spawn it with `task!({}_task(..))`",
            name, name, name
        ),
    )
    .to_compile_error();
    let (attrs, vis, sig) = (&f.attrs, &f.vis, &f.sig);
    Some(quote! {
        #(#attrs)*
        #[allow(unused_variables, reason = "the body was replaced after an error")]
        #vis #sig { loop {} }
        #error
    })
}

fn find_self(tokens: TokenStream) -> Option<proc_macro2::Span> {
    tokens.into_iter().find_map(|tt| match tt {
        proc_macro2::TokenTree::Group(g) => find_self(g.stream()),
        proc_macro2::TokenTree::Ident(id) if id == "Self" => Some(id.span()),
        _ => None,
    })
}
