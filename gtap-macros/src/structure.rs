//! The structure pass: normalizes the body so that every marker sits in a statement position
//! the lowering understands, and replaces each marker statement by a numbered placeholder.
//!
//! Rewrites (each only where it matters):
//! - `place op= task!(..);` and `let PAT = task!(..);` with a destructuring `PAT` bind the result
//!   to a hidden local and move the rest of the statement after the join ([`deferred`]);
//! - the body's tail expression becomes `return e;` (for a non-unit function), pushed into the
//!   branches of a tail `if`/`match`/block that contains markers;
//! - `else if` chains that contain markers become `else { if .. }`, and match arms that contain
//!   markers get a block body, so every marker is a statement of some block;
//! - `for pat in a..b { body }` containing `taskwait!()` becomes a counter loop
//!   (`let mut __gtap_next_N = a; let __gtap_end_N = b; while __gtap_next_N < __gtap_end_N { let
//!   pat = __gtap_next_N; __gtap_next_N += 1; body }`; `a..=b`, the `.rev()` of either and
//!   their `.step_by(k)` count the same way, down for `.rev()`, by `k` up to the end of the
//!   type for `.step_by`), whose counter and end are ordinary locals (saved if live). A `for`
//!   over any other iterator with a `taskwait!()` is an error;
//! - `task!`/`taskwait!` statements become `__gtap_marker!(N)`; [`Marker`] `N` holds the parsed
//!   marker. Markers left in the body afterwards are misplaced: [`crate::check`] reports them.

use crate::{
    breaks::{self, Carry},
    diag::Ctxt,
    markers::{parse_spawn, parse_wait, place_root, Marker, Target},
    tails,
    tokens::{cfg_attr_span, contains_marker, marker_kind, MarkerKind, PLACEHOLDER, TYPED},
};
use proc_macro2::{Ident, Span};
use quote::{quote, ToTokens};
use syn::{Block, Expr, Pat, Stmt};
use values::{has_else_markers, is_construct_value};

mod deferred;
mod loops;
mod targets;
mod values;

/// The normalized body and its markers, indexed by placeholder number.
pub(crate) struct Structured {
    /// The rewritten body.
    pub(crate) body: Block,
    /// The markers, in source order.
    pub(crate) markers: Vec<Marker>,
}

/// What a block's tail expression means.
#[derive(Clone, PartialEq, Eq)]
enum Tail {
    /// The tail is the function's result: turn it into `return`.
    Return,
    /// The tail is the value of `let x = <construct>;`: turn it into `x = tail;`.
    Assign(Ident),
    /// The tail of the unit function's body: turn it into a statement.
    UnitBody,
    /// Leave it alone.
    Keep,
}

impl Tail {
    /// Whether the tails of nested branches carry a value out.
    fn carries(&self) -> bool {
        matches!(self, Tail::Return | Tail::Assign(_))
    }

    /// Where the `break` values of a loop or labelled block in this position go.
    fn carry(&self) -> Option<Carry<'_>> {
        match self {
            Tail::Return => Some(Carry::Return),
            Tail::Assign(x) => Some(Carry::Assign(x)),
            Tail::UnitBody | Tail::Keep => None,
        }
    }
}

struct Pass<'a> {
    cx: &'a mut Ctxt,
    markers: Vec<Marker>,
    next_for: usize,
    next_value: usize,
    next_deferred: usize,
    /// The next block is a loop's body.
    loop_body: bool,
    /// How many loops enclose the current block.
    loops: usize,
    /// The enclosing `for` loops' patterns and iterators, innermost last (for messages).
    for_iters: Vec<(Pat, Expr)>,
    /// The locals whose address the body takes as a raw pointer, with where.
    raw_roots: Vec<(Ident, Span)>,
    /// The name a `let x = <construct of tasks>` binds while its construct is rewritten to
    /// `x = task!(..)` in each value position (see [`tails`]): declared by that `let` without a
    /// value, so no pointer to it can be taken before (as for `let x = task!(..)`), and exempt
    /// from the raw-pointer check.
    tail_target: Option<Ident>,
}

/// Runs the pass on a function body; `unit` when the function returns `()`.
pub(crate) fn structure(cx: &mut Ctxt, mut body: Block, unit: bool) -> Structured {
    let raw_roots = targets::raw_pointer_roots(&body);
    let mut pass = Pass {
        cx,
        markers: Vec::new(),
        next_for: 0,
        next_value: 0,
        next_deferred: 0,
        loop_body: false,
        loops: 0,
        for_iters: Vec::new(),
        raw_roots,
        tail_target: None,
    };
    let tail = if unit { Tail::UnitBody } else { Tail::Return };
    pass.block(&mut body, tail);
    Structured {
        body,
        markers: pass.markers,
    }
}

/// The placeholder number of a statement, if it is one.
pub(crate) fn placeholder_id(stmt: &Stmt) -> Option<usize> {
    let Stmt::Macro(m) = stmt else { return None };
    if !m.mac.path.is_ident(PLACEHOLDER) {
        return None;
    }
    syn::parse2::<syn::LitInt>(m.mac.tokens.clone())
        .ok()?
        .base10_parse()
        .ok()
}

fn has_markers<T: ToTokens>(t: &T) -> bool {
    contains_marker(t.to_token_stream(), false)
}

fn has_wait<T: ToTokens>(t: &T) -> bool {
    crate::tokens::contains_macro(t.to_token_stream(), "taskwait")
}

fn return_expr(e: Expr) -> Expr {
    Expr::Return(syn::ExprReturn {
        attrs: Vec::new(),
        return_token: Default::default(),
        expr: Some(Box::new(e)),
    })
}

fn block_of(e: Expr) -> Block {
    Block {
        brace_token: Default::default(),
        stmts: vec![Stmt::Expr(e, None)],
    }
}

fn is_construct(e: &Expr) -> bool {
    matches!(
        e,
        Expr::If(_)
            | Expr::Match(_)
            | Expr::Block(_)
            | Expr::Unsafe(_)
            | Expr::Loop(_)
            | Expr::While(_)
            | Expr::ForLoop(_)
    )
}

impl Pass<'_> {
    fn placeholder(&mut self, marker: Marker) -> Stmt {
        let id = self.markers.len();
        self.markers.push(marker);
        let path = Ident::new(PLACEHOLDER, Span::call_site());
        let lit = syn::LitInt::new(&id.to_string(), Span::call_site());
        Stmt::Macro(syn::StmtMacro {
            attrs: Vec::new(),
            mac: syn::Macro {
                path: path.into(),
                bang_token: Default::default(),
                delimiter: syn::MacroDelimiter::Paren(Default::default()),
                tokens: quote!(#lit),
            },
            semi_token: Some(Default::default()),
        })
    }

    fn block(&mut self, block: &mut Block, tail: Tail) {
        let loop_body = std::mem::take(&mut self.loop_body);
        let stmts = self.defer(std::mem::take(&mut block.stmts), loop_body);
        let n = stmts.len();
        for (i, stmt) in stmts.into_iter().enumerate() {
            let last = i + 1 == n;
            let stmt = match stmt {
                // `{ task!(f(..)) }`: syn reads a tail macro as a statement.
                Stmt::Macro(m) if m.semi_token.is_none() && last && tail.carries() => Stmt::Expr(
                    Expr::Macro(syn::ExprMacro {
                        attrs: m.attrs,
                        mac: m.mac,
                    }),
                    None,
                ),
                s => s,
            };
            let stmt = match (stmt, last, &tail) {
                (Stmt::Expr(e, None), true, t) if t.carries() => {
                    if is_construct(&e) && has_markers(&e) {
                        Stmt::Expr(e, None)
                    } else if matches!(e, Expr::Macro(ref m) if marker_kind(&m.mac.path) == Some(MarkerKind::Wait))
                    {
                        // `taskwait!()` as a tail: a statement.
                        Stmt::Expr(e, Some(Default::default()))
                    } else if let Tail::Assign(x) = t {
                        Stmt::Expr(assign_expr(x, e), Some(Default::default()))
                    } else if matches!(e, Expr::Macro(ref m) if marker_kind(&m.mac.path).is_some())
                    {
                        self.cx.error_spanned_by(
                            &e,
                            "task!(..) cannot be the function's value: its result is there only after a taskwait!(); write `let r = task!(f(..)); taskwait!(); r`",
                        );
                        Stmt::Expr(e, Some(Default::default()))
                    } else {
                        Stmt::Expr(return_expr(e), Some(Default::default()))
                    }
                }
                (Stmt::Expr(e, None), true, Tail::UnitBody) if !is_construct(&e) => {
                    Stmt::Expr(e, Some(Default::default()))
                }
                (s, _, _) => s,
            };
            let inner_tail = if last && tail.carries() {
                tail.clone()
            } else {
                Tail::Keep
            };
            self.stmt(stmt, inner_tail, &mut block.stmts);
        }
    }

    fn stmt(&mut self, stmt: Stmt, tail: Tail, out: &mut Vec<Stmt>) {
        if let Some(cfg) = cfg_attr_span(&stmt) {
            if has_markers(&stmt) {
                self.cx.error_at(
                    cfg,
                    "`#[cfg(..)]` cannot be put on a statement that contains task!(..) or taskwait!(): the macro cannot see whether it is compiled in, and would spawn or join anyway; write `if cfg!(..) { .. }` instead",
                );
            }
        }
        match stmt {
            Stmt::Macro(m) if marker_kind(&m.mac.path).is_some() => {
                out.push(self.marker(&m.mac, Target::Detached, &m));
            }
            Stmt::Expr(Expr::Macro(m), semi) if marker_kind(&m.mac.path).is_some() => {
                let _ = semi;
                out.push(self.marker(&m.mac, Target::Detached, &m));
            }
            Stmt::Local(local) if has_else_markers(&local) => self.let_else(local, tail, out),
            Stmt::Expr(Expr::Assign(a), semi) if is_construct_value(&a.right) => {
                self.assign_construct(*a.left, None, *a.right, semi, out);
            }
            Stmt::Expr(Expr::Binary(b), semi)
                if is_compound(&b.op) && is_construct_value(&b.right) =>
            {
                self.assign_construct(*b.left, Some(b.op), *b.right, semi, out);
            }
            Stmt::Expr(Expr::Return(r), semi)
                if r.expr.as_deref().is_some_and(is_construct_value) =>
            {
                self.return_construct(r, semi, out);
            }
            Stmt::Local(local) if is_construct_init(&local) && has_tail_task(&local) => {
                self.let_of_tail_tasks(local, out);
            }
            Stmt::Local(local) if is_construct_init(&local) => {
                // `let PAT = <construct with markers> [else ..];` → `let tmp; <construct with
                // `tmp = tail;`> let PAT = tmp [else ..];`: the pattern binds after the
                // construct, so `let x = { .. x .. }` still reads the outer `x` inside.
                let Some(init) = local.init else { return };
                let tmp = Ident::new(
                    &format!("__gtap_value_{}", self.next_value),
                    Span::call_site(),
                );
                self.next_value += 1;
                let decl = match &local.pat {
                    Pat::Type(pt) => {
                        let ty = &pt.ty;
                        quote!(let #tmp: #ty;)
                    }
                    _ => quote!(let #tmp;),
                };
                if let Ok(s) = syn::parse2::<Stmt>(decl) {
                    out.push(s);
                }
                let mut e = *init.expr;
                while let Expr::Paren(p) = e {
                    e = *p.expr;
                }
                self.construct(&mut e, Tail::Assign(tmp.clone()));
                out.push(Stmt::Expr(e, Some(Default::default())));
                out.push(Stmt::Local(syn::Local {
                    init: Some(syn::LocalInit {
                        eq_token: init.eq_token,
                        expr: Box::new(typed_expr(&tmp)),
                        diverge: init.diverge,
                    }),
                    ..local
                }));
            }
            Stmt::Local(local) if is_task_init(&local) => {
                if let Some((_, diverge)) = local.init.as_ref().and_then(|i| i.diverge.as_ref()) {
                    self.cx.error_spanned_by(
                        diverge,
                        "`let .. else` cannot take a task!(..)'s result: the result is there only after the taskwait!() that joins it, and statements before that join would run where Rust's `else` has already left; write `let r = task!(f(..));` and, after the taskwait!(), `let PAT = r else { .. };`",
                    );
                    return;
                }
                let target = match let_target(&local.pat) {
                    Some(t) => t,
                    None if is_wild(&local.pat) => {
                        self.cx.error_spanned_by(
                            &local.pat,
                            "`let _ = task!(..)` cannot drop the result, which exists only after a join: to ignore it, spawn the task as a statement, `task!(f(..));` (its result is discarded, and a later taskwait!() still waits for it)",
                        );
                        return;
                    }
                    None => {
                        // A destructuring `let` is deferred (`deferred.rs`) unless it has a
                        // `#[cfg]`, which is reported above.
                        self.cx.error_spanned_by(
                            &local.pat,
                            "`let` with task!(..) must bind a name or an irrefutable pattern: `let x = task!(f(..));`, `let (a, b) = task!(f(..));`",
                        );
                        return;
                    }
                };
                let Some(init) = &local.init else { return };
                let Expr::Macro(m) = &*init.expr else { return };
                out.push(self.marker(&m.mac, target, &local));
            }
            Stmt::Expr(Expr::Assign(a), _) if is_task_macro(&a.right) => {
                let Expr::Macro(m) = &*a.right else { return };
                let target = match (&*a.left, place_root(&a.left)) {
                    (Expr::Path(_), Some(ident)) => Target::Assign {
                        ident: ident.clone(),
                    },
                    (_, Some(root)) => Target::Place {
                        root: root.clone(),
                        place: a.left.clone(),
                    },
                    (other, None) => {
                        let msg = targets::through_pointer(other, "=", &self.for_iters);
                        self.cx.error_spanned_by(other, msg);
                        return;
                    }
                };
                let by_let = matches!(&target, Target::Assign { ident } if self.tail_target.as_ref() == Some(ident));
                if let Some(root) = place_root(&a.left).filter(|_| !by_let) {
                    if let Some((_, at)) = self.raw_roots.iter().find(|(r, _)| r == root) {
                        let msg = targets::behind_raw_pointer(root, &a.left);
                        self.cx.error_at(*at, msg);
                        return;
                    }
                }
                out.push(self.marker(&m.mac, target, &a));
            }
            Stmt::Expr(mut e, semi) if is_construct(&e) => {
                if let Expr::ForLoop(f) = &e {
                    if has_wait(&f.body) {
                        // After an error the loop stays as it is, its body structured
                        // (no second error for each marker in it).
                        if let Some(block) = self.desugar_for(f) {
                            e = block;
                        }
                    }
                }
                self.construct(&mut e, tail);
                out.push(Stmt::Expr(e, semi));
            }
            s => out.push(s),
        }
    }

    /// `let x = if c { task!(f(..)) } else { task!(g(..)) };` → `let x; if c { x =
    /// task!(f(..)); } else { x = task!(g(..)); }` (see [`crate::tails`]), or an error naming
    /// the rewrite.
    fn let_of_tail_tasks(&mut self, local: syn::Local, out: &mut Vec<Stmt>) {
        let Some(init) = local.init else { return };
        let found = tails::tails(&init.expr);
        let Some((name, mutable, ty)) = tails::single_name(&local.pat) else {
            self.cx.error_spanned_by(
                &local.pat,
                "a `let` whose value is task!(..) must bind a single name: `let x = if c { task!(f(..)) } else { task!(g(..)) };`, then destructure `x` after the taskwait!()",
            );
            return;
        };
        if let Some((_, diverge)) = &init.diverge {
            self.cx
                .error_spanned_by(diverge, "`let .. else` cannot be used with task!(..)");
            return;
        }
        let value = found
            .missing_else
            .first()
            .or(mutable.then_some(found.values.first()).flatten());
        if let Some(value) = value {
            self.cx.error_at(
                *value,
                format!(
                    "`{name}` takes a task's result on some branches and this plain value on another: the value would be there at once, the result only after the taskwait!(); give `{name}` a value first and spawn into it where needed, `let mut {name} = <value>; if c {{ {name} = task!(f(..)); }}`"
                ),
            );
            return;
        }
        if let Some(read) = tails::read_in(name, &init.expr) {
            self.cx.error_at(
                read,
                format!(
                    "`{name}` is read in the value of the `let` that binds it, whose value is task!(..): the result is bound before the branches run, so name the new binding differently"
                ),
            );
            return;
        }
        let mutability = mutable.then(<syn::Token![mut]>::default);
        let decl = match ty {
            Some(ty) => quote!(let #mutability #name: #ty;),
            None => quote!(let #mutability #name;),
        };
        if let Ok(s) = syn::parse2::<Stmt>(decl) {
            out.push(s);
        }
        let mut e = *init.expr;
        while let Expr::Paren(p) = e {
            e = *p.expr;
        }
        let outer = self.tail_target.replace(name.clone());
        self.construct(&mut e, Tail::Assign(name.clone()));
        self.tail_target = outer;
        out.push(Stmt::Expr(e, Some(Default::default())));
    }

    fn marker<T: ToTokens>(&mut self, mac: &syn::Macro, target: Target, whole: &T) -> Stmt {
        let parsed = match marker_kind(&mac.path) {
            Some(MarkerKind::Task) => parse_spawn(mac, target).map(Marker::Spawn),
            _ => {
                if !matches!(target, Target::Detached) {
                    self.cx.error_spanned_by(
                        whole,
                        "taskwait!() has no value: write it as a statement, `taskwait!();`",
                    );
                }
                parse_wait(mac).map(Marker::Wait)
            }
        };
        match parsed {
            Ok(m) => self.placeholder(m),
            Err(e) => {
                self.cx.syn_error(e);
                // Keep numbering stable; the item is not emitted anyway.
                self.placeholder(Marker::Wait(crate::markers::Wait { queue: None }))
            }
        }
    }

    fn construct(&mut self, e: &mut Expr, tail: Tail) {
        let tail = if tail.carries() { tail } else { Tail::Keep };
        match e {
            Expr::If(i) => {
                self.block(&mut i.then_branch, tail.clone());
                if let Some((_, els)) = &mut i.else_branch {
                    if matches!(**els, Expr::If(_)) && (has_markers(els) || tail.carries()) {
                        let inner =
                            std::mem::replace(&mut **els, Expr::Verbatim(Default::default()));
                        **els = Expr::Block(syn::ExprBlock {
                            attrs: Vec::new(),
                            label: None,
                            block: block_of(inner),
                        });
                    }
                    if let Expr::Block(b) = &mut **els {
                        self.block(&mut b.block, tail);
                    }
                }
            }
            Expr::Match(m) => {
                for arm in &mut m.arms {
                    let body_has = has_markers(&arm.body);
                    if body_has || tail.carries() {
                        if !matches!(*arm.body, Expr::Block(ref b) if b.label.is_none()) {
                            let inner = std::mem::replace(
                                &mut *arm.body,
                                Expr::Verbatim(Default::default()),
                            );
                            *arm.body = Expr::Block(syn::ExprBlock {
                                attrs: Vec::new(),
                                label: None,
                                block: block_of(inner),
                            });
                            arm.comma = Some(Default::default());
                        }
                        if let Expr::Block(b) = &mut *arm.body {
                            self.block(&mut b.block, tail.clone());
                        }
                    }
                }
            }
            Expr::Block(b) => {
                if let (Some(label), Some(carry)) = (&b.label, tail.carry()) {
                    breaks::rewrite(&mut b.block, Some(label), false, &carry);
                }
                self.block(&mut b.block, tail);
            }
            Expr::Unsafe(b) => self.block(&mut b.block, tail),
            Expr::Loop(l) => {
                if let Some(carry) = tail.carry() {
                    breaks::rewrite(&mut l.body, l.label.as_ref(), true, &carry);
                }
                self.loop_body(&mut l.body);
            }
            Expr::While(w) => self.loop_body(&mut w.body),
            Expr::ForLoop(f) => {
                self.for_iters.push(((*f.pat).clone(), (*f.expr).clone()));
                self.loop_body(&mut f.body);
                self.for_iters.pop();
            }
            _ => {}
        }
    }

    fn loop_body(&mut self, body: &mut Block) {
        self.loop_body = true;
        self.loops += 1;
        self.block(body, Tail::Keep);
        self.loops -= 1;
    }
}

fn is_task_macro(e: &Expr) -> bool {
    matches!(e, Expr::Macro(m) if marker_kind(&m.mac.path) == Some(MarkerKind::Task))
        || matches!(e, Expr::Macro(m) if marker_kind(&m.mac.path) == Some(MarkerKind::Wait))
}

/// Whether a `let`'s value is a construct with a `task!(..)` as one of its values.
fn has_tail_task(local: &syn::Local) -> bool {
    local
        .init
        .as_ref()
        .is_some_and(|i| !tails::tails(&i.expr).tasks.is_empty())
}

fn is_construct_init(local: &syn::Local) -> bool {
    local.init.as_ref().is_some_and(|i| {
        let mut e = &*i.expr;
        while let Expr::Paren(p) = e {
            e = &p.expr;
        }
        matches!(
            e,
            Expr::If(_) | Expr::Match(_) | Expr::Block(_) | Expr::Unsafe(_) | Expr::Loop(_)
        ) && has_markers(e)
    })
}

/// `__gtap_typed!(tmp)`: the lowering ties the temporary's type to a zero-sized field of the
/// task-data struct, so that every state agrees on it (see [`crate::lower`]).
fn typed_expr(tmp: &Ident) -> Expr {
    let name = Ident::new(TYPED, Span::call_site());
    Expr::Macro(syn::ExprMacro {
        attrs: Vec::new(),
        mac: syn::Macro {
            path: name.into(),
            bang_token: Default::default(),
            delimiter: syn::MacroDelimiter::Paren(Default::default()),
            tokens: quote!(#tmp),
        },
    })
}

fn path_expr(x: &Ident) -> Expr {
    Expr::Path(syn::ExprPath {
        attrs: Vec::new(),
        qself: None,
        path: x.clone().into(),
    })
}

fn assign_expr(x: &Ident, e: Expr) -> Expr {
    Expr::Assign(syn::ExprAssign {
        attrs: Vec::new(),
        left: Box::new(path_expr(x)),
        eq_token: Default::default(),
        right: Box::new(e),
    })
}

fn is_task_init(local: &syn::Local) -> bool {
    local.init.as_ref().is_some_and(|i| is_task_macro(&i.expr))
}

pub(crate) fn is_compound(op: &syn::BinOp) -> bool {
    use syn::BinOp as B;
    matches!(
        op,
        B::AddAssign(_)
            | B::SubAssign(_)
            | B::MulAssign(_)
            | B::DivAssign(_)
            | B::RemAssign(_)
            | B::BitXorAssign(_)
            | B::BitAndAssign(_)
            | B::BitOrAssign(_)
            | B::ShlAssign(_)
            | B::ShrAssign(_)
    )
}

/// `_`, or `_: T`.
fn is_wild(pat: &Pat) -> bool {
    match pat {
        Pat::Wild(_) => true,
        Pat::Type(pt) => is_wild(&pt.pat),
        _ => false,
    }
}

fn let_target(pat: &Pat) -> Option<Target> {
    match pat {
        Pat::Ident(pi) if pi.by_ref.is_none() && pi.subpat.is_none() => Some(Target::Let {
            ident: pi.ident.clone(),
            mutable: pi.mutability.is_some(),
            ty: None,
        }),
        Pat::Type(pt) => match let_target(&pt.pat)? {
            Target::Let { ident, mutable, .. } => Some(Target::Let {
                ident,
                mutable,
                ty: Some(pt.ty.clone()),
            }),
            other => Some(other),
        },
        _ => None,
    }
}
