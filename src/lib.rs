//! gtap: fork-join task parallelism on NVIDIA GPUs, written as ordinary Rust.
//!
//! ```ignore
//! #[gtap::function]
//! fn fib(n: u32) -> u64 {
//!     if n < 2 {
//!         return n as u64;
//!     }
//!     let a = task!(fib(n - 1)); // fork: `a` is filled at the join
//!     let b = task!(fib(n - 2));
//!     taskwait!(); // join
//!     a + b
//! }
//! gtap::program!(pub Fib = [fib]);
//! ```
//!
//! See the README and `docs/` for the run API, the GPU build and the guarantees.
#![cfg_attr(target_arch = "nvptx64", no_std)]

pub use gtap_device::{
    atomic, block, clock, data::Slice, data::Table, kernel, math, program, task, Context, KindId,
    Program, Step, TaskFn,
};
pub use gtap_macros::{function, tasks};

#[cfg(not(target_arch = "nvptx64"))]
pub use gtap_runtime::*;

/// Support for generated code; not a public API.
#[doc(hidden)]
pub mod __private {
    pub use gtap_device::glue::*;
    pub use gtap_device::task::SeqContext;
    pub use gtap_device::task::{Arity, Context, KindId, Source, Step, TaskFn};
}

/// Forks a child task: `task!(f(args))`, `let x = task!(f(args));`, `x = task!(f(args));`,
/// optionally with a queue hint: `task!(queue = q, f(args))`.
///
/// Only valid as a statement inside a `#[gtap::function]`, which rewrites it; anywhere else it
/// is a compile error.
#[macro_export]
macro_rules! task {
    ($($t:tt)*) => {
        ::core::compile_error!(
            "task!(..) can only be used as a statement directly inside a #[gtap::function], written in its body: the attribute rewrites the body before other macros expand, so it never sees a task!(..) that a macro_rules! expands to"
        )
    };
}

/// Joins the children forked since the previous join: `taskwait!()` or `taskwait!(queue = q)`.
///
/// Only valid as a statement inside a `#[gtap::function]`, which rewrites it; anywhere else it
/// is a compile error.
#[macro_export]
macro_rules! taskwait {
    ($($t:tt)*) => {
        ::core::compile_error!(
            "taskwait!(..) can only be used as a statement directly inside a #[gtap::function], written in its body: the attribute rewrites the body before other macros expand, so it never sees a taskwait!() that a macro_rules! expands to"
        )
    };
}
