//! What a `task!(..)` result may be written into besides a local, and why the rest is refused.
//!
//! - `*p = task!(..)` (and `*p op= task!(..)`): never. The child writes its result when it
//!   finishes, after the parent has suspended at its `taskwait!()`; the parent's locals were
//!   *copied* into its task data there, and its stack frame is gone. A pointer into a local
//!   (`for part in v.iter_mut()`, `&mut x`) would dangle, and the macro cannot tell such a
//!   pointer from one into memory that outlives the step (a proc macro sees no types). The
//!   message names the rewrite that works, indexing: `v[i] = task!(..)`.
//! - The place of a deferred update, `v[i] op= task!(..)`, is evaluated at the join (see
//!   [`super::deferred`]): its indexes must be plain expressions (names, literals, arithmetic,
//!   fields, casts, indexes), which name every local they read and have no effects.
//! - A local whose address is taken as a raw pointer anywhere in the function (`&raw mut x`,
//!   `addr_of!(x)`, `&mut x as *mut _`, `x.as_mut_ptr()`) may not receive a deferred update,
//!   nor a result whole or into an element (`x = task!(..)`, `x[i] = task!(..)`): a read
//!   through the pointer before the join would see the old value, where Rust's `x += f()` has
//!   already added, and after the join `x` lives in another frame. (References are the borrow
//!   checker's: a live `&x` already forbids `x += ..` in Rust. `let x = task!(..)` needs no
//!   check: a pointer to `x` can only be taken after it, where reading `x` before the join is
//!   the dataflow's error.)

use crate::markers::place_root;
use proc_macro2::{Ident, Span};
use quote::ToTokens;
use syn::{visit::Visit, Expr, Pat};

/// The message for a result written through a pointer, `*p = task!(..)` (`op` is `=`, or the
/// compound operator of `*p op= task!(..)`); `fors` are the enclosing `for` loops' patterns and
/// iterators, innermost last, to name the array that `p` walks (`for part in v.iter_mut()` →
/// `v[i] = task!(..)`).
pub(super) fn through_pointer(left: &Expr, op: &str, fors: &[(Pat, Expr)]) -> String {
    let pointer = match strip_parens(left) {
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Deref(_)) => match strip_parens(&u.expr) {
            Expr::Path(p) => p.path.get_ident(),
            _ => None,
        },
        _ => None,
    };
    let Some(p) = pointer else {
        return "task!(..) can write its result to a local or to a field or element inside one (`x`, `x.f`, `x[i]`): for anything else, write `let r = task!(f(..));` and store `r` after the taskwait!()".to_string();
    };
    let why = "the child writes its result after this task has suspended at its taskwait!(), when the locals a pointer could point into have been copied into the task data and the stack they were on is gone";
    for (pat, iter) in fors.iter().rev() {
        if let Some((array, index)) = walked_array(pat, iter, p) {
            let i = index.map_or_else(|| "i".to_string(), |i| i.to_string());
            if op == "=" {
                return format!(
                    "task!(..) cannot write its result through `*{p}`, which points into `{array}`: {why}; index `{array}` instead, `for {i} in 0..{array}.len() {{ {array}[{i}] = task!(f(..)); }}` (a local array is saved at the taskwait!() with every element the children wrote)"
                );
            }
            return format!(
                "task!(..) cannot write its result through `*{p}`, which points into `{array}`: {why}; spawn into an array of results instead, `for {i} in 0..{array}.len() {{ res[{i}] = task!(f(..)); }}` (with `let mut res = [0; N];`), and combine after the taskwait!(), `{array}[{i}] {op} res[{i}];` for each `{i}`"
            );
        }
    }
    format!(
        "task!(..) cannot write its result through `*{p}`: {why}; write into a local or an element of one (`v[i] {op} task!(f(..));`), or bind `let r = task!(f(..));` and write `*{p} {op} r;` after the taskwait!()"
    )
}

/// The message for `place = task!(..)` whose root `root` has its address taken as a raw
/// pointer somewhere in the function (see the module docs).
pub(super) fn behind_raw_pointer(root: &Ident, place: &Expr) -> String {
    let place = shown(place);
    format!(
        "`{root}` has its address taken as a raw pointer here, and `{place} = task!(..)` writes the result only when the taskwait!() that joins the task resumes this task, into a copy of `{root}`: a read through the pointer before that join sees the old value (Rust's `{place} = f(..)` has already stored it), and one after it reads the stack the task left at the join; write `let r = task!(f(..));`, then `{place} = r;` after the taskwait!() and take the pointer after that"
    )
}

/// When `pat` binds `p` from `iter`, an iteration over `array.iter_mut()` (also
/// `.enumerate()`d, whose index name is returned): the array, as written.
fn walked_array(pat: &Pat, iter: &Expr, p: &Ident) -> Option<(String, Option<Ident>)> {
    let (inner, index) = match (strip_parens(iter), pat) {
        (Expr::MethodCall(m), Pat::Tuple(t)) if m.method == "enumerate" && t.elems.len() == 2 => {
            let index = match &t.elems[0] {
                Pat::Ident(i) => Some(i.ident.clone()),
                _ => None,
            };
            (&*m.receiver, (&t.elems[1], index))
        }
        (e, pat) => (e, (pat, None)),
    };
    let (elem, index) = index;
    let binds_p = matches!(elem, Pat::Ident(i) if i.ident == *p);
    match strip_parens(inner) {
        Expr::MethodCall(m) if binds_p && m.method == "iter_mut" => {
            Some((shown(&m.receiver), index))
        }
        // `for part in &mut v`
        Expr::Reference(r) if binds_p && r.mutability.is_some() => Some((shown(&r.expr), index)),
        _ => None,
    }
}

fn strip_parens(e: &Expr) -> &Expr {
    match e {
        Expr::Paren(p) => strip_parens(&p.expr),
        e => e,
    }
}

/// An index of a deferred update's place that is not a plain expression, if any (see the
/// module docs).
pub(super) fn complex_index(place: &Expr) -> Option<&Expr> {
    match place {
        Expr::Field(f) => complex_index(&f.base),
        Expr::Paren(p) => complex_index(&p.expr),
        Expr::Index(i) => {
            complex_index(&i.expr).or_else(|| (!plain(&i.index)).then_some(&*i.index))
        }
        _ => None,
    }
}

fn plain(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) => true,
        Expr::Path(p) => p.qself.is_none(),
        Expr::Paren(p) => plain(&p.expr),
        Expr::Unary(u) => !matches!(u.op, syn::UnOp::Deref(_)) && plain(&u.expr),
        Expr::Binary(b) => !super::is_compound(&b.op) && plain(&b.left) && plain(&b.right),
        Expr::Field(f) => plain(&f.base),
        Expr::Cast(c) => plain(&c.expr),
        Expr::Index(i) => plain(&i.expr) && plain(&i.index),
        _ => false,
    }
}

/// The locals whose address the body takes as a raw pointer (see the module docs), with
/// where. Closures and nested items are searched too: a pointer may be taken anywhere.
pub(super) fn raw_pointer_roots(body: &syn::Block) -> Vec<(Ident, Span)> {
    #[derive(Default)]
    struct Find(Vec<(Ident, Span)>);
    impl Find {
        fn root(&mut self, place: &Expr) {
            if let Some(root) = place_root(place) {
                self.0.push((root.clone(), root.span()));
            }
        }
    }
    impl<'a> Visit<'a> for Find {
        fn visit_expr(&mut self, e: &'a Expr) {
            match e {
                Expr::RawAddr(r) => self.root(&r.expr),
                Expr::Cast(c) => {
                    if let Expr::Reference(r) = strip_parens(&c.expr) {
                        self.root(&r.expr);
                    }
                }
                Expr::MethodCall(m)
                    if m.args.is_empty() && (m.method == "as_ptr" || m.method == "as_mut_ptr") =>
                {
                    self.root(&m.receiver);
                }
                _ => {}
            }
            syn::visit::visit_expr(self, e);
        }
        fn visit_macro(&mut self, m: &'a syn::Macro) {
            let named = m
                .path
                .segments
                .last()
                .is_some_and(|s| s.ident == "addr_of" || s.ident == "addr_of_mut");
            if named {
                if let Ok(place) = m.parse_body::<Expr>() {
                    self.root(&place);
                }
            }
        }
    }
    let mut find = Find::default();
    find.visit_block(body);
    find.0
}

/// Tokens as a user reads them in a message (`v[i].x`, `(a, b)`), not as `to_string` spaces
/// them.
pub(super) fn shown<T: ToTokens>(t: &T) -> String {
    let spaced = t
        .to_token_stream()
        .to_string()
        .replace(" . ", ".")
        .replace(" [", "[")
        .replace(" ,", ",")
        .replace("& mut ", "&mut ");
    // A call, `idx (n)` → `idx(n)` (not `a * (b)`).
    let mut out = String::with_capacity(spaced.len());
    let mut chars = spaced.chars().peekable();
    while let Some(c) = chars.next() {
        let call = c == ' '
            && chars.peek() == Some(&'(')
            && out.ends_with(|p: char| p.is_alphanumeric() || p == '_');
        if !call {
            out.push(c);
        }
    }
    out
}
