//! Round 4 of the shapes users write (see `user_shapes.rs`, `user_shapes_more.rs`,
//! `user_shapes_r3.rs`), each on the CPU executor against a plain Rust twin.

use gtap::program;

fn check<P: gtap::Program, T: gtap::TaskFn>(f: T, args: T::Args, want: T::Output)
where
    T::Output: PartialEq + std::fmt::Debug,
{
    let got = gtap::run::<P, T>(f, args).expect("runs on the CPU executor");
    assert_eq!(got, want, "{}", T::NAME);
}

#[gtap::function]
fn sq(x: u64) -> u64 {
    x.wrapping_mul(x)
}

// ---------------------------------------------------------------------------------------------
// a join before a diverging call that is not one of the panic macros

#[gtap::function]
fn abort_arm(n: u64) -> u64 {
    let v;
    match n {
        0..=100 => v = n + 1,
        _ => {
            let r = task!(sq(n));
            taskwait!();
            if r == 7 {
                return r;
            }
            std::process::abort();
        }
    }
    let w = task!(sq(v));
    taskwait!();
    w + v
}

#[gtap::function]
fn exit_arm(n: u64) -> u64 {
    let v: u64;
    if n < 50 {
        v = n * 3;
    } else {
        let r = task!(sq(n));
        taskwait!();
        if r != 0 {
            std::process::exit(3)
        }
        core::panic!("zero");
    }
    let w = task!(sq(v));
    taskwait!();
    w
}

#[gtap::function]
fn loop_arm(n: u64) -> u64 {
    let v;
    match n % 4 {
        0 | 1 | 2 => v = n,
        _ => {
            let r = task!(sq(n));
            taskwait!();
            if r > 1 {
                return r;
            }
            #[allow(clippy::empty_loop)]
            loop {}
        }
    }
    let w = task!(sq(v));
    taskwait!();
    w
}

#[gtap::function]
fn block_return(n: u64) -> u64 {
    let v;
    if n % 2 == 0 {
        v = n;
    } else {
        let r = task!(sq(n));
        taskwait!();
        {
            return r + 1;
        }
    }
    let w = task!(sq(v));
    taskwait!();
    w
}

#[gtap::function]
fn let_return(n: u64) -> u64 {
    let v;
    if n % 2 == 0 {
        v = n;
    } else {
        let r = task!(sq(n));
        taskwait!();
        let _z: u64 = { return r + 2 };
    }
    let w = task!(sq(v));
    taskwait!();
    w
}

#[gtap::function]
fn tail_abort(n: u64) -> u64 {
    let v = match n {
        0..=100 => n,
        _ => {
            let r = task!(sq(n));
            taskwait!();
            if r > 0 {
                return r;
            }
            std::process::abort()
        }
    };
    let w = task!(sq(v));
    taskwait!();
    w
}

program!(R4a = [sq, abort_arm, exit_arm, loop_arm, block_return, let_return, tail_abort]);

#[test]
fn joins_before_diverging_calls() {
    for n in [0u64, 3, 4, 7, 100, 101, 1000] {
        if n <= 100 {
            check::<R4a, _>(abort_arm, (n,), (n + 1) * (n + 1) + n + 1);
            check::<R4a, _>(tail_abort, (n,), n * n);
        } else {
            check::<R4a, _>(tail_abort, (n,), n * n);
        }
        if n < 50 {
            check::<R4a, _>(exit_arm, (n,), 9 * n * n);
        }
        if n % 4 != 3 {
            check::<R4a, _>(loop_arm, (n,), n * n);
        } else {
            check::<R4a, _>(loop_arm, (n,), n * n);
        }
        let b = if n % 2 == 0 { n * n } else { n * n + 1 };
        check::<R4a, _>(block_return, (n,), b);
        let l = if n % 2 == 0 { n * n } else { n * n + 2 };
        check::<R4a, _>(let_return, (n,), l);
    }
}

// ---------------------------------------------------------------------------------------------
// `queue = expr` hints with non-trivial expressions, on a runtime with several queues

fn check_queues<P: gtap::Program, T: gtap::TaskFn>(f: T, args: T::Args, want: T::Output)
where
    T::Output: PartialEq + std::fmt::Debug,
{
    let config = gtap::Config { queues: 3, workers: 2, ..Default::default() };
    let got = gtap::Runtime::cpu(config)
        .expect("a CPU runtime")
        .run::<P, T>(f, args)
        .expect("runs on the CPU executor");
    assert_eq!(got, want, "{}", T::NAME);
}

const fn level_queue(depth: u32) -> u32 {
    if depth > 4 {
        2
    } else {
        depth % 2
    }
}

#[gtap::function]
fn qtree(depth: u32, lo: u64) -> u64 {
    if depth == 0 {
        return lo;
    }
    let hint = [0u32, 1, 2];
    let a = task!(queue = level_queue(depth), qtree(depth - 1, lo * 2));
    let b = task!(queue = hint[(lo % 3) as usize], qtree(depth - 1, lo * 2 + 1));
    let q = if lo % 2 == 0 { 1u32 } else { 2 };
    taskwait!(queue = { let k = q + depth; k % 3 });
    let c = task!(queue = (a + b) % 3, qtree(depth / 2, lo));
    taskwait!(queue = (a % 3) as u32);
    a + b + c * q as u64
}

fn seq_qtree(depth: u32, lo: u64) -> u64 {
    if depth == 0 {
        return lo;
    }
    let q = if lo % 2 == 0 { 1u64 } else { 2 };
    let a = seq_qtree(depth - 1, lo * 2);
    let b = seq_qtree(depth - 1, lo * 2 + 1);
    let c = seq_qtree(depth / 2, lo);
    a + b + c * q
}

/// `?` in the queue hint of a spawn and of a join.
#[gtap::function]
fn qtry(n: u64, qs: [Option<u32>; 4]) -> Option<u64> {
    if n == 0 {
        return Some(1);
    }
    let a = task!(queue = qs[(n % 4) as usize]?, qtry(n - 1, qs));
    taskwait!(queue = qs[(n % 4) as usize].map_or(0, |q| q % 2));
    if n % 3 == 0 {
        // no child pending: a `?` in the join's hint returns before it
        taskwait!(queue = qs[((n + 1) % 4) as usize]?);
    }
    Some(a? + n)
}

fn seq_qtry(n: u64, qs: [Option<u32>; 4]) -> Option<u64> {
    if n == 0 {
        return Some(1);
    }
    qs[(n % 4) as usize]?;
    let a = seq_qtry(n - 1, qs);
    if n % 3 == 0 {
        qs[((n + 1) % 4) as usize]?;
    }
    Some(a? + n)
}

program!(R4q = [qtree, qtry]);

#[test]
fn queue_hints_with_expressions() {
    for d in [0u32, 1, 3, 6] {
        for lo in [0u64, 5] {
            check_queues::<R4q, _>(qtree, (d, lo), seq_qtree(d, lo));
        }
    }
    for qs in [[Some(0), Some(1), Some(2), Some(1)], [Some(0), None, Some(2), Some(1)]] {
        for n in [0u64, 1, 2, 5] {
            check_queues::<R4q, _>(qtry, (n, qs), seq_qtry(n, qs));
        }
    }
}
