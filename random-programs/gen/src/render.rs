//! A program as Rust source, in two builds: [`Build::Tasks`], the input of `#[gtap::function]`,
//! and [`Build::Reference`], the same text with each `task!(f(..))` read as the call `f(..)`
//! and each `taskwait!()` as nothing, which plain Rust runs as the oracle.

use std::fmt::Write;

use crate::ast::*;

/// The task-data limit of the generated recursive functions (`max_frame_bytes`); the runs
/// set `Config::task_data_limit` to it.
pub const MAX_FRAME_BYTES: usize = 4096;

/// Which of the two builds to write.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Build {
    Tasks,
    Reference,
}

/// What every program's module uses: its argument types and the helpers `?` applies to.
pub const COMMON: &str = r#"
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair {
    pub a: u64,
    pub b: u64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    Dot,
    Line(u64),
    Rect { w: u64, h: u64 },
}

/// `None` for a third of the values.
pub fn halve(v: u64) -> Option<u64> {
    if v % 3 == 0 { None } else { Some(v / 2) }
}

/// What a join reads of a `Pair` that received a result.
pub fn pair_value(p: Pair) -> u64 {
    p.a ^ p.b.rotate_left(9)
}

/// `Err` for a fifth of the values.
pub fn check(v: u64) -> Result<u64, u32> {
    if v % 5 == 1 { Err((v % 1000) as u32) } else { Ok(v ^ 0x55) }
}
"#;

/// The leaves every program may spawn, as task functions or (reference) plain ones.
fn leaves(build: Build) -> String {
    let f = if build == Build::Tasks {
        "#[gtap::function]\n"
    } else {
        ""
    };
    let tasks = if build == Build::Tasks {
        "#[gtap::tasks]\n"
    } else {
        ""
    };
    format!(
        r#"
{f}pub fn gen_leaf<T: Copy + Into<u64> + 'static>(v: T) -> u64 {{
    let w: u64 = v.into();
    w.wrapping_mul(0x2545_f491) ^ 17
}}

{f}pub fn scaled<const N: u64>(v: u64) -> u64 {{
    v.wrapping_mul(N).rotate_left(N as u32)
}}

pub struct Ops;

{tasks}impl Ops {{
    {f}pub fn mix(v: u64) -> u64 {{
        (v ^ (v >> 7)).wrapping_mul(0x9e37)
    }}
}}

{f}pub fn by_pair(p: Pair) -> u64 {{
    p.a.wrapping_mul(31) ^ p.b
}}

{f}pub fn by_shape(s: Shape) -> u64 {{
    match s {{
        Shape::Dot => 1,
        Shape::Line(l) => l.wrapping_add(2),
        Shape::Rect {{ w, h }} => w.wrapping_mul(h) ^ 3,
    }}
}}

{f}pub fn boom(v: u64) -> u64 {{
    if v % 61 == 7 {{
        panic!("boom at {{v}}");
    }}
    v ^ 0xb00
}}
"#
    )
}

/// The module of `p` in `build`, named `name`.
pub fn module(p: &Program, build: Build, name: &str) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "/// Seed {}.", p.seed);
    let _ = writeln!(s, "#[allow(unused, clippy::all)]");
    let _ = writeln!(s, "pub mod {name} {{");
    s.push_str("use super::common::*;\n");
    s.push_str(&leaves(build));
    for f in &p.funcs {
        function(&mut s, p, f, build);
    }
    if build == Build::Tasks {
        let mut kinds: Vec<String> = p.funcs.iter().map(|f| f.name.clone()).collect();
        kinds.push("gen_leaf::<u32>".into());
        kinds.extend((1..=5).map(|n| format!("scaled::<{n}>")));
        kinds.extend(["Ops::mix", "by_pair", "by_shape", "boom"].map(String::from));
        let _ = writeln!(
            s,
            "gtap::program!(pub {} = [{}]);",
            crate::program_name(p.seed),
            kinds.join(", ")
        );
    }
    s.push_str("}\n");
    s
}

fn ty(kind: FnKind) -> &'static str {
    match kind {
        FnKind::Plain => "u64",
        FnKind::Opt => "Option<u64>",
        FnKind::Res => "Result<u64, u32>",
    }
}

fn wrap(kind: FnKind, e: &str) -> String {
    match kind {
        FnKind::Plain => e.to_string(),
        FnKind::Opt => format!("Some({e})"),
        FnKind::Res => format!("Ok({e})"),
    }
}

fn function(s: &mut String, p: &Program, f: &Func, build: Build) {
    if build == Build::Tasks {
        // Generated bodies keep many locals across joins: past the default 256 bytes.
        let _ = writeln!(s, "#[gtap::function(max_frame_bytes = {MAX_FRAME_BYTES})]");
    }
    let _ = writeln!(s, "pub fn {}(d: u32, x: u64) -> {} {{", f.name, ty(f.kind));
    let _ = writeln!(s, "    let mut acc: u64 = x ^ {};", p.seed % 9973);
    let cx = Cx {
        p,
        kind: f.kind,
        build,
    };
    for st in &f.body {
        cx.stmt(s, st, 1);
    }
    let _ = writeln!(s, "    {}", wrap(f.kind, "acc"));
    s.push_str("}\n\n");
}

struct Cx<'a> {
    p: &'a Program,
    kind: FnKind,
    build: Build,
}

pub fn expr(e: &Expr) -> String {
    match e {
        Expr::Lit(v) => format!("{v}u64"),
        Expr::Var(n) => n.clone(),
        Expr::Add(a, b) => format!("{}.wrapping_add({})", paren(a), expr(b)),
        Expr::Mul(a, k) => format!("{}.wrapping_mul({k})", paren(a)),
        Expr::Xor(a, b) => format!("({} ^ {})", expr(a), expr(b)),
        Expr::Rot(a, k) => format!("{}.rotate_left({k})", paren(a)),
    }
}

fn paren(e: &Expr) -> String {
    match e {
        Expr::Var(_) | Expr::Xor(..) => expr(e),
        _ => format!("({})", expr(e)),
    }
}

fn cond(c: &Cond) -> String {
    let op = if c.less { "<" } else { "==" };
    format!("{} % {} {op} {}", paren(&c.e), c.m, c.r)
}

fn pad(depth: usize) -> String {
    "    ".repeat(depth)
}

impl Cx<'_> {
    fn block(&self, s: &mut String, body: &[Stmt], depth: usize) {
        for st in body {
            self.stmt(s, st, depth);
        }
    }

    fn stmt(&self, s: &mut String, st: &Stmt, depth: usize) {
        let i = pad(depth);
        match st {
            Stmt::Let {
                name,
                mutable,
                value,
            } => {
                let m = if *mutable { "mut " } else { "" };
                let _ = writeln!(s, "{i}let {m}{name}: u64 = {};", expr(value));
            }
            Stmt::Fold { name, value } => {
                let _ = writeln!(s, "{i}{name} = {name}.wrapping_add({});", expr(value));
            }
            Stmt::If { cond: c, then, els } => {
                let _ = writeln!(s, "{i}if {} {{", cond(c));
                self.block(s, then, depth + 1);
                if els.is_empty() {
                    let _ = writeln!(s, "{i}}}");
                } else {
                    let _ = writeln!(s, "{i}}} else {{");
                    self.block(s, els, depth + 1);
                    let _ = writeln!(s, "{i}}}");
                }
            }
            Stmt::IfLet { name, scrut, then } => {
                let _ = writeln!(s, "{i}if let Some({name}) = halve({}) {{", expr(scrut));
                self.block(s, then, depth + 1);
                let _ = writeln!(s, "{i}}}");
            }
            Stmt::Match {
                scrut,
                bind,
                guard,
                arms,
            } => {
                let _ = writeln!(s, "{i}match {} % 4 {{", paren(scrut));
                let _ = writeln!(s, "{i}    0 => {{");
                self.block(s, &arms[0], depth + 2);
                let _ = writeln!(s, "{i}    }}");
                let _ = writeln!(s, "{i}    {bind} if {bind} > {guard} => {{");
                self.block(s, &arms[1], depth + 2);
                let _ = writeln!(s, "{i}    }}");
                let _ = writeln!(s, "{i}    _ => {{");
                self.block(s, &arms[2], depth + 2);
                let _ = writeln!(s, "{i}    }}");
                let _ = writeln!(s, "{i}}}");
            }
            Stmt::For { var, trips, body } => {
                let _ = writeln!(s, "{i}for {var} in 0..{trips}u64 {{");
                self.block(s, body, depth + 1);
                let _ = writeln!(s, "{i}}}");
            }
            Stmt::While {
                label,
                var,
                trips,
                body,
            } => {
                let _ = writeln!(s, "{i}let mut {var}: u64 = 0;");
                let _ = writeln!(s, "{i}{label}: while {var} < {trips} {{");
                let _ = writeln!(s, "{i}    {var} += 1;");
                self.block(s, body, depth + 1);
                let _ = writeln!(s, "{i}}}");
            }
            Stmt::Loop {
                label,
                var,
                name,
                trips,
                value,
                body,
            } => {
                let _ = writeln!(s, "{i}let mut {var}: u64 = 0;");
                let _ = writeln!(s, "{i}let {name}: u64 = {label}: loop {{");
                let _ = writeln!(s, "{i}    {var} += 1;");
                let _ = writeln!(s, "{i}    if {var} > {trips} {{");
                let _ = writeln!(s, "{i}        break {label} {};", expr(value));
                let _ = writeln!(s, "{i}    }}");
                self.block(s, body, depth + 1);
                let _ = writeln!(s, "{i}}};");
                let _ = writeln!(s, "{i}acc = acc.wrapping_add({name});");
            }
            Stmt::Block {
                label,
                name,
                body,
                cond: c,
                early,
                tail,
            } => {
                let _ = writeln!(s, "{i}let {name}: u64 = {label}: {{");
                self.block(s, body, depth + 1);
                let _ = writeln!(s, "{i}    if {} {{", cond(c));
                let _ = writeln!(s, "{i}        break {label} {};", expr(early));
                let _ = writeln!(s, "{i}    }}");
                let _ = writeln!(s, "{i}    {}", expr(tail));
                let _ = writeln!(s, "{i}}};");
                let _ = writeln!(s, "{i}acc = acc.wrapping_add({name});");
            }
            Stmt::Exit {
                label,
                cont,
                cond: c,
            } => {
                let what = if *cont {
                    format!("continue {label}")
                } else if label.starts_with("'l") {
                    format!("break {label} acc")
                } else {
                    format!("break {label}")
                };
                let _ = writeln!(s, "{i}if {} {{", cond(c));
                let _ = writeln!(s, "{i}    {what};");
                let _ = writeln!(s, "{i}}}");
            }
            Stmt::Return { cond: c, value } => {
                let _ = writeln!(s, "{i}if {} {{", cond(c));
                let _ = writeln!(s, "{i}    return {};", wrap(self.kind, &expr(value)));
                let _ = writeln!(s, "{i}}}");
            }
            Stmt::Try { name, value } => {
                let helper = if self.kind == FnKind::Opt {
                    "halve"
                } else {
                    "check"
                };
                let _ = writeln!(s, "{i}let {name}: u64 = {helper}({})?;", expr(value));
                let _ = writeln!(s, "{i}acc = acc.wrapping_add({name});");
            }
            Stmt::Join { id, spawns } => self.join(s, *id, spawns, depth),
        }
    }

    /// The call of a child, `f(args)`, and how its result becomes a `u64`.
    fn call(&self, sp: &Spawn) -> (String, &'static str) {
        let a = expr(&sp.arg);
        match &sp.callee {
            Callee::Rec(k) => {
                let f = &self.p.funcs[*k];
                let conv = match f.kind {
                    FnKind::Plain => "",
                    FnKind::Opt => ".unwrap_or(7)",
                    FnKind::Res => ".unwrap_or_else(|e| e as u64)",
                };
                (format!("{}(d - 1, {a})", f.name), conv)
            }
            Callee::Generic => (format!("gen_leaf::<u32>(({a}) as u32)"), ""),
            Callee::ConstGeneric(n) => (format!("scaled::<{n}>({a})"), ""),
            Callee::Assoc => (format!("Ops::mix({a})"), ""),
            Callee::StructArg => (format!("by_pair(Pair {{ a: {a}, b: acc }})"), ""),
            Callee::EnumArg(v) => {
                let shape = match v {
                    0 => "Shape::Dot".to_string(),
                    1 => format!("Shape::Line({a})"),
                    _ => format!("Shape::Rect {{ w: {a}, h: x }}"),
                };
                (format!("by_shape({shape})"), "")
            }
            Callee::Boom => (format!("boom({a})"), ""),
        }
    }

    fn task(&self, call: &str) -> String {
        match self.build {
            Build::Tasks => format!("task!({call})"),
            Build::Reference => call.to_string(),
        }
    }

    fn join(&self, s: &mut String, id: usize, spawns: &[Spawn], depth: usize) {
        let i = pad(depth);
        let j = pad(depth + 1);
        let _ = writeln!(s, "{i}if d > 0 {{");
        let elements = spawns
            .iter()
            .filter(|sp| matches!(sp.into, Target::Element(_)))
            .count();
        if elements > 0 {
            let _ = writeln!(s, "{j}let mut arr{id} = [0u64; {elements}];");
        }
        if spawns
            .iter()
            .any(|sp| matches!(sp.into, Target::TupleField))
        {
            let _ = writeln!(s, "{j}let mut tup{id} = (3u64, 0u64);");
        }
        if spawns
            .iter()
            .any(|sp| matches!(sp.into, Target::StructField))
        {
            let _ = writeln!(s, "{j}let mut pair{id} = Pair {{ a: 5, b: 0 }};");
        }
        if spawns.iter().any(|sp| matches!(sp.into, Target::Compound)) {
            let _ = writeln!(s, "{j}let mut sum{id}: u64 = 11;");
        }
        let mut reads = Vec::new();
        for sp in spawns {
            let (call, conv) = self.call(sp);
            let t = self.task(&call);
            match &sp.into {
                Target::Local(k) => {
                    let _ = writeln!(s, "{j}let r{id}_{k} = {t};");
                    reads.push(format!("r{id}_{k}{conv}"));
                }
                Target::Element(k) => {
                    let _ = writeln!(s, "{j}arr{id}[{k}] = {t};");
                }
                Target::TupleField => {
                    let _ = writeln!(s, "{j}tup{id}.1 = {t};");
                }
                Target::StructField => {
                    let _ = writeln!(s, "{j}pair{id}.b = {t};");
                }
                Target::Compound => {
                    let _ = writeln!(s, "{j}sum{id} += {t};");
                }
                Target::Detached => {
                    let _ = match self.build {
                        Build::Tasks => writeln!(s, "{j}{t};"),
                        Build::Reference => writeln!(s, "{j}let _ = {t};"),
                    };
                }
            }
        }
        if self.build == Build::Tasks {
            let _ = writeln!(s, "{j}taskwait!();");
        }
        if elements > 0 {
            reads.push(format!(
                "arr{id}.iter().fold(0u64, |a, v| a.rotate_left(5) ^ v)"
            ));
        }
        if spawns
            .iter()
            .any(|sp| matches!(sp.into, Target::TupleField))
        {
            reads.push(format!("tup{id}.0.wrapping_mul(tup{id}.1)"));
        }
        if spawns
            .iter()
            .any(|sp| matches!(sp.into, Target::StructField))
        {
            reads.push(format!("pair_value(pair{id})"));
        }
        if spawns.iter().any(|sp| matches!(sp.into, Target::Compound)) {
            reads.push(format!("sum{id}"));
        }
        for r in reads {
            let _ = writeln!(s, "{j}acc = acc.rotate_left(3).wrapping_add({r});");
        }
        let _ = writeln!(s, "{i}}}");
    }
}
