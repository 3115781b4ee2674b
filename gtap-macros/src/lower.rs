//! Lowering: the structured body and the analyses become the step function's state machine.
//!
//! # States
//!
//! State `0` starts the task; the resume state of the `i`-th `taskwait!()` (source order) is
//! `i + 1`. Each state's code is ordinary structured Rust:
//!
//! - **State 0** is the body with markers replaced: the parameters are read from `args`, a
//!   `task!` writes its arguments into a child (its result slot is a field of the task-data
//!   struct), a `taskwait!()` saves the locals live after it that are not joined results,
//!   calls `Context::wait` and returns `Step::Suspended` when there are children to wait for;
//!   otherwise it jumps to its resume state (`__gtap_state = k; continue '__gtap_dispatch;`).
//!   Code after a wait in the same block is therefore never reached and not emitted.
//! - **State k** resumes after wait `k - 1`. Its code is built inside-out along the path to the
//!   wait: the statements after the wait in its block; at each enclosing level the locals live
//!   after the wait that were declared at that level are restored first (`let x = (*frame).x;`,
//!   so shadowing needs no renaming), then the enclosing construct is mirrored: a block or
//!   `if`/`match` branch becomes a block, a loop becomes
//!   `let mut __gtap_first = true; 'l: loop { if __gtap_first { __gtap_first = false; REST }
//!   else { FULL ITERATION } }` so `break`/`continue` keep their meaning; then the rest of the
//!   enclosing block follows.
//! - A resume state holds only the code its wait can reach (the analyses declare only the
//!   locals named there): the rest of an enclosing block only when the construct on the path
//!   can complete after the wait (not after `if c { ..; taskwait!(); return r; }`), a loop's
//!   full iterations only when the wait can reach its next one (else it is `'l: loop { REST }`).
//!   Statements after one that never completes are dropped everywhere ([`Body::prune`]).
//!
//! # Task-data struct
//!
//! `#[repr(C)] struct __gtap_frame_f<L0, ..> { args: (params..), x: L0, .. }`: `args` first
//! (offset 0, written by the spawner), then one field per local that is saved across some wait
//! or receives a task result, in declaration order. A parameter saved across a wait is stored
//! back into its `args` element. The field types are generic and inferred by rustc from the
//! `save`/`spawn` calls in the step function.
//!
//! A block-level function reads its parameters that are not `mut` through `__gtap_args_frame`
//! (`Context::args`), the others through its thread's `__gtap_frame`. When no `mut` parameter
//! is saved or joined at a wait (`StateMachine::args_read_only`, emitted as
//! `TaskFn::ARGS_READ_ONLY`), no step writes `args` after the spawn, and all threads of the
//! block read the one copy the spawner wrote instead of copying it first.

mod hidden;
mod markers;
mod resume;
mod stored;

use crate::{
    cfg::{Body, LocalId},
    diag::Ctxt,
    liveness::{BitSet, LivenessInfo},
    markers::{Marker, Spawn, Target, Wait},
    parse::{Binding, TaskFnDef},
    structure::placeholder_id,
    tokens::{contains_marker, scan_idents, TYPED},
};
use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned, ToTokens};
use syn::{spanned::Spanned, visit_mut::VisitMut, Block, Expr, Stmt};

/// A field of the task-data struct holding a local.
pub(crate) struct Field {
    /// The local it holds.
    pub(crate) local: LocalId,
    /// The field's name (the local's name, suffixed when two locals share it).
    pub(crate) name: Ident,
    /// Its generic type parameter.
    pub(crate) generic: Ident,
}

/// What codegen needs to emit the step function and the task-data struct.
pub(crate) struct StateMachine {
    /// Fields after `args`, in declaration order.
    pub(crate) fields: Vec<Field>,
    /// Zero-sized `PhantomData` fields (name, generic) that give the temporaries of `let`s
    /// over constructs one type in every state (see `RewriteTyped`).
    pub(crate) type_fields: Vec<(Ident, Ident)>,
    /// Whether there is any wait (then the body is a dispatch loop).
    pub(crate) joins: bool,
    /// No step writes `args` after the spawn: no `mut` parameter is saved or joined at a
    /// wait. A block-level kind's threads then all read one copy of the arguments (see
    /// [`Lower::args_place`]).
    pub(crate) args_read_only: bool,
    /// The fields after `args` are per thread, laid out field by field (see
    /// [`field_place`]): a joining block-level function whose arguments are read only.
    pub(crate) thread_fields: bool,
    /// The step function's code after the prologue.
    pub(crate) body: TokenStream,
}

struct Lower<'a> {
    def: &'a TaskFnDef,
    markers: &'a [Marker],
    body: &'a Body,
    info: &'a LivenessInfo,
    fields: Vec<Field>,
    /// A block-level function: its parameters that are not `mut` are read through
    /// `__gtap_args_frame` (`Context::args`), the others through its thread's `__gtap_frame`.
    block: bool,
    /// [`StateMachine::thread_fields`].
    thread_fields: bool,
    /// The results declared by their spawn (`let a = task!(..)`) in the code emitted so far
    /// for the current state: they have no local in it (their child writes their field), so
    /// no wait after them in that code saves them.
    spawned: std::cell::RefCell<BitSet>,
}

/// Lowers `block` (after [`crate::structure`], whose markers are `markers`).
pub(crate) fn lower(
    cx: &mut Ctxt,
    def: &TaskFnDef,
    block_level: bool,
    block: &Block,
    markers: &[Marker],
    body: &Body,
    info: &LivenessInfo,
) -> StateMachine {
    let mut block = block.clone();
    body.prune(&mut block);
    hidden::tag(&mut block, body, info);
    // The body's own items (`fn`, `const`, `struct`, ..) go first, once, where every state
    // sees them: a state emits only the statements after its wait. Each leaves an empty item
    // behind, so that statement indices (the waits' paths) stay as they are.
    let mut items = TokenStream::new();
    for s in &mut block.stmts {
        if let Stmt::Item(item) = s {
            items.extend(item.to_token_stream());
            *item = syn::Item::Verbatim(TokenStream::new());
        }
    }
    RewriteReturn.visit_block_mut(&mut block);
    let mut typed = RewriteTyped::default();
    typed.visit_block_mut(&mut block);
    let mut wanted = BitSet::default();
    for live in &info.live_after {
        for l in live.iter() {
            wanted.insert(l);
        }
    }
    for l in body.spawn_target.iter().flatten() {
        wanted.insert(*l);
    }
    let mut fields: Vec<Field> = Vec::new();
    for l in wanted.iter() {
        let decl = &body.locals[l.0];
        if decl.param.is_some() {
            continue;
        }
        // A raw identifier (`r#match`) names its field without the `r#`, which a keyword
        // could not take as a field name.
        let base = decl.ident.to_string();
        let base = base
            .strip_prefix("r#")
            .map_or(base.clone(), |b| format!("__gtap_raw_{b}"));
        let mut name = base.clone();
        let mut k = 1;
        while name == "args" || fields.iter().any(|f| f.name == name) {
            name = format!("{base}_{k}");
            k += 1;
        }
        let generic = format_ident!("L{}", fields.len());
        fields.push(Field {
            local: l,
            name: Ident::new(&name, Span::call_site()),
            generic,
        });
    }
    let args_read_only = args_read_only(body, info);
    let thread_fields = block_level && !body.waits.is_empty() && args_read_only;
    for f in fields.iter().filter(|f| body.stored_writes(f.local)) {
        let (id, name) = (&body.locals[f.local.0].ident, &f.name);
        stored::StoreAssigned::new(id.clone(), field_place(name, thread_fields))
            .visit_block_mut(&mut block);
    }
    let lw = Lower {
        def,
        markers,
        body,
        info,
        fields,
        block: block_level,
        thread_fields,
        spawned: std::cell::RefCell::default(),
    };
    let joins = !body.waits.is_empty();
    let start = lw.start(&block);
    let code = if joins {
        let resumes = (0..body.waits.len()).map(|w| {
            let state = state_lit(w);
            let code = lw.resume(cx, &block, w);
            quote!(#state => { #code })
        });
        quote! {
            #items
            let mut __gtap_state = __gtap_ctx.state();
            '__gtap_dispatch: loop {
                match __gtap_state {
                    0 => { #start }
                    #(#resumes)*
                    _ => return ::gtap::__private::invalid_state(__gtap_ctx),
                }
            }
        }
    } else {
        quote!(#items #start)
    };
    let type_fields = typed
        .temps
        .into_iter()
        .enumerate()
        .map(|(k, name)| (name, format_ident!("T{}", k)))
        .collect();
    StateMachine {
        fields: lw.fields,
        type_fields,
        joins,
        args_read_only,
        thread_fields,
        body: code,
    }
}

/// `__gtap_typed!(tmp)` → `typed(tmp, &raw mut (*frame).__gtap_type_tmp)`: each `let` over a
/// construct with markers reads its value from a temporary declared in every state that
/// reaches it, and assigned in only some of them (in state 0 the assignments after a wait are
/// not emitted). The zero-sized `PhantomData<T>` field gives all states one type `T` for it.
#[derive(Default)]
struct RewriteTyped {
    /// The field names, in order.
    temps: Vec<Ident>,
}

impl VisitMut for RewriteTyped {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Macro(m) = e {
            if m.mac.path.is_ident(TYPED) {
                let Ok(tmp) = syn::parse2::<Ident>(m.mac.tokens.clone()) else {
                    return;
                };
                let field = format_ident!("__gtap_type_{}", tmp);
                self.temps.push(field.clone());
                *e = Expr::Verbatim(quote! {
                    ::gtap::__private::typed(#tmp, unsafe { &raw mut (*__gtap_frame).#field })
                });
                return;
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The place of the field `name` of the task-data struct. With `thread_fields` (the threads of
/// a block-level task, `Context::copy` = `(t, n)`), field `f` of the struct at offset `o` is
/// an array of `n` elements at `o * n`, and thread `t` uses element `t`: a warp's accesses to
/// one field are contiguous (one request for 32 threads' 8-byte values, not 32), and copy 0's
/// `args` (`o = 0`, element 0) is where the spawner wrote them. Otherwise `(*frame).name`.
fn field_place(name: &Ident, thread_fields: bool) -> TokenStream {
    if thread_fields {
        quote!((*::gtap::__private::thread_field(
            __gtap_frame,
            &raw mut (*__gtap_frame).#name,
            __gtap_copy
        )))
    } else {
        quote!((*__gtap_frame).#name)
    }
}

/// Whether no wait saves a `mut` parameter into `args`, or restores one from it: every
/// parameter live after a wait (or joined there, its result written into `args`) is not `mut`.
fn args_read_only(body: &Body, info: &LivenessInfo) -> bool {
    let writes_args = |set: &BitSet| {
        set.iter().any(|l| {
            let decl = &body.locals[l.0];
            decl.param.is_some() && decl.mutable
        })
    };
    !(info.live_after.iter().any(writes_args)
        || info.joined.iter().any(writes_args)
        || info.saved_at_hider.iter().any(writes_args))
}

fn state_lit(wait: usize) -> syn::LitInt {
    syn::LitInt::new(&(wait + 1).to_string(), Span::call_site())
}

/// The names a `let PAT;` (or `let PAT: T;`) without a value declares (`None` for any other
/// statement).
fn value_less_decl(s: &Stmt) -> Option<Vec<Ident>> {
    let Stmt::Local(local) = s else { return None };
    if local.init.is_some() {
        return None;
    }
    let mut found = Vec::new();
    crate::cfg::bindings(&local.pat, None, true, &mut found);
    Some(found.into_iter().map(|(ident, _, _)| ident).collect())
}

/// The code of a statement list, without the `let x;` (no value) that the code after it in
/// this state does not name: `let x; taskwait!(); x = f(r);` declares `x` in state 0, where
/// nothing assigns it, and rustc could not infer its type there (E0282; with a type, `let x:
/// u64;`, an unused variable); the resume state declares it again where it is written (see
/// `Lower::restores`).
fn without_unnamed_decls(parts: Vec<(Option<Vec<Ident>>, TokenStream)>) -> TokenStream {
    let mut out = TokenStream::new();
    for (i, (decl, code)) in parts.iter().enumerate() {
        if let Some(idents) = decl {
            let after: TokenStream = parts[i + 1..].iter().map(|(_, c)| c.clone()).collect();
            if !idents.iter().any(|id| names(&after, id)) {
                continue;
            }
        }
        out.extend(code.clone());
    }
    out
}

/// `return e` → `return __gtap_result.finish(e)` and `e?` → `match branch(e) { Ok(v) => v,
/// Err(r) => return __gtap_result.finish(from_residual(r)) }`, outside closures, async blocks
/// and items.
struct RewriteReturn;

impl VisitMut for RewriteReturn {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Closure(_) | Expr::Async(_) => {}
            Expr::Try(t) => {
                self.visit_expr_mut(&mut t.expr);
                let value = &t.expr;
                let span = t.question_token.span;
                let result = result_slot(span);
                let tokens = quote_spanned! {span=>
                    match ::gtap::__private::branch(#value) {
                        ::core::result::Result::Ok(__gtap_v) => __gtap_v,
                        ::core::result::Result::Err(__gtap_r) => {
                            return #result.finish(::gtap::__private::from_residual(__gtap_r))
                        }
                    }
                };
                *e = Expr::Verbatim(tokens);
            }
            Expr::Return(r) => {
                if let Some(x) = &mut r.expr {
                    self.visit_expr_mut(x);
                }
                let value = r
                    .expr
                    .take()
                    .map_or_else(|| quote!(()), |x| x.to_token_stream());
                let span = r.return_token.span;
                let result = result_slot(span);
                let finish = quote_spanned!(span=> #result.finish(#value));
                r.expr = Some(Box::new(Expr::Verbatim(finish)));
            }
            _ => syn::visit_mut::visit_expr_mut(self, e),
        }
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// `__gtap_result` at `span`'s location, resolved at the macro's call site, where the step
/// function declares it: the user's `return`/`?` token may come from another hygiene context
/// (a `macro_rules!` that emits the task function), where the name would not resolve.
fn result_slot(span: Span) -> Ident {
    Ident::new("__gtap_result", Span::call_site().located_at(span))
}

impl Lower<'_> {
    fn field(&self, l: LocalId) -> Option<&Field> {
        self.fields.iter().find(|f| f.local == l)
    }

    /// The place of local `l` in the task-data struct.
    fn place(&self, l: LocalId) -> TokenStream {
        let decl = &self.body.locals[l.0];
        if let Some(i) = decl.param {
            let i = syn::Index::from(i);
            if decl.mutable {
                return quote!((*__gtap_frame).args.#i);
            }
            let args = self.args_place();
            return quote!(#args.#i);
        }
        match self.field(l) {
            Some(f) => field_place(&f.name, self.thread_fields),
            None => quote!(()),
        }
    }

    /// Where the step reads its arguments: a block-level function's threads read them through
    /// `Context::args` (one copy for the block when `args` is read only), any other
    /// function from its frame.
    fn args_place(&self) -> TokenStream {
        if self.block {
            quote!((*__gtap_args_frame).args)
        } else {
            quote!((*__gtap_frame).args)
        }
    }

    fn unit_end(&self) -> TokenStream {
        if self.def.output.is_none() {
            quote!(return __gtap_result.finish(());)
        } else {
            TokenStream::new()
        }
    }

    fn start(&self, block: &Block) -> TokenStream {
        self.spawned.take();
        let pats = self.def.params.iter().map(|p| match &p.binding {
            Binding::Name { ident, mutable } => {
                let m = mutable.then(|| quote!(mut));
                quote!(#m #ident)
            }
            Binding::Pattern(pat) => pat.to_token_stream(),
        });
        let code = self.stmts(&block.stmts);
        let end = self.unit_end();
        // A parameter read only after a join is unused in state 0 (it is read in the resume
        // state from `args`).
        let allow = (!self.body.waits.is_empty()).then(
            || quote!(#[allow(unused_variables, reason = "parameters read only after a join")]),
        );
        let args = self.args_place();
        quote! {
            #allow
            let (#(#pats,)*) = unsafe { #args };
            #code
            #end
        }
    }

    fn stmts(&self, stmts: &[Stmt]) -> TokenStream {
        let mut parts = Vec::new();
        for (i, s) in stmts.iter().enumerate() {
            match placeholder_id(s).and_then(|id| self.markers.get(id).map(|m| (id, m))) {
                Some((id, Marker::Spawn(sp))) => {
                    let saves = match (
                        self.body.spawn_target.get(id).copied().flatten(),
                        &sp.target,
                    ) {
                        (Some(l), Target::Let { .. }) => self.hidden_saves(l),
                        _ => TokenStream::new(),
                    };
                    let spawn = self.spawn(id, sp);
                    parts.push((None, quote!(#saves #spawn)));
                }
                Some((id, Marker::Wait(w))) => {
                    parts.push((None, self.wait(id, w)));
                    return without_unnamed_decls(parts);
                }
                None => {
                    parts.push((value_less_decl(s), self.stmt(s)));
                    if self.always_waits(s) {
                        // The statements after it are unreachable here (they run in the
                        // resume states), but still type-checked: they may name results
                        // joined inside it, which have no local in this state.
                        let tail = self.stmts(&stmts[i + 1..]);
                        parts.push((None, self.unreachable_results(&tail)));
                        parts.push((None, tail));
                        return without_unnamed_decls(parts);
                    }
                }
            }
        }
        without_unnamed_decls(parts)
    }

    /// For unreachable code `tail`: a local for each task result it names that the code
    /// before it never declares (`let a = task!(..)` and `let v;` written only by tasks have
    /// no local until a state restores them), read from its field, never executed.
    fn unreachable_results(&self, tail: &TokenStream) -> TokenStream {
        let mut out = TokenStream::new();
        let mut done: Vec<&Ident> = Vec::new();
        for f in self.fields.iter().rev() {
            let decl = &self.body.locals[f.local.0];
            let no_local = self.body.task_written(f.local)
                || (decl.no_value && self.body.only_task_writes(&decl.ident));
            if !no_local || done.contains(&&decl.ident) || !names(tail, &decl.ident) {
                continue;
            }
            done.push(&decl.ident);
            let (id, place) = (&decl.ident, self.place(f.local));
            let m = decl.mutable.then(|| quote!(mut));
            out.extend(quote!(
                #[allow(unused_variables, reason = "for the unreachable code after a join")]
                let #m #id = unsafe { #place };
            ));
        }
        out
    }

    /// Whether every way through `s` that completes reaches a `taskwait!()` first: a wait, a
    /// block (plain or `unsafe`) with such a statement, an `if`/`else` or a `match` whose
    /// every branch is one. (A labelled block or a loop may be left by a `break`: not these.)
    fn always_waits(&self, s: &Stmt) -> bool {
        let block_waits = |b: &Block| b.stmts.iter().any(|s| self.always_waits(s));
        let expr_waits = |e: &Expr| self.always_waits(&Stmt::Expr(e.clone(), None));
        if let Some(id) = placeholder_id(s) {
            return matches!(self.markers.get(id), Some(Marker::Wait(_)));
        }
        let Stmt::Expr(e, _) = s else { return false };
        match e {
            Expr::Block(b) => b.label.is_none() && block_waits(&b.block),
            Expr::Unsafe(u) => block_waits(&u.block),
            Expr::If(i) => {
                block_waits(&i.then_branch)
                    && i.else_branch.as_ref().is_some_and(|(_, e)| expr_waits(e))
            }
            Expr::Match(m) => !m.arms.is_empty() && m.arms.iter().all(|a| expr_waits(&a.body)),
            _ => false,
        }
    }

    fn stmt(&self, s: &Stmt) -> TokenStream {
        if let Some((s, hider)) = hidden::take_tag(s) {
            let saves = self.hidden_saves(hider);
            let s = self.stmt(&s);
            return quote!(#saves #s);
        }
        if let Stmt::Local(local) = s {
            if local.init.is_none() && self.only_receives_results(&local.pat) {
                // `let v;` / `let (a, b): (T, U);` whose every write is a `v = task!(..)`: the
                // children write the task-data field, and the code after the join reads the
                // local that its state restores from there. Kept, the declaration would be
                // unused here, and rustc could not infer its type.
                return TokenStream::new();
            }
        }
        if let Stmt::Item(item) = s {
            if !matches!(item, syn::Item::Verbatim(_)) {
                // A nested block's item: a copy in each state that enters the block, some
                // of them unused (the body's own items are hoisted, once).
                return quote!(#[allow(dead_code, reason = "a copy per state")] #item);
            }
        }
        if !contains_marker(s.to_token_stream(), true) {
            return s.to_token_stream();
        }
        match s {
            Stmt::Expr(e, semi) => {
                let e = self.construct(e);
                quote!(#e #semi)
            }
            _ => s.to_token_stream(),
        }
    }

    /// Whether every name `pat` binds (`v`, `v: T`, `(a, b)`, ..) is a local declared without
    /// a value that only task results write (no `v = e` anywhere): every local of that name
    /// declared without a value, in case of shadowing.
    fn only_receives_results(&self, pat: &syn::Pat) -> bool {
        let mut names = Vec::new();
        if !plain_bindings(pat, &mut names) || names.is_empty() {
            return false;
        }
        names.iter().all(|name| self.body.only_task_writes(name))
    }

    fn block(&self, b: &Block) -> TokenStream {
        let code = self.stmts(&b.stmts);
        quote!({ #code })
    }

    /// A control-flow construct that contains markers, with its blocks lowered.
    fn construct(&self, e: &Expr) -> TokenStream {
        match e {
            Expr::If(i) => {
                let cond = &i.cond;
                let then = self.block(&i.then_branch);
                let els = i.else_branch.as_ref().map(|(_, e)| {
                    let e = self.construct(e);
                    quote!(else #e)
                });
                quote!(if #cond #then #els)
            }
            Expr::Match(m) => {
                let expr = &m.expr;
                let arms = m.arms.iter().map(|a| {
                    let pat = &a.pat;
                    let guard = a.guard.as_ref().map(|(_, g)| quote!(if #g));
                    let body = match &*a.body {
                        Expr::Block(b) if b.label.is_none() => self.block(&b.block),
                        other => other.to_token_stream(),
                    };
                    quote!(#pat #guard => #body,)
                });
                quote!(match #expr { #(#arms)* })
            }
            Expr::Loop(l) => {
                let (label, body) = (&l.label, self.block(&l.body));
                quote!(#label loop #body)
            }
            Expr::While(w) => {
                let (label, cond, body) = (&w.label, &w.cond, self.block(&w.body));
                quote!(#label while #cond #body)
            }
            Expr::ForLoop(f) => {
                let (label, pat, expr, body) = (&f.label, &f.pat, &f.expr, self.block(&f.body));
                quote!(#label for #pat in #expr #body)
            }
            Expr::Block(b) => {
                let (label, body) = (&b.label, self.block(&b.block));
                quote!(#label #body)
            }
            Expr::Unsafe(u) => {
                let body = self.block(&u.block);
                quote!(unsafe #body)
            }
            other => other.to_token_stream(),
        }
    }
}

/// The call that stores local `id` into `place`, its field (unsafe: `place` is in the frame).
fn save_call(id: &Ident, place: &TokenStream) -> TokenStream {
    quote_spanned!(id.span()=> ::gtap::__private::save(&raw mut #place, #id))
}

/// Whether `tokens` name `id` anywhere (as [`scan_idents`] finds names).
fn names(tokens: &TokenStream, id: &Ident) -> bool {
    let mut found = false;
    scan_idents(tokens.clone(), &mut |x| found |= x == id);
    found
}

/// The names a pattern of plain bindings binds (`v`, `mut v`, `v: T`, tuples and parentheses
/// of those); `false` for any other pattern.
fn plain_bindings<'p>(pat: &'p syn::Pat, out: &mut Vec<&'p Ident>) -> bool {
    match pat {
        syn::Pat::Ident(p) if p.by_ref.is_none() && p.subpat.is_none() => {
            out.push(&p.ident);
            true
        }
        syn::Pat::Type(t) => plain_bindings(&t.pat, out),
        syn::Pat::Paren(p) => plain_bindings(&p.pat, out),
        syn::Pat::Tuple(t) => t.elems.iter().all(|e| plain_bindings(e, out)),
        _ => false,
    }
}
