//! The pipeline, read top to bottom: parse → uniform (the block API rules) → structure →
//! check → cfg → liveness → lower → codegen. On any error the output is the marker struct, stub impls (when the signature is
//! usable) and the errors, so that code using the function sees no cascade of rustc errors.

use crate::{
    cfg, check, codegen,
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
    let mut cx = Ctxt::default();
    let args = parse_args(&mut cx, args);
    let Some(def) = parse_fn(&mut cx, item) else {
        return cx
            .check()
            .err()
            .map(|e| e.to_compile_error())
            .unwrap_or_default();
    };
    uniform::check(&mut cx, &def.body, args.block);
    let structured = structure(&mut cx, def.body.clone(), def.output.is_none());
    check::check_body(&mut cx, &structured.body);
    let params: Vec<_> = def
        .params
        .iter()
        .map(|p| (p.ident.clone(), p.mutable))
        .collect();
    let mut generated = TokenStream::new();
    if !cx.has_errors() {
        let graph = cfg::build(&mut cx, &structured.markers, &params, &structured.body);
        let info = liveness::analyze(&mut cx, &graph);
        if !cx.has_errors() {
            let sm = lower::lower(
                &mut cx,
                &def,
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
