//! Hand-expanded task functions (what `#[gtap::function]` will generate; see
//! `docs/contract-sketch-fib.rs`) for the GPU smoke tests: fib (joins), nqueens (detached spawns
//! and a user atomic), a tree with detached leaves under a joining root (a record kept alive by
//! detached children), a spawn on a queue that does not exist, a task that panics, and
//! (written with `#[gtap::function]`) a task that stalls past the watchdog.
#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]
#![allow(
    non_camel_case_types,
    non_upper_case_globals,
    clippy::undocumented_unsafe_blocks,
    missing_docs
)]

use gtap::__private as g;
use gtap::Slice;

/// Expands the boilerplate of a task function's marker, constants and arity.
macro_rules! marker {
    ($marker:ident, $f:ident, $args:ty, $out:ty, $joins:expr, $arity:literal, [$($callee:expr),*]) => {
        #[derive(Clone, Copy)]
        pub struct $marker;
        pub const $f: $marker = $marker;
        impl g::Arity<$arity> for $marker {}
        unsafe impl g::TaskFn for $marker {
            type Args = $args;
            type Output = $out;
            const ID: g::KindId = gtap::task::kind_id(concat!(module_path!(), "::", stringify!($f)));
            const NAME: &'static str = stringify!($f);
            const JOINS: bool = $joins;
            const CALLEES: &'static [g::KindId] = &[$(gtap::task::kind_of(&$callee)),*];
            unsafe fn step<C: g::Context>(ctx: &mut C) -> g::Step {
                unsafe { $f::step(ctx) }
            }
        }
    };
}

// ---- fib(n) = fib(n-1) + fib(n-2), a task per call ----------------------------------------------
marker!(__gtap_fib_marker, fib, (u32,), u64, true, 1, [fib, fib]);
#[repr(C)]
pub struct FibFrame<L0, L1> {
    args: (u32,),
    a: L0,
    b: L1,
}
#[allow(non_snake_case)]
mod fib {
    use super::*;
    #[inline(always)]
    pub(super) unsafe fn step<C: g::Context>(ctx: &mut C) -> g::Step {
        let frame = ctx.frame() as *mut FibFrame<_, _>;
        if C::PROBE {
            let (s, a) = g::frame_layout::<_, { g::DEFAULT_MAX_FRAME_BYTES }>(frame);
            ctx.report_layout(s, a);
            return g::Step::Done;
        }
        let result = ctx.result_dst() as *mut u64;
        match ctx.state() {
            0 => {
                let (n,) = unsafe { (*frame).args };
                if n < 2 {
                    unsafe { g::write_result(result, u64::from(n)) };
                    return g::Step::Done;
                }
                if !unsafe {
                    g::spawn::<_, 1, _>(ctx, &super::fib, 0, &raw mut (*frame).a, (n - 1,))
                } {
                    return g::Step::Aborted;
                }
                if !unsafe {
                    g::spawn::<_, 1, _>(ctx, &super::fib, 0, &raw mut (*frame).b, (n - 2,))
                } {
                    return g::Step::Aborted;
                }
                if ctx.wait(1, 0) {
                    return g::Step::Suspended;
                }
                let (a, b): (u64, u64) = unsafe { ((*frame).a, (*frame).b) };
                unsafe { g::write_result(result, a + b) };
                g::Step::Done
            }
            1 => {
                let (a, b): (u64, u64) = unsafe { ((*frame).a, (*frame).b) };
                unsafe { g::write_result(result, a + b) };
                g::Step::Done
            }
            _ => ctx.unknown_kind(0),
        }
    }
}
gtap::program!(pub Fib = [fib]);

// ---- nqueens: detached spawns down to `cutoff` rows, then a sequential count -----------------
/// Completions of a partial board, sequentially, without recursion (an explicit stack).
#[must_use]
pub fn nqueens_seq(n: u32, row: u32, cols: u32, d1: u32, d2: u32) -> u64 {
    if row == n {
        return 1;
    }
    let all = (1u32 << n) - 1;
    let mut stack = [(0u32, 0u32, 0u32, 0u32); 32];
    let mut depth = 0usize;
    stack[0] = (cols, d1, d2, all & !(cols | d1 | d2));
    let rows_left = (n - row) as usize;
    let mut count = 0u64;
    loop {
        let (c, a, b, free) = stack[depth];
        if free == 0 {
            if depth == 0 {
                return count;
            }
            depth -= 1;
            continue;
        }
        let bit = free & free.wrapping_neg();
        stack[depth].3 = free ^ bit;
        if depth + 1 == rows_left {
            count += 1;
            continue;
        }
        let (nc, na, nb) = (c | bit, ((a | bit) << 1) & all, (b | bit) >> 1);
        depth += 1;
        stack[depth] = (nc, na, nb, all & !(nc | na | nb));
    }
}

type NqArgs = (u32, u32, u32, u32, u32, u32, Slice<u64>);
marker!(
    __gtap_nqueens_marker,
    nqueens,
    NqArgs,
    (),
    false,
    7,
    [nqueens]
);
#[repr(C)]
pub struct NqFrame {
    args: NqArgs,
}
mod nqueens {
    use super::*;
    #[inline(always)]
    pub(super) unsafe fn step<C: g::Context>(ctx: &mut C) -> g::Step {
        let frame = ctx.frame() as *mut NqFrame;
        if C::PROBE {
            let (s, a) = g::frame_layout::<_, { g::DEFAULT_MAX_FRAME_BYTES }>(frame);
            ctx.report_layout(s, a);
            return g::Step::Done;
        }
        let (n, row, cols, d1, d2, cutoff, count) = unsafe { (*frame).args };
        if row >= cutoff || row == n {
            let found = nqueens_seq(n, row, cols, d1, d2);
            if found > 0 {
                count.atomic_add(0, found);
            }
            return g::Step::Done;
        }
        let all = (1u32 << n) - 1;
        let mut free = all & !(cols | d1 | d2);
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            let a = (
                n,
                row + 1,
                cols | bit,
                ((d1 | bit) << 1) & all,
                (d2 | bit) >> 1,
                cutoff,
                count,
            );
            if !unsafe {
                g::spawn::<_, 7, _>(ctx, &super::nqueens, 0, g::discard(&super::nqueens), a)
            } {
                return g::Step::Aborted;
            }
        }
        g::Step::Done
    }
}
gtap::program!(pub NQueens = [nqueens]);

// ---- mixed: a joining root whose last step spawns a detached tree --------------------------
// fn leaves(depth, out) { if depth == 0 { out.atomic_add(0, 1); return } for _ in 0..3 { task!(leaves(depth - 1, out)) } }
// fn mixroot(n, depth, out) -> u64 { let a = task!(fib(n)); taskwait!(); task!(leaves(depth, out)); a }
marker!(
    __gtap_leaves_marker,
    leaves,
    (u32, Slice<u64>),
    (),
    false,
    2,
    [leaves]
);
#[repr(C)]
pub struct LeavesFrame {
    args: (u32, Slice<u64>),
}
mod leaves {
    use super::*;
    #[inline(always)]
    pub(super) unsafe fn step<C: g::Context>(ctx: &mut C) -> g::Step {
        let frame = ctx.frame() as *mut LeavesFrame;
        if C::PROBE {
            let (s, a) = g::frame_layout::<_, { g::DEFAULT_MAX_FRAME_BYTES }>(frame);
            ctx.report_layout(s, a);
            return g::Step::Done;
        }
        let (depth, out) = unsafe { (*frame).args };
        if depth == 0 {
            out.atomic_add(0, 1);
            return g::Step::Done;
        }
        for _ in 0..3 {
            if !unsafe {
                g::spawn::<_, 2, _>(
                    ctx,
                    &super::leaves,
                    0,
                    g::discard(&super::leaves),
                    (depth - 1, out),
                )
            } {
                return g::Step::Aborted;
            }
        }
        g::Step::Done
    }
}
marker!(
    __gtap_mixroot_marker,
    mixroot,
    (u32, u32, Slice<u64>),
    u64,
    true,
    3,
    [fib, leaves]
);
#[repr(C)]
pub struct MixFrame<L0, L1, L2> {
    args: (u32, u32, Slice<u64>),
    a: L0,
    depth: L1,
    out: L2,
}
mod mixroot {
    use super::*;
    #[inline(always)]
    pub(super) unsafe fn step<C: g::Context>(ctx: &mut C) -> g::Step {
        let frame = ctx.frame() as *mut MixFrame<_, _, _>;
        if C::PROBE {
            let (s, a) = g::frame_layout::<_, { g::DEFAULT_MAX_FRAME_BYTES }>(frame);
            ctx.report_layout(s, a);
            return g::Step::Done;
        }
        let result = ctx.result_dst() as *mut u64;
        let (a, depth, out): (u64, u32, Slice<u64>) = match ctx.state() {
            0 => {
                let (n, depth, out) = unsafe { (*frame).args };
                if !unsafe { g::spawn::<_, 1, _>(ctx, &super::fib, 0, &raw mut (*frame).a, (n,)) } {
                    return g::Step::Aborted;
                }
                if ctx.wait(1, 0) {
                    unsafe {
                        g::save(&raw mut (*frame).depth, depth);
                        g::save(&raw mut (*frame).out, out);
                    }
                    return g::Step::Suspended;
                }
                (unsafe { (*frame).a }, depth, out)
            }
            1 => unsafe { ((*frame).a, (*frame).depth, (*frame).out) },
            _ => return ctx.unknown_kind(0),
        };
        if !unsafe {
            g::spawn::<_, 2, _>(
                ctx,
                &super::leaves,
                0,
                g::discard(&super::leaves),
                (depth, out),
            )
        } {
            return g::Step::Aborted;
        }
        unsafe { g::write_result(result, a) };
        g::Step::Done
    }
}
gtap::program!(pub Mixed = [mixroot, fib, leaves]);

// ---- failure modes ---------------------------------------------------------------------------
// fn badq(x: u32) { if x > 0 { task!(queue = x + 6, badq(x - 1)) } }
marker!(__gtap_badq_marker, badq, (u32,), (), false, 1, [badq]);
#[repr(C)]
pub struct BadqFrame {
    args: (u32,),
}
mod badq {
    use super::*;
    #[inline(always)]
    pub(super) unsafe fn step<C: g::Context>(ctx: &mut C) -> g::Step {
        let frame = ctx.frame() as *mut BadqFrame;
        if C::PROBE {
            let (s, a) = g::frame_layout::<_, { g::DEFAULT_MAX_FRAME_BYTES }>(frame);
            ctx.report_layout(s, a);
            return g::Step::Done;
        }
        let (x,) = unsafe { (*frame).args };
        if x > 0
            && !unsafe {
                g::spawn::<_, 1, _>(
                    ctx,
                    &super::badq,
                    g::queue(x + 6),
                    g::discard(&super::badq),
                    (x - 1,),
                )
            }
        {
            return g::Step::Aborted;
        }
        g::Step::Done
    }
}
gtap::program!(pub BadQueue = [badq]);

// fn oob(s: Slice<u64>) { let _ = s.get(s.len()); }  -- a bounds-check panic
marker!(__gtap_oob_marker, oob, (Slice<u64>,), u64, false, 1, []);
#[repr(C)]
pub struct OobFrame {
    args: (Slice<u64>,),
}
mod oob {
    use super::*;
    #[inline(always)]
    pub(super) unsafe fn step<C: g::Context>(ctx: &mut C) -> g::Step {
        let frame = ctx.frame() as *mut OobFrame;
        if C::PROBE {
            let (s, a) = g::frame_layout::<_, { g::DEFAULT_MAX_FRAME_BYTES }>(frame);
            ctx.report_layout(s, a);
            return g::Step::Done;
        }
        let (s,) = unsafe { (*frame).args };
        let v = s.get(s.len());
        unsafe { g::write_result(ctx.result_dst() as *mut u64, v) };
        g::Step::Done
    }
}
gtap::program!(pub Oob = [oob]);

/// Busy-waits `ns` nanoseconds without finishing a batch (the watchdog check: its warp makes no
/// progress), then returns how many times it read the clock.
#[gtap::function]
pub fn stall(ns: u64) -> u64 {
    let start = gtap::clock::now_ns();
    let mut reads = 1;
    while gtap::clock::now_ns() - start < ns {
        reads += 1;
    }
    reads
}
gtap::program!(pub Stall = [stall]);

// ---- block-level workers ------------------------------------------------------------------------

/// Block-level fib: the leader spawns both children (one per block, not one per thread), and
/// the joined sum goes through a block reduction, so every thread's frame copy is exercised.
#[gtap::function(block)]
pub fn bfib(n: u32) -> u64 {
    if n < 2 {
        return u64::from(n);
    }
    let mut a = 0;
    let mut b = 0;
    if gtap::block::is_leader() {
        a = task!(bfib(n - 1));
        b = task!(bfib(n - 2));
    }
    taskwait!();
    gtap::block::sum_u64(a + b)
}

/// A thread-level leaf.
#[gtap::function]
pub fn square(x: u64) -> u64 {
    x * x
}

/// Per-thread spawns of thread-level children from a block-level task: thread `t` spawns
/// `square(base + t)` and keeps `t` across the join; the block sums
/// `(base + t)^2 + t` over its threads.
#[gtap::function(block)]
pub fn bsquares(base: u64) -> u64 {
    let t = u64::from(gtap::block::thread_index());
    let r = task!(square(base + t));
    taskwait!();
    gtap::block::sum_u64(r + t)
}

/// A `mut` parameter kept across the join, changed per thread: thread `t` adds `t` to its
/// `base` before it spawns `square(base)`, so each thread needs its own copy of the arguments
/// (`TaskFn::ARGS_READ_ONLY` is false, and the threads copy the spawner's on first entry; had
/// they shared one, each would read another's `base` back). The block sums `b^2 + b` over
/// `b = base + t`.
#[gtap::function(block)]
pub fn bshift(mut base: u64) -> u64 {
    base += u64::from(gtap::block::thread_index());
    let r = task!(square(base));
    taskwait!();
    gtap::block::sum_u64(r + base)
}

/// A thread-level root joining three block-level children (mixed granularity).
#[gtap::function]
pub fn mixed_root(n: u32, base: u64) -> u64 {
    let x = task!(bfib(n));
    let y = task!(bsquares(base));
    let z = task!(bshift(3 * base));
    taskwait!();
    (x * 1_000_003 + y) * 31 + z
}

/// What [`mixed_root`] returns on blocks of `threads` threads.
#[must_use]
pub fn mixed_root_ref(n: u32, base: u64, threads: u64) -> u64 {
    fn fib(n: u32) -> u64 {
        if n < 2 {
            u64::from(n)
        } else {
            fib(n - 1) + fib(n - 2)
        }
    }
    let squares: u64 = (0..threads).map(|t| (base + t) * (base + t) + t).sum();
    let shifted: u64 = (0..threads).map(|t| 3 * base + t).map(|b| b * b + b).sum();
    (fib(n) * 1_000_003 + squares) * 31 + shifted
}

/// A thread-level fib tree per thread, spawned by one block-level task: a deep thread-level
/// private part on a block-level worker (the overflow queues' block check). Returns
/// `threads * fib(n)`.
#[gtap::function(block)]
pub fn bfibs(n: u32) -> u64 {
    let r = task!(fib(n));
    taskwait!();
    gtap::block::sum_u64(r)
}

gtap::program!(pub BlockFib = [bfib]);
gtap::program!(pub BlockFibs = [bfibs, fib]);
gtap::program!(pub BlockMixed = [mixed_root, bfib, bsquares, bshift, square]);

gtap::kernel!(BlockFib);
gtap::kernel!(BlockFibs);
gtap::kernel!(BlockMixed);
gtap::kernel!(Fib);
gtap::kernel!(NQueens);
gtap::kernel!(Mixed);
gtap::kernel!(BadQueue);
gtap::kernel!(Oob);
gtap::kernel!(Stall);

/// The chip's atomic throughput, for comparing the scheduler's task rate against it (see
/// `bin/atomic-rate.rs`): every thread adds 1 to `counters[tid % spread]` `iters` times with
/// the same relaxed device-scope `atom.add` the scheduler uses.
///
/// # Safety
///
/// `counters` points to `spread` zeroed `u32`s in device memory; `spread >= 1`.
#[cfg(target_arch = "nvptx64")]
#[no_mangle]
pub unsafe extern "ptx-kernel" fn gtap_atomic_rate(counters: *mut u32, iters: u32, spread: u32) {
    use gtap_device::arch as a;
    let tid = a::block_idx_x() * a::block_dim_x() + a::thread_idx_x();
    // SAFETY: tid % spread < spread, inside the caller's allocation.
    let p = unsafe { counters.add((tid % spread) as usize) };
    let mut sum = 0u32;
    for _ in 0..iters {
        // SAFETY: `p` is a valid, aligned device address.
        sum = sum.wrapping_add(unsafe { a::atomic_add_u32(p, 1) });
    }
    if sum == u32::MAX {
        // Keeps the returned values live, so the adds stay `atom` (not `red`) as in the scheduler.
        // SAFETY: as above.
        unsafe { a::atomic_add_u32(p, 0) };
    }
}
