//! Which block-level functions read their arguments from one shared copy
//! (`TaskFn::ARGS_READ_ONLY`): exactly those whose steps never write `args` after the spawn, so
//! that no `mut` parameter is kept across a `taskwait!()`. Each function also runs on the CPU
//! executor against plain Rust; the GPU side (threads of a block reading copy 0, or their own
//! copies) is `gpu-smoke`'s mixed-granularity row.

mod common;

use common::check;
use gtap::TaskFn;

#[gtap::function]
fn leaf(x: u64) -> u64 {
    x * 3 + 1
}

/// Parameters read after the join, none `mut`: read only.
#[gtap::function(block)]
fn reads_after_join(x: u64, k: u64) -> u64 {
    let a = task!(leaf(x));
    taskwait!();
    a + x * k
}

/// A `mut` parameter changed before the join and read after it: its value is saved into the
/// thread's own `args`, so the arguments are not read only.
#[gtap::function(block)]
fn mut_kept(mut x: u64) -> u64 {
    x += 5;
    let a = task!(leaf(x));
    taskwait!();
    a + x
}

/// The same as `mut_kept`, written as `docs/block-workers.md` advises: the changed value is a
/// local (a per-thread field), so the arguments stay read only.
#[gtap::function(block)]
fn local_kept(x: u64) -> u64 {
    let mut x = x;
    x += 5;
    let a = task!(leaf(x));
    taskwait!();
    a + x
}

/// A `mut` parameter not live after the join: nothing writes `args`.
#[gtap::function(block)]
fn mut_not_kept(mut x: u64) -> u64 {
    x += 5;
    let a = task!(leaf(x));
    taskwait!();
    a
}

/// A `mut` parameter that receives a task result: the child writes into `args`.
#[gtap::function(block)]
fn mut_joined(mut x: u64) -> u64 {
    x = task!(leaf(x));
    taskwait!();
    x + 1
}

/// The `mut` name of a parameter pattern is an ordinary local (a field of its own, not `args`).
#[gtap::function(block)]
fn pattern_mut((mut lo, hi): (u64, u64)) -> u64 {
    lo += hi;
    let a = task!(leaf(lo));
    taskwait!();
    a + lo + hi
}

/// A block-level function without joins: one copy for the block in any case.
#[gtap::function(block)]
fn no_join(x: u64) -> u64 {
    x + 1
}

/// A thread-level function: the constant is the trait's default (only block-level workers
/// read it).
#[gtap::function]
fn thread_level(x: u64) -> u64 {
    let a = task!(leaf(x));
    taskwait!();
    a + x
}

gtap::program!(
    BlockArgs = [
        leaf,
        reads_after_join,
        mut_kept,
        local_kept,
        mut_not_kept,
        mut_joined,
        pattern_mut,
        no_join,
        thread_level
    ]
);

#[test]
fn read_only_arguments_are_the_ones_no_step_writes() {
    let got = [
        (
            "reads_after_join",
            <reads_after_join as TaskFn>::ARGS_READ_ONLY,
        ),
        ("mut_kept", <mut_kept as TaskFn>::ARGS_READ_ONLY),
        ("local_kept", <local_kept as TaskFn>::ARGS_READ_ONLY),
        ("mut_not_kept", <mut_not_kept as TaskFn>::ARGS_READ_ONLY),
        ("mut_joined", <mut_joined as TaskFn>::ARGS_READ_ONLY),
        ("pattern_mut", <pattern_mut as TaskFn>::ARGS_READ_ONLY),
        ("no_join", <no_join as TaskFn>::ARGS_READ_ONLY),
        ("thread_level", <thread_level as TaskFn>::ARGS_READ_ONLY),
    ];
    let want = [
        ("reads_after_join", true),
        ("mut_kept", false),
        ("local_kept", true),
        ("mut_not_kept", true),
        ("mut_joined", false),
        ("pattern_mut", true),
        ("no_join", true),
        ("thread_level", false),
    ];
    assert_eq!(got, want);
    // The program's table follows its list.
    assert_eq!(
        <BlockArgs as gtap::Program>::KIND_ARGS_READ_ONLY,
        &[false, true, false, true, true, false, true, true, false]
    );
}

#[test]
fn block_level_functions_compute_what_plain_rust_does() {
    let plain = |x: u64| x * 3 + 1;
    for x in [0u64, 1, 7, 1000] {
        check::<BlockArgs, _>(reads_after_join, (x, 9), plain(x) + x * 9);
        check::<BlockArgs, _>(mut_kept, (x,), plain(x + 5) + x + 5);
        check::<BlockArgs, _>(local_kept, (x,), plain(x + 5) + x + 5);
        check::<BlockArgs, _>(mut_not_kept, (x,), plain(x + 5));
        check::<BlockArgs, _>(mut_joined, (x,), plain(x) + 1);
        check::<BlockArgs, _>(pattern_mut, ((x, 4),), plain(x + 4) + x + 8);
        check::<BlockArgs, _>(no_join, (x,), x + 1);
        check::<BlockArgs, _>(thread_level, (x,), plain(x) + x);
    }
}
