//! The Rust constructs around joins that `#[gtap::function]` lowers (issue 11, item 3), one
//! small task function each: task results written into places (array elements with run-time
//! indexes, struct and tuple fields, `arr[i].x`), generic task functions (type and const
//! parameters), `?` as the task's early return, `for` over ranges typed by their bounds, and
//! loops and blocks whose values are produced after a join. `src/bin/constructs.rs` runs each
//! through `Runtime` and checks it against sequential code.

/// `x * x`: the leaf most constructs spawn.
#[gtap::function]
pub fn sq(x: u64) -> u64 {
    x * x
}

/// `x + 1`.
#[gtap::function]
pub fn inc(x: u64) -> u64 {
    x + 1
}

/// Eight children, each result into `counts[i]` (a run-time index, in a loop).
#[gtap::function]
pub fn into_array(n: u64) -> u64 {
    let mut counts = [0u64; 8];
    let mut i = 0;
    while i < 8 {
        counts[i] = task!(sq(n + i as u64));
        i += 1;
    }
    taskwait!();
    let mut s = 0;
    for c in counts {
        s += c;
    }
    s
}

/// A pair of fields.
#[derive(Clone, Copy, Default)]
pub struct Pair {
    /// Receives a child's result.
    pub x: u64,
    /// Set by the parent.
    pub y: u64,
}

/// Results into a struct field and a tuple field.
#[gtap::function]
pub fn into_fields(n: u64) -> u64 {
    let mut p = Pair::default();
    let mut t = (0u64, 0u64);
    p.x = task!(sq(n));
    p.y = task!(inc(n));
    t.0 = 7;
    t.1 = task!(sq(n + 1));
    taskwait!();
    p.x * 1000 + p.y * 10 + t.0 + t.1
}

/// Results into `ps[i].x`.
#[gtap::function]
pub fn into_element_fields(n: u64) -> u64 {
    let mut ps = [Pair::default(); 4];
    let mut i = 0;
    while i < 4 {
        ps[i].y = i as u64;
        i += 1;
    }
    for i in 0..4 {
        ps[i].x = task!(sq(n + i as u64));
    }
    taskwait!();
    let mut s = 0;
    for p in ps {
        s += p.x * p.y;
    }
    s
}

/// Sums `scale * k` for `k` in `lo..hi` by halves, for any numeric `T`.
#[gtap::function]
pub fn gsum<T: Copy + core::ops::Add<Output = T> + Default + 'static>(
    lo: u32,
    hi: u32,
    scale: T,
) -> T {
    if hi - lo <= 1 {
        let mut v = T::default();
        let mut k = 0;
        while k < lo {
            v = v + scale;
            k += 1;
        }
        return v;
    }
    let mid = lo + (hi - lo) / 2;
    let a = task!(gsum::<T>(lo, mid, scale));
    let b = task!(gsum::<T>(mid, hi, scale));
    taskwait!();
    a + b
}

/// `N` children (a const parameter), results into an array of `N`.
#[gtap::function]
pub fn fan<const N: usize>(x: u64) -> u64 {
    let mut parts = [0u64; N];
    for i in 0..N {
        parts[i] = task!(sq(x + i as u64));
    }
    taskwait!();
    let mut s = 0;
    for p in parts {
        s += p;
    }
    s
}

/// `x * x`, or `None` on overflow.
#[gtap::function]
pub fn checked_sq(x: u64) -> Option<u64> {
    x.checked_mul(x)
}

/// `?` on `Option`s before and after a join.
#[gtap::function]
pub fn opt_chain(x: u64) -> Option<u64> {
    let a = x.checked_sub(1)?;
    let b = task!(checked_sq(a));
    taskwait!();
    let b = b?;
    Some(b + 1)
}

/// Why `halve` failed.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Odd {
    /// The odd value.
    At(u64),
}

/// `x / 2`, or an error for odd `x`.
#[gtap::function]
pub fn halve(x: u64) -> Result<u64, Odd> {
    if x % 2 == 1 {
        return Err(Odd::At(x));
    }
    Ok(x / 2)
}

/// `?` on `Result`s after joins.
#[gtap::function]
pub fn res_chain(x: u64) -> Result<u64, Odd> {
    let a = task!(halve(x));
    taskwait!();
    let b = task!(halve(a?));
    taskwait!();
    Ok(b? + 1)
}

/// `for i in 0..x` with `x: u64` (the element type comes from the bound).
#[gtap::function]
pub fn for_u64(x: u64) -> u64 {
    let mut total = 0;
    for i in 0..x {
        let s = task!(sq(i));
        taskwait!();
        total += s;
    }
    total
}

/// `for i in 1..=x`.
#[gtap::function]
pub fn for_inclusive(x: u64) -> u64 {
    let mut total = 0;
    for i in 1..=x {
        let s = task!(sq(i));
        taskwait!();
        total += s * i;
    }
    total
}

/// A labelled `loop` left by `break 'l value` after a join.
#[gtap::function]
pub fn break_value(x: u64) -> u64 {
    let mut k = x;
    let v = 'search: loop {
        let s = task!(sq(k));
        taskwait!();
        if s > 50 {
            break 'search s + k;
        }
        k += 1;
    };
    v * 2
}

/// A `loop` with a join as the task's result.
#[gtap::function]
pub fn tail_loop(x: u64) -> u64 {
    let mut k = x;
    loop {
        let s = task!(sq(k));
        taskwait!();
        if s % 3 == 0 {
            break s;
        }
        k += 1;
    }
}

/// `let x = { .. join .. x .. };` shadowing the parameter it reads.
#[gtap::function]
pub fn shadow(x: u64) -> u64 {
    let x = {
        let a = task!(sq(x));
        taskwait!();
        a * x
    };
    x + 1
}

/// A labelled block whose value is produced after a join.
#[gtap::function]
pub fn block_value(x: u64) -> u64 {
    let v = 'b: {
        let a = task!(sq(x));
        taskwait!();
        if a > 10 {
            break 'b a - 10;
        }
        a + 100
    };
    v
}

/// `let v = loop { .. }` left from a nested `while` by a labelled break.
#[gtap::function]
pub fn nested_breaks(x: u64) -> u64 {
    let mut row = 0;
    let v = 'outer: loop {
        let mut j = 0;
        while j < 4 {
            let a = task!(sq(row + j));
            taskwait!();
            if a > x {
                break 'outer a;
            }
            if a == 4 {
                break;
            }
            j += 1;
        }
        row += 1;
    };
    v
}

/// A type whose associated functions are task functions (`#[gtap::tasks]`).
pub struct Range;

#[gtap::tasks]
impl Range {
    /// The sum of the squares of `x..x + 8`, halving the range, spawned as `Self::f` and
    /// `Range::f`.
    #[gtap::function]
    pub fn sum_sq(lo: u64, hi: u64) -> u64 {
        if hi - lo == 1 {
            return lo * lo;
        }
        let mid = Self::mid(lo, hi);
        let a = task!(Self::sum_sq(lo, mid));
        let b = task!(Range::sum_sq(mid, hi));
        taskwait!();
        a + b
    }

    /// An ordinary associated function beside them.
    pub fn mid(lo: u64, hi: u64) -> u64 {
        lo + (hi - lo) / 2
    }

    /// The entry the example checks: one argument, like the other constructs.
    #[gtap::function]
    pub fn squares(x: u64) -> u64 {
        let s = task!(Self::sum_sq(x, x + 8));
        taskwait!();
        s
    }
}

gtap::program!(
    /// Every construct of this module.
    pub Constructs = [
        sq, inc, into_array, into_fields, into_element_fields, gsum::<u64>, fan::<4>, fan::<7>,
        checked_sq, opt_chain, halve, res_chain, for_u64, for_inclusive, break_value, tail_loop,
        shadow, block_value, nested_breaks, Range::sum_sq, Range::squares,
    ]
);
