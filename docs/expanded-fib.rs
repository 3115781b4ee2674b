// docs/expanded-fib.rs: what `#[gtap::function]` generates for fib, annotated.
//
// Source (the `snapshot_fib` fixture in gtap-macros/src/tests.rs):
//
//     /// Fibonacci numbers, two children per call.
//     #[gtap::function]
//     pub fn fib(n: u32) -> u64 {
//         if n < 2 {
//             return n as u64;
//         }
//         let a = task!(fib(n - 1));
//         let b = task!(fib(n - 2));
//         taskwait!();
//         a + b
//     }
//
// The code below is the real expansion (prettyplease of the macro output, the same text as
// gtap-macros/src/snapshots/gtap_macros__tests__snapshot_fib.snap); only comments were added.
// Regenerate: `INSTA_UPDATE=always cargo test -p gtap-macros snapshot_fib` and copy.

// (1) The marker: a unit struct named like the function, so `fib` is both a type (for the
//     `TaskFn` impl) and a value (`task!(fib(..))`, `program!(P = [fib])`, `kind_of(&fib)`).
//     The function's doc comment and lint attributes move here.
/// Fibonacci numbers, two children per call.
#[allow(
    non_camel_case_types,
    reason = "a task function's marker is named like the function"
)]
#[derive(Clone, Copy)]
pub struct fib;
// (2) The task-data struct. `args` first, at offset 0: the spawner writes the argument tuple
//     there. Then one field per local that is saved across a taskwait or receives a child's
//     result: here the two result slots. Their types are generic parameters that rustc infers
//     from the step function (`spawn_task` ties `&raw mut (*frame).a` to `*mut fib::Output`), so
//     the macro never needs to know a type. `n` is not here: it is dead after the taskwait.
#[repr(C)]
#[allow(non_camel_case_types, reason = "named after the task function")]
#[allow(
    dead_code,
    reason = "result slots are written by child tasks through raw pointers"
)]
struct __gtap_frame_fib<L0, L1> {
    args: (u32,),
    a: L0,
    b: L1,
}
// (3) The TaskFn impl: the contract of gtap-device/src/task.rs.
unsafe impl ::gtap::__private::TaskFn for fib {
    type Args = (u32,);
    type Output = u64;
    const ID: ::gtap::__private::KindId = ::gtap::__private::kind_id(
        concat!(module_path!(), "::fib"),
    );
    const NAME: &'static str = "fib";
    const JOINS: bool = true;
    // The kinds this function spawns, named by value: a plain function here would get
    // TaskFn's "is not a gtap task function" message. `program!` checks that every callee is
    // part of the program.
    const CALLEES: &'static [::gtap::__private::KindId] = &[
        ::gtap::__private::kind_of(&fib),
        ::gtap::__private::kind_of(&fib),
    ];
    // (4) The state machine. Resume states: 0 = start, k = after the k-th taskwait!().
    #[allow(
        unused_mut,
        unused_assignments,
        unreachable_code,
        clippy::all,
        reason = "each resume state re-binds locals and repeats the code after it"
    )]
    // On the GPU the step is inlined into the worker's loop (as a call, its context and the
    // worker state it points to would live in local memory: UTS ran 24% slower that way).
    #[cfg_attr(target_arch = "nvptx64", inline(always))]
    unsafe fn step<__GtapCtx: ::gtap::__private::Context>(
        __gtap_ctx: &mut __GtapCtx,
    ) -> ::gtap::__private::Step {
        use ::gtap::__private::Context as _;
        // The frame viewed as the task-data struct; `_`s are inferred from the uses below.
        let __gtap_frame = __gtap_ctx.frame() as *mut __gtap_frame_fib<_, _>;
        // Probe pass: report the struct's size and alignment to the scheduler, touching no
        // frame. `frame_layout` holds `const { assert!(size_of::<F>() <= LIMIT) }`, so an
        // oversized struct is a compile error when a program instantiates this step.
        if <__GtapCtx as ::gtap::__private::Context>::PROBE {
            let (__gtap_size, __gtap_align) = ::gtap::__private::frame_layout::<
                _,
                { ::gtap::__private::DEFAULT_MAX_FRAME_BYTES },
            >(__gtap_frame);
            __gtap_ctx.report_layout(__gtap_size, __gtap_align);
            return ::gtap::__private::Step::Done;
        }
        // The typed result destination: `return e` became `return __gtap_result.finish(e)`.
        let __gtap_result = unsafe {
            ::gtap::__private::ResultSlot::<u64>::new(__gtap_ctx.result_dst())
        };
        // A wait with no children to join falls through by setting the state and
        // re-dispatching; a wait that suspends returns and is resumed in that state.
        let mut __gtap_state = __gtap_ctx.state();
        '__gtap_dispatch: loop {
            match __gtap_state {
                // State 0: the body from the start, with markers lowered.
                0 => {
                    let (n,) = unsafe { (*__gtap_frame).args };
                    if n < 2 {
                        return __gtap_result.finish(n as u64);
                    }
                    // `let a = task!(fib(n - 1));`: check the argument count (Arity's message),
                    // evaluate the arguments, spawn with `a`'s slot as the result destination.
                    // A refused spawn (capacity exceeded, error recorded) aborts the step.
                    {
                        ::gtap::__private::arity::<_, 1>(&fib);
                        let __gtap_args = (n - 1,);
                        if !unsafe {
                            ::gtap::__private::spawn_task(
                                __gtap_ctx,
                                &fib,
                                0,
                                &raw mut (*__gtap_frame).a,
                                __gtap_args,
                            )
                        } {
                            return ::gtap::__private::Step::Aborted;
                        }
                    }
                    {
                        ::gtap::__private::arity::<_, 1>(&fib);
                        let __gtap_args = (n - 2,);
                        if !unsafe {
                            ::gtap::__private::spawn_task(
                                __gtap_ctx,
                                &fib,
                                0,
                                &raw mut (*__gtap_frame).b,
                                __gtap_args,
                            )
                        } {
                            return ::gtap::__private::Step::Aborted;
                        }
                    }
                    // `taskwait!();`: nothing to save (only `a` and `b` are live after it, and
                    // they are the joined results, already in their slots). Suspend if there
                    // are children; resume in state 1 on queue 0.
                    if __gtap_ctx.wait(1, 0) {
                        return ::gtap::__private::Step::Suspended;
                    }
                    __gtap_state = 1;
                    continue '__gtap_dispatch;
                }
                // State 1: after the taskwait. Restore what is live (the two results) and run
                // the rest of the body.
                1 => {
                    let a = unsafe { (*__gtap_frame).a };
                    let b = unsafe { (*__gtap_frame).b };
                    return __gtap_result.finish(a + b);
                }
                // A corrupted resume state: reported to the scheduler, which aborts the run.
                _ => return ::gtap::__private::invalid_state(__gtap_ctx),
            }
        }
    }
}
// (5) The argument count, so `task!(fib(1, 2))` is reported as "`fib` does not take 2
//     argument(s)".
impl ::gtap::__private::Arity<1> for fib {}
