//! The generated programs' syntax: task functions made of the statement forms that
//! `docs/frontend.md` accepts, each of which renders to the macro's input and to the plain-Rust
//! reference (`render.rs`).
//!
//! # Invariants (kept by `gen.rs`, relied on by `shrink.rs` only as far as a shrunk program
//! still compiles; one that does not is not taken)
//!
//! - Every function has the parameters of its [`FnKind`] and an accumulator `acc`, declared
//!   first and returned last; statements fold values into `acc` or into locals they declared.
//! - A [`Stmt::Join`] holds its spawns, its `taskwait!()` and the reads of its results in one
//!   block, under `if d > 0`: no result is read early, left unjoined at a `break`, `return` or
//!   `?`, and every recursion lowers `d`.
//! - Arithmetic wraps; loops run at most [`MAX_TRIPS`] times.

/// The most iterations a generated loop makes.
pub const MAX_TRIPS: u64 = 3;

/// A generated module: its functions, the root call's arguments, and where it panics.
#[derive(Clone, Debug)]
pub struct Program {
    /// The seed it was generated from (shrunk programs keep it).
    pub seed: u64,
    /// `f0` is the root; all take `(d: u32, x: u64)`.
    pub funcs: Vec<Func>,
    /// The root's depth budget and argument.
    pub depth: u32,
    pub x: u64,
    /// The leaf `boom` panics for some arguments (a panic path the runs must report).
    pub panics: bool,
}

/// A recursive task function `name(d: u32, x: u64) -> kind's type`.
#[derive(Clone, Debug)]
pub struct Func {
    pub name: String,
    pub kind: FnKind,
    pub body: Vec<Stmt>,
}

/// What a recursive function returns, and so what `?` in it may apply to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FnKind {
    /// `-> u64`.
    Plain,
    /// `-> Option<u64>`, with `?` on `Option`s.
    Opt,
    /// `-> Result<u64, u32>`, with `?` on `Result`s.
    Res,
}

/// A child of a join: what it calls and where its result goes.
#[derive(Clone, Debug)]
pub struct Spawn {
    pub callee: Callee,
    pub arg: Expr,
    pub into: Target,
}

/// The task functions a `task!` may name.
#[derive(Clone, Debug)]
pub enum Callee {
    /// A recursive function of the program, by index, called with `d - 1`.
    Rec(usize),
    /// The leaf generic over its argument type (`gen_leaf::<u32>`).
    Generic,
    /// The leaf generic over a constant (`scaled::<N>`).
    ConstGeneric(u64),
    /// The associated function `Ops::mix` under `#[gtap::tasks]`.
    Assoc,
    /// The leaf taking a struct (`by_pair(Pair { .. })`).
    StructArg,
    /// The leaf taking an enum (`by_shape(Shape::..)`), with the variant's index.
    EnumArg(u8),
    /// The leaf that may panic.
    Boom,
}

/// Where a child's result goes.
#[derive(Clone, Debug)]
pub enum Target {
    /// `let rN = task!(..)`.
    Local(usize),
    /// `arr[i] = task!(..)` into the join's array.
    Element(usize),
    /// `tup.1 = task!(..)`.
    TupleField,
    /// `pair.b = task!(..)`.
    StructField,
    /// `sum += task!(..)`: combined at the join.
    Compound,
    /// `task!(..);`: detached, its result dropped.
    Detached,
}

/// An expression over the locals in scope: wrapping arithmetic only.
#[derive(Clone, Debug)]
pub enum Expr {
    Lit(u64),
    Var(String),
    Add(Box<Expr>, Box<Expr>),
    Mul(Box<Expr>, u64),
    Xor(Box<Expr>, Box<Expr>),
    Rot(Box<Expr>, u32),
}

/// A condition: `e % m == r` or `e % m < r`.
#[derive(Clone, Debug)]
pub struct Cond {
    pub e: Expr,
    pub m: u64,
    pub r: u64,
    pub less: bool,
}

/// The statements a body is made of.
#[derive(Clone, Debug)]
pub enum Stmt {
    /// `let [mut] name = e;` (a new local, or a shadowing of one).
    Let {
        name: String,
        mutable: bool,
        value: Expr,
    },
    /// `acc = acc.wrapping_add(e);` or `name = e;` for a `mut` local.
    Fold { name: String, value: Expr },
    If {
        cond: Cond,
        then: Vec<Stmt>,
        els: Vec<Stmt>,
    },
    /// `if let Some(name) = halve(e) { .. }`.
    IfLet {
        name: String,
        scrut: Expr,
        then: Vec<Stmt>,
    },
    /// `match e % 4 { 0 => .., k if k > g => .., _ => .. }`, `k` bound in the second arm.
    Match {
        scrut: Expr,
        bind: String,
        guard: u64,
        arms: [Vec<Stmt>; 3],
    },
    /// `for var in 0..trips { .. }`.
    For {
        var: String,
        trips: u64,
        body: Vec<Stmt>,
    },
    /// `let mut var = 0; 'label: while var < trips { var += 1; .. }`.
    While {
        label: String,
        var: String,
        trips: u64,
        body: Vec<Stmt>,
    },
    /// `let mut var = 0; let name = 'label: loop { var += 1; if var > trips { break 'label
    /// value; } .. };`, then `acc` takes `name`.
    Loop {
        label: String,
        var: String,
        name: String,
        trips: u64,
        value: Expr,
        body: Vec<Stmt>,
    },
    /// `let name = 'label: { ..; if cond { break 'label early; } tail };`, then `acc` takes
    /// `name`.
    Block {
        label: String,
        name: String,
        body: Vec<Stmt>,
        cond: Cond,
        early: Expr,
        tail: Expr,
    },
    /// `if cond { break 'label; }` or `continue 'label` (inside that loop).
    Exit {
        label: String,
        cont: bool,
        cond: Cond,
    },
    /// `if cond { return <e as the function's type>; }`.
    Return { cond: Cond, value: Expr },
    /// `let name = halve(e)?;` (`Opt`) or `let name = check(e)?;` (`Res`).
    Try { name: String, value: Expr },
    /// Children, their join, and the fold of their results into `acc`, under `if d > 0`.
    Join { id: usize, spawns: Vec<Spawn> },
}

impl Program {
    /// The function that panics when the program does (a run's expected `TaskPanicked`).
    pub const PANICKING: &'static str = "boom";
}
