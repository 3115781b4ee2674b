//! Smaller variants of a failing program, for a minimizer that keeps the first one that still
//! fails the same way (`random-programs`' `--minimize`): a statement dropped, a construct
//! replaced by its body, a join's child dropped, a loop made to run once, a function's body
//! emptied. Variants that no longer compile fail differently and are not kept.

use crate::ast::*;

/// Every one-step reduction of `p`, the largest first.
pub fn candidates(p: &Program) -> Vec<Program> {
    let mut out = Vec::new();
    for (fi, f) in p.funcs.iter().enumerate() {
        if !f.body.is_empty() {
            let mut q = p.clone();
            q.funcs[fi].body.clear();
            out.push(q);
        }
        for body in reductions(&f.body) {
            let mut q = p.clone();
            q.funcs[fi].body = body;
            out.push(q);
        }
    }
    if p.depth > 1 {
        let mut q = p.clone();
        q.depth -= 1;
        out.push(q);
    }
    out
}

/// The one-step reductions of a statement list.
fn reductions(body: &[Stmt]) -> Vec<Vec<Stmt>> {
    let mut out = Vec::new();
    for i in 0..body.len() {
        // Drop the statement.
        let mut v = body.to_vec();
        v.remove(i);
        out.push(v);
        // Replace a construct by what it holds, or reduce inside it.
        for inner in inner_reductions(&body[i]) {
            let mut v = body.to_vec();
            v.splice(i..=i, inner);
            out.push(v);
        }
    }
    out
}

/// Reductions of one statement, each a list that replaces it.
fn inner_reductions(s: &Stmt) -> Vec<Vec<Stmt>> {
    let mut out = Vec::new();
    let with = |f: &dyn Fn(Vec<Stmt>) -> Stmt, b: &[Stmt]| -> Vec<Vec<Stmt>> {
        reductions(b).into_iter().map(|r| vec![f(r)]).collect()
    };
    match s {
        Stmt::If { cond, then, els } => {
            out.push(then.clone());
            out.push(els.clone());
            out.extend(with(
                &|r| Stmt::If {
                    cond: cond.clone(),
                    then: r,
                    els: els.clone(),
                },
                then,
            ));
            out.extend(with(
                &|r| Stmt::If {
                    cond: cond.clone(),
                    then: then.clone(),
                    els: r,
                },
                els,
            ));
        }
        Stmt::For { var, trips, body } => {
            if *trips > 1 {
                out.push(vec![Stmt::For {
                    var: var.clone(),
                    trips: 1,
                    body: body.clone(),
                }]);
            }
            out.extend(with(
                &|r| Stmt::For {
                    var: var.clone(),
                    trips: *trips,
                    body: r,
                },
                body,
            ));
        }
        Stmt::While {
            label,
            var,
            trips,
            body,
        } => {
            if *trips > 1 {
                out.push(vec![Stmt::While {
                    label: label.clone(),
                    var: var.clone(),
                    trips: 1,
                    body: body.clone(),
                }]);
            }
            out.extend(with(
                &|r| Stmt::While {
                    label: label.clone(),
                    var: var.clone(),
                    trips: *trips,
                    body: r,
                },
                body,
            ));
        }
        Stmt::Match {
            scrut,
            bind,
            guard,
            arms,
        } => {
            for k in 0..3 {
                let arms2 = arms.clone();
                out.extend(with(
                    &|r| {
                        let mut a = arms2.clone();
                        a[k] = r;
                        Stmt::Match {
                            scrut: scrut.clone(),
                            bind: bind.clone(),
                            guard: *guard,
                            arms: a,
                        }
                    },
                    &arms[k],
                ));
            }
        }
        Stmt::IfLet { name, scrut, then } => {
            out.extend(with(
                &|r| Stmt::IfLet {
                    name: name.clone(),
                    scrut: scrut.clone(),
                    then: r,
                },
                then,
            ));
        }
        Stmt::Loop {
            label,
            var,
            name,
            trips,
            value,
            body,
        } => {
            out.extend(with(
                &|r| Stmt::Loop {
                    label: label.clone(),
                    var: var.clone(),
                    name: name.clone(),
                    trips: *trips,
                    value: value.clone(),
                    body: r,
                },
                body,
            ));
        }
        Stmt::Block {
            label,
            name,
            body,
            cond,
            early,
            tail,
        } => {
            out.extend(with(
                &|r| Stmt::Block {
                    label: label.clone(),
                    name: name.clone(),
                    body: r,
                    cond: cond.clone(),
                    early: early.clone(),
                    tail: tail.clone(),
                },
                body,
            ));
        }
        Stmt::Join { id, spawns } if spawns.len() > 1 => {
            for i in 0..spawns.len() {
                let mut v = spawns.clone();
                v.remove(i);
                out.push(vec![Stmt::Join { id: *id, spawns: v }]);
            }
        }
        _ => {}
    }
    out
}

/// Statements in `p`, nested ones included (the size a minimizer reports).
pub fn size(p: &Program) -> usize {
    fn count(b: &[Stmt]) -> usize {
        b.iter()
            .map(|s| {
                1 + match s {
                    Stmt::If { then, els, .. } => count(then) + count(els),
                    Stmt::IfLet { then, .. } => count(then),
                    Stmt::Match { arms, .. } => arms.iter().map(|a| count(a)).sum(),
                    Stmt::For { body, .. }
                    | Stmt::While { body, .. }
                    | Stmt::Loop { body, .. }
                    | Stmt::Block { body, .. } => count(body),
                    Stmt::Join { spawns, .. } => spawns.len(),
                    _ => 0,
                }
            })
            .sum()
    }
    p.funcs.iter().map(|f| count(&f.body)).sum()
}
