//! Hand-expanded `#[gtap::function]`s (what the proc-macro will generate), shared by the
//! integration tests until the macro lands. Each block starts with the source it expands.
//!
//! The expansions follow `docs/contract-sketch-fib.rs`: a marker type and value, a `#[repr(C)]`
//! frame with the arguments first, and a `step` that reports its layout on the probe pass and
//! otherwise `match`es on the resume state.
#![allow(
    dead_code,
    non_upper_case_globals,
    non_camel_case_types,
    reason = "fixtures"
)]

use gtap_device::data::Slice;
use gtap_device::glue as g;
use gtap_device::task::{kind_id, Arity, Context, KindId, Step, TaskFn};

/// The probe pass of a hand-expanded step: report the frame layout and return.
macro_rules! probe {
    ($ctx:ident, $frame:ident, $limit:expr) => {
        if C::PROBE {
            let (size, align) = g::frame_layout::<_, { $limit }>($frame);
            $ctx.report_layout(size, align);
            return Step::Done;
        }
    };
}

/// Declares a marker type and value for a task function.
macro_rules! marker {
    ($name:ident, $marker:ident, $arity:literal) => {
        #[derive(Clone, Copy, Debug)]
        pub struct $marker;
        pub const $name: $marker = $marker;
        impl Arity<$arity> for $marker {}
    };
}

const fn id(name: &str) -> KindId {
    kind_id(name)
}

// -------------------------------------------------------------------------------------------
// fn fib(n: u32) -> u64 {
//     if n < 2 { return n as u64; }
//     let a = task!(fib(n - 1));
//     let b = task!(fib(n - 2));
//     taskwait!();
//     a + b
// }
marker!(fib, __gtap_fib_marker, 1);

#[repr(C)]
pub struct FibFrame {
    args: (u32,),
    a: u64,
    b: u64,
}

// SAFETY: `step` follows the protocol of gtap_device::task: arguments at offset 0, layout
// reported on the probe pass, result written before Done, Aborted right after a refused spawn.
unsafe impl TaskFn for __gtap_fib_marker {
    type Args = (u32,);
    type Output = u64;
    const ID: KindId = id("tests::fib");
    const NAME: &'static str = "fib";
    const JOINS: bool = true;
    const CALLEES: &'static [KindId] = &[id("tests::fib"), id("tests::fib")];

    unsafe fn step<C: Context>(ctx: &mut C) -> Step {
        let frame = ctx.frame().cast::<FibFrame>();
        probe!(ctx, frame, g::DEFAULT_MAX_FRAME_BYTES);
        let result = ctx.result_dst().cast::<u64>();
        // SAFETY (all blocks below): `frame` is this kind's frame (Context contract); child
        // result slots are fields of it that nothing touches until the join.
        match ctx.state() {
            0 => {
                // SAFETY: see above.
                let (n,) = unsafe { (*frame).args };
                if n < 2 {
                    // SAFETY: `result` is this task's result destination.
                    unsafe { g::write_result(result, u64::from(n)) };
                    return Step::Done;
                }
                // SAFETY: see above.
                if !unsafe { g::spawn::<_, 1, _>(ctx, &fib, 0, &raw mut (*frame).a, (n - 1,)) } {
                    return Step::Aborted;
                }
                // SAFETY: see above.
                if !unsafe { g::spawn::<_, 1, _>(ctx, &fib, 0, &raw mut (*frame).b, (n - 2,)) } {
                    return Step::Aborted;
                }
                if ctx.wait(1, 0) {
                    return Step::Suspended;
                }
                // The executor ran both children already (as calls): go on at state 1.
                // SAFETY: both children were joined; their slots are frame fields.
                let (a, b) = unsafe { ((*frame).a, (*frame).b) };
                // SAFETY: `result` is this task's result destination.
                unsafe { g::write_result(result, a + b) };
                Step::Done
            }
            1 => {
                // SAFETY: see above; both children were joined.
                let (a, b) = unsafe { ((*frame).a, (*frame).b) };
                // SAFETY: `result` is this task's result destination.
                unsafe { g::write_result(result, a + b) };
                Step::Done
            }
            _ => ctx.unknown_kind(0),
        }
    }
}

gtap_device::program!(pub Fib = [fib]);

pub fn fib_seq(n: u32) -> u64 {
    let (mut a, mut b) = (0u64, 1u64);
    for _ in 0..n {
        (a, b) = (b, a + b);
    }
    a
}

// -------------------------------------------------------------------------------------------
// fn nqueens(n: u32, row: u32, cols: u32, d1: u32, d2: u32, count: Slice<u64>) {
//     if row == n { count.atomic_add(0, 1); return; }
//     let mut free = !(cols | d1 | d2) & ((1 << n) - 1);
//     while free != 0 {
//         let bit = free & free.wrapping_neg();
//         free ^= bit;
//         task!(nqueens(n, row + 1, cols | bit, (d1 | bit) << 1, (d2 | bit) >> 1, count));
//     }
// }   // children detached: no taskwait
marker!(nqueens, __gtap_nqueens_marker, 6);

#[repr(C)]
pub struct NQueensFrame {
    args: (u32, u32, u32, u32, u32, Slice<u64>),
}

// SAFETY: as for fib.
unsafe impl TaskFn for __gtap_nqueens_marker {
    type Args = (u32, u32, u32, u32, u32, Slice<u64>);
    type Output = ();
    const ID: KindId = id("tests::nqueens");
    const NAME: &'static str = "nqueens";
    const JOINS: bool = false;
    const CALLEES: &'static [KindId] = &[id("tests::nqueens")];

    unsafe fn step<C: Context>(ctx: &mut C) -> Step {
        let frame = ctx.frame().cast::<NQueensFrame>();
        probe!(ctx, frame, g::DEFAULT_MAX_FRAME_BYTES);
        // SAFETY: the arguments are at offset 0 of this kind's frame.
        let (n, row, cols, d1, d2, count) = unsafe { (*frame).args };
        if row == n {
            count.atomic_add(0, 1);
            return Step::Done;
        }
        let mut free = !(cols | d1 | d2) & ((1 << n) - 1);
        while free != 0 {
            let bit = free & free.wrapping_neg();
            free ^= bit;
            let args = (
                n,
                row + 1,
                cols | bit,
                (d1 | bit) << 1,
                (d2 | bit) >> 1,
                count,
            );
            let dst = g::discard(&nqueens);
            // SAFETY: a null result destination.
            if !unsafe { g::spawn::<_, 6, _>(ctx, &nqueens, 0, dst, args) } {
                return Step::Aborted;
            }
        }
        Step::Done
    }
}

gtap_device::program!(pub NQueens = [nqueens]);

pub fn nqueens_seq(n: u32, row: u32, cols: u32, d1: u32, d2: u32) -> u64 {
    if row == n {
        return 1;
    }
    let mut free = !(cols | d1 | d2) & ((1 << n) - 1);
    let mut total = 0;
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        total += nqueens_seq(n, row + 1, cols | bit, (d1 | bit) << 1, (d2 | bit) >> 1);
    }
    total
}

// -------------------------------------------------------------------------------------------
// Joins wait for whole subtrees, detached ones included:
//
// fn spray(counter: Slice<u64>, width: u32, depth: u32) {
//     counter.atomic_add(0, 1);
//     if depth > 0 { for _ in 0..width { task!(spray(counter, width, depth - 1)); } }
// }
// fn fill(s: Slice<u64>, base: u64) {          // plain writes, detached halves
//     if s.len() <= 8 { for i in 0..s.len() { s.set(i, (base + i) * 3); } return; }
//     let (l, r) = s.split_at(s.len() / 2);
//     task!(fill(l, base)); task!(fill(r, base + l.len()));
// }
// fn subtree(counter: Slice<u64>, data: Slice<u64>, width: u32, depth: u32) -> u64 {
//     task!(spray(counter, width, depth));
//     task!(fill(data, 0));
//     taskwait!();
//     let mut sum = 0; for i in 0..data.len() { sum += data.get(i); }
//     counter.atomic_load(0) + sum
// }
marker!(spray, __gtap_spray_marker, 3);
marker!(fill, __gtap_fill_marker, 2);
marker!(subtree, __gtap_subtree_marker, 4);

#[repr(C)]
pub struct SprayFrame {
    args: (Slice<u64>, u32, u32),
}

// SAFETY: as for fib.
unsafe impl TaskFn for __gtap_spray_marker {
    type Args = (Slice<u64>, u32, u32);
    type Output = ();
    const ID: KindId = id("tests::spray");
    const NAME: &'static str = "spray";
    const JOINS: bool = false;
    const CALLEES: &'static [KindId] = &[id("tests::spray")];

    unsafe fn step<C: Context>(ctx: &mut C) -> Step {
        let frame = ctx.frame().cast::<SprayFrame>();
        probe!(ctx, frame, g::DEFAULT_MAX_FRAME_BYTES);
        // SAFETY: the arguments are at offset 0 of this kind's frame.
        let (counter, width, depth) = unsafe { (*frame).args };
        counter.atomic_add(0, 1);
        if depth > 0 {
            for _ in 0..width {
                let dst = g::discard(&spray);
                // SAFETY: a null result destination.
                if !unsafe { g::spawn::<_, 3, _>(ctx, &spray, 0, dst, (counter, width, depth - 1)) }
                {
                    return Step::Aborted;
                }
            }
        }
        Step::Done
    }
}

#[repr(C)]
pub struct FillFrame {
    args: (Slice<u64>, u64),
}

// SAFETY: as for fib.
unsafe impl TaskFn for __gtap_fill_marker {
    type Args = (Slice<u64>, u64);
    type Output = ();
    const ID: KindId = id("tests::fill");
    const NAME: &'static str = "fill";
    const JOINS: bool = false;
    const CALLEES: &'static [KindId] = &[id("tests::fill"), id("tests::fill")];

    unsafe fn step<C: Context>(ctx: &mut C) -> Step {
        let frame = ctx.frame().cast::<FillFrame>();
        probe!(ctx, frame, g::DEFAULT_MAX_FRAME_BYTES);
        // SAFETY: the arguments are at offset 0 of this kind's frame.
        let (s, base) = unsafe { (*frame).args };
        if s.len() <= 8 {
            for i in 0..s.len() {
                s.set(i, (base + i as u64) * 3);
            }
            return Step::Done;
        }
        let (l, r) = s.split_at(s.len() / 2);
        for (part, base) in [(l, base), (r, base + l.len() as u64)] {
            // SAFETY: a null result destination.
            if !unsafe { g::spawn::<_, 2, _>(ctx, &fill, 0, g::discard(&fill), (part, base)) } {
                return Step::Aborted;
            }
        }
        Step::Done
    }
}

#[repr(C)]
pub struct SubtreeFrame {
    args: (Slice<u64>, Slice<u64>, u32, u32),
}

// SAFETY: as for fib.
unsafe impl TaskFn for __gtap_subtree_marker {
    type Args = (Slice<u64>, Slice<u64>, u32, u32);
    type Output = u64;
    const ID: KindId = id("tests::subtree");
    const NAME: &'static str = "subtree";
    const JOINS: bool = true;
    const CALLEES: &'static [KindId] = &[id("tests::spray"), id("tests::fill")];

    unsafe fn step<C: Context>(ctx: &mut C) -> Step {
        let frame = ctx.frame().cast::<SubtreeFrame>();
        probe!(ctx, frame, g::DEFAULT_MAX_FRAME_BYTES);
        // SAFETY: the arguments are at offset 0 of this kind's frame (never overwritten).
        let (counter, data, width, depth) = unsafe { (*frame).args };
        if ctx.state() == 0 {
            // SAFETY: null result destinations.
            if !unsafe {
                g::spawn::<_, 3, _>(ctx, &spray, 0, g::discard(&spray), (counter, width, depth))
            } {
                return Step::Aborted;
            }
            // SAFETY: as above.
            if !unsafe { g::spawn::<_, 2, _>(ctx, &fill, 0, g::discard(&fill), (data, 0)) } {
                return Step::Aborted;
            }
            if ctx.wait(1, 0) {
                return Step::Suspended;
            }
        }
        let sum: u64 = (0..data.len()).map(|i| data.get(i)).sum();
        let total = counter.atomic_load(0) + sum;
        // SAFETY: this task's result destination.
        unsafe { g::write_result(ctx.result_dst().cast::<u64>(), total) };
        Step::Done
    }
}

gtap_device::program!(pub Subtree = [subtree, spray, fill]);

// -------------------------------------------------------------------------------------------
// fn boom(n: u32, at: u32) -> u64 {        // fib that panics in the leaf `n == at`
//     if n == at { panic!("boom at {n}"); }
//     if n < 2 { return n as u64; }
//     let a = task!(boom(n - 1, at)); let b = task!(boom(n - 2, at)); taskwait!(); a + b
// }
marker!(boom, __gtap_boom_marker, 2);

#[repr(C)]
pub struct BoomFrame {
    args: (u32, u32),
    a: u64,
    b: u64,
}

// SAFETY: as for fib.
unsafe impl TaskFn for __gtap_boom_marker {
    type Args = (u32, u32);
    type Output = u64;
    const ID: KindId = id("tests::boom");
    const NAME: &'static str = "boom";
    const JOINS: bool = true;
    const CALLEES: &'static [KindId] = &[id("tests::boom"), id("tests::boom")];

    unsafe fn step<C: Context>(ctx: &mut C) -> Step {
        let frame = ctx.frame().cast::<BoomFrame>();
        probe!(ctx, frame, g::DEFAULT_MAX_FRAME_BYTES);
        let result = ctx.result_dst().cast::<u64>();
        // SAFETY: the arguments are at offset 0 of this kind's frame.
        let (n, at) = unsafe { (*frame).args };
        if ctx.state() == 1 {
            // SAFETY: both children were joined; their slots are frame fields.
            unsafe { g::write_result(result, (*frame).a + (*frame).b) };
            return Step::Done;
        }
        assert!(n != at, "boom at {n}");
        if n < 2 {
            // SAFETY: this task's result destination.
            unsafe { g::write_result(result, u64::from(n)) };
            return Step::Done;
        }
        // SAFETY: child result slots in this task's frame.
        if !unsafe { g::spawn::<_, 2, _>(ctx, &boom, 0, &raw mut (*frame).a, (n - 1, at)) } {
            return Step::Aborted;
        }
        // SAFETY: as above.
        if !unsafe { g::spawn::<_, 2, _>(ctx, &boom, 0, &raw mut (*frame).b, (n - 2, at)) } {
            return Step::Aborted;
        }
        if ctx.wait(1, 0) {
            return Step::Suspended;
        }
        // The executor ran both children already (as calls): go on at state 1.
        // SAFETY: both children were joined; their slots are frame fields.
        unsafe { g::write_result(result, (*frame).a + (*frame).b) };
        Step::Done
    }
}

gtap_device::program!(pub Boom = [boom]);

// -------------------------------------------------------------------------------------------
// fn leaf() -> u32 { 1 }
// fn hinted(q: u32, on_wait: bool) -> u32 {
//     let a = if on_wait { task!(leaf()) } else { task!(queue = q, leaf()) };
//     if on_wait { taskwait!(queue = q) } else { taskwait!() }
//     a + 1
// }
marker!(leaf, __gtap_leaf_marker, 0);
marker!(hinted, __gtap_hinted_marker, 2);

#[repr(C)]
pub struct LeafFrame {
    args: (),
}

// SAFETY: as for fib.
unsafe impl TaskFn for __gtap_leaf_marker {
    type Args = ();
    type Output = u32;
    const ID: KindId = id("tests::leaf");
    const NAME: &'static str = "leaf";
    const JOINS: bool = false;
    const CALLEES: &'static [KindId] = &[];

    unsafe fn step<C: Context>(ctx: &mut C) -> Step {
        let frame = ctx.frame().cast::<LeafFrame>();
        probe!(ctx, frame, g::DEFAULT_MAX_FRAME_BYTES);
        // SAFETY: this task's result destination.
        unsafe { g::write_result(ctx.result_dst().cast::<u32>(), 1) };
        Step::Done
    }
}

#[repr(C)]
pub struct HintedFrame {
    args: (u32, bool),
    a: u32,
}

// SAFETY: as for fib.
unsafe impl TaskFn for __gtap_hinted_marker {
    type Args = (u32, bool);
    type Output = u32;
    const ID: KindId = id("tests::hinted");
    const NAME: &'static str = "hinted";
    const JOINS: bool = true;
    const CALLEES: &'static [KindId] = &[id("tests::leaf")];

    unsafe fn step<C: Context>(ctx: &mut C) -> Step {
        let frame = ctx.frame().cast::<HintedFrame>();
        probe!(ctx, frame, g::DEFAULT_MAX_FRAME_BYTES);
        // SAFETY: the arguments are at offset 0 of this kind's frame.
        let (q, on_wait) = unsafe { (*frame).args };
        if ctx.state() == 0 {
            let spawn_queue = if on_wait { 0 } else { g::queue(q) };
            // SAFETY: a child result slot in this task's frame.
            if !unsafe { g::spawn::<_, 0, _>(ctx, &leaf, spawn_queue, &raw mut (*frame).a, ()) } {
                return Step::Aborted;
            }
            if ctx.wait(1, if on_wait { q } else { 0 }) {
                return Step::Suspended;
            }
        }
        // SAFETY: the child was joined; its slot is a frame field.
        let a = unsafe { (*frame).a };
        // SAFETY: this task's result destination.
        unsafe { g::write_result(ctx.result_dst().cast::<u32>(), a + 1) };
        Step::Done
    }
}

gtap_device::program!(pub Hinted = [hinted, leaf]);

// -------------------------------------------------------------------------------------------
// #[gtap::function(max_frame_bytes = 4096)]
// fn big(x: u64) -> u64 {
//     let table = [x; 64];
//     let a = task!(leaf());
//     taskwait!();
//     table.iter().sum::<u64>() + a as u64
// }
marker!(big, __gtap_big_marker, 1);

#[repr(C)]
pub struct BigFrame {
    args: (u64,),
    table: [u64; 64],
    a: u32,
}

// SAFETY: as for fib.
unsafe impl TaskFn for __gtap_big_marker {
    type Args = (u64,);
    type Output = u64;
    const ID: KindId = id("tests::big");
    const NAME: &'static str = "big";
    const JOINS: bool = true;
    const CALLEES: &'static [KindId] = &[id("tests::leaf")];

    unsafe fn step<C: Context>(ctx: &mut C) -> Step {
        let frame = ctx.frame().cast::<BigFrame>();
        probe!(ctx, frame, 4096);
        if ctx.state() == 0 {
            // SAFETY: the arguments are at offset 0 of this kind's frame.
            let (x,) = unsafe { (*frame).args };
            // SAFETY: `table` is live across the join, so it is saved in the frame.
            unsafe { g::save(&raw mut (*frame).table, [x; 64]) };
            // SAFETY: a child result slot in this task's frame.
            if !unsafe { g::spawn::<_, 0, _>(ctx, &leaf, 0, &raw mut (*frame).a, ()) } {
                return Step::Aborted;
            }
            if ctx.wait(1, 0) {
                return Step::Suspended;
            }
        }
        // SAFETY: saved before the suspension; the child was joined.
        let (table, a) = unsafe { ((*frame).table, (*frame).a) };
        let total = table.iter().sum::<u64>() + u64::from(a);
        // SAFETY: this task's result destination.
        unsafe { g::write_result(ctx.result_dst().cast::<u64>(), total) };
        Step::Done
    }
}

gtap_device::program!(pub Big = [big, leaf]);

// -------------------------------------------------------------------------------------------
// fn wide(k: u32) -> u32 { for _ in 0..k { task!(leaf()); } taskwait!(); k }
marker!(wide, __gtap_wide_marker, 1);

#[repr(C)]
pub struct WideFrame {
    args: (u32,),
}

// SAFETY: as for fib.
unsafe impl TaskFn for __gtap_wide_marker {
    type Args = (u32,);
    type Output = u32;
    const ID: KindId = id("tests::wide");
    const NAME: &'static str = "wide";
    const JOINS: bool = true;
    const CALLEES: &'static [KindId] = &[id("tests::leaf")];

    unsafe fn step<C: Context>(ctx: &mut C) -> Step {
        let frame = ctx.frame().cast::<WideFrame>();
        probe!(ctx, frame, g::DEFAULT_MAX_FRAME_BYTES);
        // SAFETY: the arguments are at offset 0 of this kind's frame.
        let (k,) = unsafe { (*frame).args };
        if ctx.state() == 0 {
            for _ in 0..k {
                // SAFETY: a null result destination.
                if !unsafe { g::spawn::<_, 0, _>(ctx, &leaf, 0, g::discard(&leaf), ()) } {
                    return Step::Aborted;
                }
            }
            if ctx.wait(1, 0) {
                return Step::Suspended;
            }
        }
        // SAFETY: this task's result destination.
        unsafe { g::write_result(ctx.result_dst().cast::<u32>(), k) };
        Step::Done
    }
}

gtap_device::program!(pub Wide = [wide, leaf]);
