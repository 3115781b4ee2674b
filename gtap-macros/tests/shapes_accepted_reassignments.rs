//! The assignments of task results that are accepted beside the errors for them (a second
//! assignment of a local that is not `mut`, `crate::assigned`; an update of one, a raw pointer to
//! a result's root), each on the CPU executor against a plain Rust twin with several inputs.

#![allow(
    clippy::needless_late_init,
    reason = "the twins spell the task functions' late initializations as they do"
)]

mod common;

use common::check;
use gtap::program;

#[gtap::function]
fn sq(x: u64) -> u64 {
    x.wrapping_mul(x)
}

fn seq_sq(x: u64) -> u64 {
    x.wrapping_mul(x)
}

/// `let a;` assigned once by a task on every path: on two branches, and straight.
#[gtap::function]
fn once_on_each_branch(n: u64) -> u64 {
    let a;
    if n.is_multiple_of(2) {
        a = task!(sq(n));
    } else {
        a = task!(sq(n + 1));
    }
    let b;
    b = task!(sq(3));
    taskwait!();
    a + b
}

fn seq_once_on_each_branch(n: u64) -> u64 {
    let a;
    if n.is_multiple_of(2) {
        a = seq_sq(n);
    } else {
        a = seq_sq(n + 1);
    }
    let b;
    b = seq_sq(3);
    a + b
}

/// `let a;` assigned by a task on one branch and by a value on the other, and a `let` in a
/// loop body (a fresh local each iteration) assigned by a task each time.
#[gtap::function]
fn task_or_value(n: u64) -> u64 {
    let a;
    if n > 5 {
        a = task!(sq(n));
        taskwait!();
    } else {
        a = n + 100;
    }
    let mut total = a;
    for i in 0..n % 4 {
        let r;
        r = task!(sq(i));
        taskwait!();
        total += r;
    }
    total
}

fn seq_task_or_value(n: u64) -> u64 {
    let a;
    if n > 5 {
        a = seq_sq(n);
    } else {
        a = n + 100;
    }
    let mut total = a;
    for i in 0..n % 4 {
        let r;
        r = seq_sq(i);
        total += r;
    }
    total
}

/// A `mut` local assigned twice by tasks and once by a value after a join; a `mut` parameter
/// assigned by a task; a `let` with the value after the join, once.
#[gtap::function]
fn mut_twice(mut n: u64) -> u64 {
    let mut a = 1;
    a = task!(sq(a + n));
    taskwait!();
    a = task!(sq(a % 1000));
    taskwait!();
    let b = a;
    a = b + 1;
    n = task!(sq(n % 7));
    let c;
    taskwait!();
    c = n + a;
    c
}

fn seq_mut_twice(n: u64) -> u64 {
    let mut a = seq_sq(1 + n);
    a = seq_sq(a % 1000);
    let b = a;
    a = b + 1;
    let n = seq_sq(n % 7);
    n + a
}

/// `let` without a value given a task's result once on each path out of a labelled block, a
/// `match` arm (the other returns) and a `loop` left by `break`.
#[gtap::function]
fn once_through_jumps(n: u64) -> u64 {
    let b;
    match n {
        0 => return 7,
        _ => b = task!(sq(n)),
    }
    let a;
    'b: {
        if n > 3 {
            a = task!(sq(n + 2));
            break 'b;
        }
        a = task!(sq(1));
    }
    let c;
    let mut i = 0;
    loop {
        i += 1;
        if i * i > n {
            c = task!(sq(i));
            break;
        }
    }
    taskwait!();
    a + b + c
}

fn seq_once_through_jumps(n: u64) -> u64 {
    if n == 0 {
        return 7;
    }
    let b = seq_sq(n);
    let a = if n > 3 { seq_sq(n + 2) } else { seq_sq(1) };
    let mut i = 0;
    loop {
        i += 1;
        if i * i > n {
            break;
        }
    }
    a + b + seq_sq(i)
}

/// A raw pointer to a local that receives no task result, beside one that does; an update
/// and an element result into `mut` locals.
#[gtap::function]
fn pointer_beside(n: u64) -> u64 {
    let mut other = n;
    let p = &raw mut other;
    let r = task!(sq(n));
    let mut v = [0u64; 2];
    v[1] = task!(sq(n + 1));
    let mut t = (1u64, 2u64);
    t.0 += task!(sq(2));
    // SAFETY: `other` is alive and nothing else refers to it in this state.
    unsafe { *p += 1 };
    taskwait!();
    other + r + v[1] + t.0 + t.1
}

fn seq_pointer_beside(n: u64) -> u64 {
    (n + 1) + seq_sq(n) + seq_sq(n + 1) + (1 + seq_sq(2)) + 2
}

program!(
    R6 = [
        sq,
        once_on_each_branch,
        task_or_value,
        mut_twice,
        once_through_jumps,
        pointer_beside
    ]
);

#[test]
fn assigned_once_or_mut() {
    for n in [0u64, 1, 2, 5, 6, 9, 30] {
        check::<R6, _>(once_on_each_branch, (n,), seq_once_on_each_branch(n));
        check::<R6, _>(task_or_value, (n,), seq_task_or_value(n));
        check::<R6, _>(mut_twice, (n,), seq_mut_twice(n));
        check::<R6, _>(once_through_jumps, (n,), seq_once_through_jumps(n));
        check::<R6, _>(pointer_beside, (n,), seq_pointer_beside(n));
    }
}
