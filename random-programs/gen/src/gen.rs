//! Programs from a seed: a deterministic walk of the grammar in `ast.rs`, tracking the locals
//! in scope (expressions name only those), the enclosing loops (exits name only those), and the
//! constructs around each statement (the coverage report, `coverage.rs`).

use crate::ast::*;
use crate::coverage::Coverage;

/// SplitMix64: the program of a seed must stay the same across crate versions, which a
/// general-purpose generator's algorithm does not promise.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Self {
        Self(seed ^ 0x6a09_e667_f3bc_c908)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n`.
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

/// The generator's state inside one function.
struct FnGen<'a> {
    rng: &'a mut Rng,
    cov: &'a mut Coverage,
    kind: FnKind,
    /// Every recursive function's kind (`f0` first).
    kinds: &'a [FnKind],
    panics: bool,
    /// Locals in scope, innermost scope last; `(name, mutable)`.
    scopes: Vec<Vec<(String, bool)>>,
    /// Labels of the enclosing loops, innermost last.
    loops: Vec<String>,
    /// Constructs around the statement being generated, innermost last.
    context: Vec<&'static str>,
    next_name: usize,
    next_join: usize,
}

/// Generates the program of `seed`, recording what it covers in `cov`.
pub fn program(seed: u64, cov: &mut Coverage) -> Program {
    let mut rng = Rng::new(seed);
    let n = 1 + rng.below(3) as usize;
    let panics = rng.chance(15);
    let kinds: Vec<FnKind> = (0..n)
        .map(|i| match (i, rng.below(4)) {
            (0, _) => FnKind::Plain,
            (_, 0) => FnKind::Opt,
            (_, 1) => FnKind::Res,
            _ => FnKind::Plain,
        })
        .collect();
    let mut funcs = Vec::with_capacity(n);
    for (i, &kind) in kinds.iter().enumerate() {
        let mut g = FnGen {
            rng: &mut rng,
            cov,
            kind,
            kinds: &kinds,
            panics,
            scopes: vec![vec![("acc".into(), true), ("x".into(), false)]],
            loops: Vec::new(),
            context: vec!["fn"],
            next_name: 0,
            next_join: 0,
        };
        let len = 4 + g.rng.below(4) as usize;
        let body = g.block(3, len);
        g.cov.construct(match kind {
            FnKind::Plain => "fn -> u64",
            FnKind::Opt => "fn -> Option",
            FnKind::Res => "fn -> Result",
        });
        funcs.push(Func {
            name: format!("f{i}"),
            kind,
            body,
        });
    }
    if n > 1 {
        cov.construct("mutual recursion");
    }
    Program {
        seed,
        funcs,
        depth: 2 + rng.below(2) as u32,
        x: rng.below(1000),
        panics,
    }
}

impl FnGen<'_> {
    fn fresh(&mut self, prefix: &str) -> String {
        self.next_name += 1;
        format!("{prefix}{}", self.next_name)
    }

    fn declare(&mut self, name: &str, mutable: bool) {
        self.scopes
            .last_mut()
            .expect("a scope")
            .push((name.into(), mutable));
    }

    fn locals(&self) -> Vec<String> {
        self.scopes
            .iter()
            .flatten()
            .map(|(n, _)| n.clone())
            .collect()
    }

    fn mutable_locals(&self) -> Vec<String> {
        let mut seen = std::collections::HashMap::new();
        for (n, m) in self.scopes.iter().flatten() {
            seen.insert(n.clone(), *m);
        }
        let mut out: Vec<String> = seen
            .into_iter()
            .filter(|(_, m)| *m)
            .map(|(n, _)| n)
            .collect();
        out.sort();
        out
    }

    fn expr(&mut self, depth: u32) -> Expr {
        if depth == 0 || self.rng.chance(30) {
            let locals = self.locals();
            return if self.rng.chance(75) {
                Expr::Var(locals[self.rng.below(locals.len() as u64) as usize].clone())
            } else {
                Expr::Lit(self.rng.below(100))
            };
        }
        match self.rng.below(4) {
            0 => Expr::Add(
                Box::new(self.expr(depth - 1)),
                Box::new(self.expr(depth - 1)),
            ),
            1 => Expr::Mul(Box::new(self.expr(depth - 1)), 3 + self.rng.below(1000)),
            2 => Expr::Xor(
                Box::new(self.expr(depth - 1)),
                Box::new(self.expr(depth - 1)),
            ),
            _ => Expr::Rot(
                Box::new(self.expr(depth - 1)),
                1 + self.rng.below(63) as u32,
            ),
        }
    }

    fn cond(&mut self) -> Cond {
        let m = 2 + self.rng.below(5);
        let less = self.rng.chance(50);
        Cond {
            e: self.expr(2),
            m,
            r: if less {
                1 + self.rng.below(m - 1)
            } else {
                self.rng.below(m)
            },
            less,
        }
    }

    /// A statement list of `len` statements at most, constructs nested `nest` deep at most.
    fn block(&mut self, nest: u32, len: usize) -> Vec<Stmt> {
        self.scopes.push(Vec::new());
        let mut out = Vec::new();
        for _ in 0..len {
            let s = self.stmt(nest);
            out.push(s);
        }
        self.scopes.pop();
        out
    }

    /// Generates the body of a construct named `what`, in its own scope.
    fn nested(&mut self, what: &'static str, nest: u32) -> Vec<Stmt> {
        self.context.push(what);
        let len = 1 + self.rng.below(3) as usize;
        let b = self.block(nest - 1, len);
        self.context.pop();
        b
    }

    fn note(&mut self, what: &'static str) {
        self.cov.construct(what);
        let parent = self.context.last().copied().unwrap_or("fn");
        self.cov.pair(parent, what);
        if self.context.len() >= 2 {
            let grand = self.context[self.context.len() - 2];
            self.cov.triple(grand, parent, what);
        }
    }

    fn stmt(&mut self, nest: u32) -> Stmt {
        let pick = if nest == 0 {
            self.rng.below(5)
        } else {
            self.rng.below(16)
        };
        match pick {
            0 | 1 => {
                self.note("let");
                let shadow = self.rng.chance(25);
                let name = if shadow {
                    let l: Vec<String> = self.locals().into_iter().filter(|n| n != "acc").collect();
                    l[self.rng.below(l.len() as u64) as usize].clone()
                } else {
                    self.fresh("v")
                };
                if shadow {
                    self.note("shadowing");
                }
                let value = self.expr(2);
                let mutable = self.rng.chance(50) && name != "acc";
                self.declare(&name, mutable);
                Stmt::Let {
                    name,
                    mutable,
                    value,
                }
            }
            2 => {
                let names = self.mutable_locals();
                let name = names[self.rng.below(names.len() as u64) as usize].clone();
                self.note("assign");
                Stmt::Fold {
                    name,
                    value: self.expr(2),
                }
            }
            3..=5 => {
                self.note("join");
                self.join()
            }
            6 => {
                self.note("if");
                let cond = self.cond();
                let then = self.nested("if", nest);
                let els = if self.rng.chance(60) {
                    self.nested("else", nest)
                } else {
                    Vec::new()
                };
                Stmt::If { cond, then, els }
            }
            7 => {
                self.note("if let");
                let scrut = self.expr(2);
                let name = self.fresh("h");
                self.context.push("if let");
                self.scopes.push(vec![(name.clone(), false)]);
                let len = 1 + self.rng.below(3) as usize;
                let then = self.block(nest - 1, len);
                self.scopes.pop();
                self.context.pop();
                Stmt::IfLet { name, scrut, then }
            }
            8 => {
                self.note("match");
                let scrut = self.expr(2);
                let bind = self.fresh("k");
                let a = self.nested("match arm", nest);
                self.context.push("match guard arm");
                self.scopes.push(vec![(bind.clone(), false)]);
                let len = 1 + self.rng.below(3) as usize;
                let b = self.block(nest - 1, len);
                self.scopes.pop();
                self.context.pop();
                let c = self.nested("match arm", nest);
                Stmt::Match {
                    scrut,
                    bind,
                    guard: self.rng.below(3),
                    arms: [a, b, c],
                }
            }
            9 => {
                self.note("for");
                let var = self.fresh("i");
                let trips = 1 + self.rng.below(MAX_TRIPS);
                self.scopes.push(vec![(var.clone(), false)]);
                let body = self.nested("for", nest);
                self.scopes.pop();
                Stmt::For { var, trips, body }
            }
            10 => {
                self.note("while");
                let label = self.fresh("'w");
                let var = self.fresh("n");
                let trips = 1 + self.rng.below(MAX_TRIPS);
                self.scopes.push(vec![(var.clone(), false)]);
                self.loops.push(label.clone());
                let body = self.nested("while", nest);
                self.loops.pop();
                self.scopes.pop();
                Stmt::While {
                    label,
                    var,
                    trips,
                    body,
                }
            }
            11 => {
                self.note("loop with a value");
                let label = self.fresh("'l");
                let var = self.fresh("n");
                let name = self.fresh("lv");
                let trips = 1 + self.rng.below(MAX_TRIPS);
                self.scopes.push(vec![(var.clone(), false)]);
                let value = self.expr(2);
                self.loops.push(label.clone());
                let body = self.nested("loop", nest);
                self.loops.pop();
                self.scopes.pop();
                Stmt::Loop {
                    label,
                    var,
                    name,
                    trips,
                    value,
                    body,
                }
            }
            12 => {
                self.note("labelled block");
                let label = self.fresh("'b");
                let name = self.fresh("bv");
                self.scopes.push(Vec::new());
                let body = self.nested("labelled block", nest);
                let cond = self.cond();
                let early = self.expr(2);
                let tail = self.expr(2);
                self.scopes.pop();
                Stmt::Block {
                    label,
                    name,
                    body,
                    cond,
                    early,
                    tail,
                }
            }
            13 if !self.loops.is_empty() => {
                let label = self.loops[self.rng.below(self.loops.len() as u64) as usize].clone();
                let cont = self.rng.chance(50);
                self.note(if cont {
                    "continue 'label"
                } else {
                    "break 'label"
                });
                Stmt::Exit {
                    label,
                    cont,
                    cond: self.cond(),
                }
            }
            14 => {
                self.note("early return");
                Stmt::Return {
                    cond: self.cond(),
                    value: self.expr(2),
                }
            }
            15 if self.kind != FnKind::Plain => {
                self.note(if self.kind == FnKind::Opt {
                    "? on Option"
                } else {
                    "? on Result"
                });
                let name = self.fresh("q");
                let value = self.expr(2);
                self.declare(&name, false);
                Stmt::Try { name, value }
            }
            _ => {
                self.note("join");
                self.join()
            }
        }
    }

    fn join(&mut self) -> Stmt {
        self.next_join += 1;
        let id = self.next_join;
        let n = 1 + self.rng.below(4) as usize;
        let mut spawns = Vec::with_capacity(n);
        let mut element = 0;
        let mut compound = false;
        for i in 0..n {
            let callee = match self.rng.below(10) {
                0 => Callee::Generic,
                1 => Callee::ConstGeneric(1 + self.rng.below(5)),
                2 => Callee::Assoc,
                3 => Callee::StructArg,
                4 => Callee::EnumArg(self.rng.below(3) as u8),
                5 if self.panics => Callee::Boom,
                _ => Callee::Rec(self.rng.below(self.kinds.len() as u64) as usize),
            };
            // Only a `u64` goes into an element, a field or a `+=`.
            let plain = !matches!(callee, Callee::Rec(k) if self.kinds[k] != FnKind::Plain);
            let into = match self.rng.below(8) {
                2 => Target::Element(0),
                3 => Target::TupleField,
                4 => Target::StructField,
                5 if !compound => Target::Compound,
                6 => Target::Detached,
                _ => Target::Local(i),
            };
            // Only a `u64` goes into an element, a field or a `+=`, and one child per field
            // (a second would overwrite a pending result).
            let into = match into {
                Target::Local(_) | Target::Detached => into,
                _ if !plain || spawns.iter().any(|s: &Spawn| same_place(&s.into, &into)) => {
                    Target::Local(i)
                }
                Target::Element(_) => {
                    element += 1;
                    Target::Element(element - 1)
                }
                Target::Compound => {
                    compound = true;
                    Target::Compound
                }
                _ => into,
            };
            self.cov.construct(callee_name(&callee));
            self.cov.construct(target_name(&into));
            let parent = self.context.last().copied().unwrap_or("fn");
            self.cov.pair(parent, "join");
            spawns.push(Spawn {
                callee,
                arg: self.expr(2),
                into,
            });
        }
        if n > 1 {
            self.cov.construct("several task!s per join");
        }
        Stmt::Join { id, spawns }
    }
}

fn same_place(a: &Target, b: &Target) -> bool {
    matches!(
        (a, b),
        (Target::TupleField, Target::TupleField) | (Target::StructField, Target::StructField)
    )
}

pub fn callee_name(c: &Callee) -> &'static str {
    match c {
        Callee::Rec(_) => "task! of a recursive function",
        Callee::Generic => "task! of a generic function",
        Callee::ConstGeneric(_) => "task! of a const-generic function",
        Callee::Assoc => "task! of an associated function (#[gtap::tasks])",
        Callee::StructArg => "struct argument",
        Callee::EnumArg(_) => "enum argument",
        Callee::Boom => "panic path",
    }
}

pub fn target_name(t: &Target) -> &'static str {
    match t {
        Target::Local(_) => "result into a local",
        Target::Element(_) => "result into an array element",
        Target::TupleField => "result into a tuple field",
        Target::StructField => "result into a struct field",
        Target::Compound => "result combined at the join (+=)",
        Target::Detached => "detached child",
    }
}
