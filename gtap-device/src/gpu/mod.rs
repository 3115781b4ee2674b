//! The GPU scheduler: thread-level persistent workers (one task per lane, warps steal from
//! each other), and the kernel entry that [`kernel!`](crate::kernel) generates.
//!
//! - [`layout`] (both targets): the memory shared by the kernel and the host launcher.
//! - The scheduler core (nvptx only; its protocol and memory-model argument are in
//!   `docs/gpu-runtime.md`), methods of one per-worker view, `warp` ([`warp::Warp`]: the params
//!   its hot paths read in registers, errors, stop checks):
//!   - `deque`: split deques (private part, release, the public part's claims and steals);
//!     `overflow` (where a private part that outgrows its ring goes) and `global_queue` (the
//!     FIFO rings of the global-queue ablation and of the overflow queues);
//!   - `pool`: task slots (work first: no owner, no knob; the ablation's per-warp pools);
//!   - `join`: warp-local and shared joins, one core for warps and blocks;
//!   - `step`: creating a child and opening a join, shared by both loops;
//!   - `profile`: per-batch records; `park` (leaving a run at a batch boundary and taking it
//!     up again: pause, resume, elastic workers); `peer` (several GPUs).
//! - `worker` (nvptx only): the persistent loops that drive the core: `thread`
//!   (thread-level, a warp per worker), `lane` (a lane's steps, with work-first inline
//!   execution), `block` (block-level, for programs with a `#[gtap::function(block)]` kind:
//!   one task per block, or a batch of thread-level tasks).
//! - the `#[panic_handler]` (nvptx only): a panicking task records [`layout::ERR_PANIC`] with
//!   the source location in the host-mapped error record, which
//!   stops the run, and its thread exits (the launch ends normally; the context survives).
//!
//! # A user crate on the GPU
//!
//! ```ignore
//! #![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]
//! #[gtap::function] fn fib(n: u32) -> u64 { .. }
//! gtap::program!(pub Fib = [fib]);
//! gtap::kernel!(Fib); // the entry `gtap_thread_worker_Fib` (nothing on the host)
//! ```
//!
//! The crate is built for `nvptx64-nvidia-cuda` by `gtap-build` from the host crate's
//! `build.rs`; gtap-device provides the panic handler, so the crate must not define one.

// The kernel's periodic checks are written `n % k == 0`: `is_multiple_of` lays their branches
// out differently in the PTX, and the loop's code is measured as it is.
#![allow(clippy::manual_is_multiple_of)]

pub mod layout;

#[cfg(target_arch = "nvptx64")]
mod deque;
#[cfg(target_arch = "nvptx64")]
mod global_queue;
#[cfg(target_arch = "nvptx64")]
mod join;
#[cfg(target_arch = "nvptx64")]
mod overflow;
#[cfg(target_arch = "nvptx64")]
mod park;
#[cfg(target_arch = "nvptx64")]
mod peer;
#[cfg(target_arch = "nvptx64")]
mod pool;
#[cfg(target_arch = "nvptx64")]
mod profile;
#[cfg(target_arch = "nvptx64")]
mod step;
#[cfg(target_arch = "nvptx64")]
mod warp;
#[cfg(target_arch = "nvptx64")]
mod worker;

#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
pub use worker::{block_worker, thread_worker, thread_worker_clones};

/// The running kernel's params, for the panic handler (which gets no context). Every warp
/// writes the same value at its start.
#[cfg(target_arch = "nvptx64")]
static mut GTAP_PARAMS: u64 = 0;

/// The running kernel's params, as [`set_params`] stored them, read from memory at each call
/// (for cold paths: what is read here does not stay in a register across the worker loop).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn params() -> *const layout::Params {
    // SAFETY: a valid static, written by this thread's `set_params` before any use.
    // Ordering: a volatile read of a value this thread wrote (program order); volatile so
    // that the compiler does not hoist it, and what it points to, out of the loop.
    unsafe { core::ptr::read_volatile(&raw const GTAP_PARAMS) as *const layout::Params }
}

/// What to add to a [`crate::data::Table`]'s address to reach this GPU's copy
/// ([`layout::Params::replica_offset`]).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub(crate) fn replica_offset() -> u64 {
    // SAFETY: a valid static, written by this thread's `set_params` before any task runs,
    // pointing at params that stay valid for the run.
    // Ordering: plain loads, on purpose: the value is this warp's own store (program order)
    // and the params never change during a run, so the compiler may keep both in registers
    // across a task's loop of lookups (the volatile `params()` would reload them each time).
    unsafe { (*(core::ptr::read(&raw const GTAP_PARAMS) as *const layout::Params)).replica_offset }
}

#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn set_params(params: *const layout::Params) {
    // SAFETY: a valid static; every writer stores the same value.
    // Ordering: relaxed, scope .gpu; read only by this warp's lanes (program order + warp
    // convergence), in the panic handler.
    unsafe { crate::arch::nvptx::st_relaxed_gpu_u64(&raw mut GTAP_PARAMS, params as u64) };
}

/// A task that panics stops the run without losing the CUDA context: the first panic of the
/// run records [`layout::ERR_PANIC`] (the location; the host names the task from it,
/// `Program::task_at`)
/// in the host-mapped error record, which also stops every other worker (`control.error`, as
/// any recorded error); then the thread *exits*. The rest of its warp leaves the worker loop
/// at the batch's end (its ballot misses the exited lane), the rest of its block at the
/// block's barrier (`barrier.red` counts the threads that arrived); the launch ends normally
/// and the host reports [`Error::TaskPanicked`] with the same runtime usable. A `trap` would
/// end the launch with an error that poisons the context.
#[cfg(target_arch = "nvptx64")]
#[panic_handler]
fn panic(info: &core::panic::PanicInfo<'_>) -> ! {
    record_panic(info);
    crate::arch::nvptx::exit()
}

/// The panic handler's record: the location of the panic. Inlined into the handler, with
/// plain loops: the registers of everything a kernel may call count as the kernel's, and an
/// out-of-line record with a copy helper took block-level SpMV's kernel from 76 to 86.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
fn record_panic(info: &core::panic::PanicInfo<'_>) {
    use crate::arch::nvptx as a;
    use core::ptr::addr_of_mut;
    // SAFETY: GTAP_PARAMS is a valid static; when set, it points at the run's params, whose
    // control block and host-mapped error record are valid for the run.
    unsafe {
        // Ordering: relaxed, scope .gpu; written by this warp before it ran any task.
        let p = a::ld_relaxed_gpu_u64(&raw const GTAP_PARAMS) as *const layout::Params;
        if !p.is_null() {
            let control = (*p).control as *mut layout::Control;
            let error = (*p).error as *mut layout::ErrorRecord;
            // Ordering: relaxed, scope .gpu; decides the single writer of the record.
            if a::atom_relaxed_gpu_cas_u32(addr_of_mut!((*control).error), 0, layout::ERR_PANIC)
                == 0
            {
                let gtid = a::block_idx_x() * a::block_dim_x() + a::thread_idx_x();
                if let Some(loc) = info.location() {
                    let file = loc.file().as_bytes();
                    let n = file.len().min(layout::PANIC_FILE_BYTES);
                    let dst = addr_of_mut!((*error).file).cast::<u8>();
                    for (i, b) in file[file.len() - n..].iter().enumerate() {
                        dst.add(i).write_volatile(*b);
                    }
                    // Ordering: relaxed, scope .sys; published by the release of `code`.
                    a::st_relaxed_sys_u32(addr_of_mut!((*error).file_len), n as u32);
                    a::st_relaxed_sys_u32(addr_of_mut!((*error).line), loc.line());
                    a::st_relaxed_sys_u32(addr_of_mut!((*error).column), loc.column());
                }
                // The location only: reading the message at all keeps every panic site's
                // formatting arguments alive (unread, the compiler drops them), which took
                // block-level SpMV's kernel from 76 to 86-90 registers and 14% longer.
                a::st_relaxed_sys_u32(addr_of_mut!((*error).warp), gtid / 32);
                a::st_relaxed_sys_u32(addr_of_mut!((*error).lane), a::lane_id());
                // Ordering: sc fence, scope .sys; the fields above before `code` below, for a
                // host that reads the mapped record (after the launch ends, which orders it
                // anyway).
                a::fence_sc_sys();
                // Ordering: release, scope .sys; the host reads the record after the launch.
                a::st_release_sys_u32(addr_of_mut!((*error).code), layout::ERR_PANIC);
            }
        }
    }
}

/// Emits the GPU entry points of a program, `ptx-kernel`s taking a pointer to
/// [`layout::Params`]: the thread-level `gtap_thread_worker_<Program>`, and the block-level
/// `gtap_block_worker_<Program>` used when the program has a `#[gtap::function(block)]` kind
/// (each compiles to an empty kernel for the other kind of program), each also as
/// `..._profiled_<Program>` (the profiler), `..._gq_<Program>` (the global-queue ablation),
/// `..._shared_<Program>` and `..._shared_profiled_<Program>` (the shared-deque ablation),
/// `..._multi_<Program>` (several GPUs). `gtap::kernel!(Program, clones)` also emits
/// `gtap_thread_worker_clones_<Program>`, whose lanes run children as calls of their
/// sequential clones (`Config::gpu_clones`); only on request, since every such kernel adds to
/// the module's first-launch compile time (the examples' module took 150 s instead of 59 with
/// one for every program, on an H200).
///
/// `gtap::kernel!(Program, only = [default, clones])` emits the listed variants alone
/// (`default`, `profiled`, `gq`, `shared`, `shared_profiled`, `multi`, `clones`), for a module
/// whose first launch should compile no more than its runs use (`ptxas` took 49 s for the 26
/// entries of two programs of `random-programs/gpu`, 6 s for these two variants of the
/// first). A run that needs a variant the module lacks is `Error::NoGpu` naming the kernel.
/// Expands to nothing on the host.
///
/// The crate root needs `#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]`.
#[cfg(target_arch = "nvptx64")]
#[macro_export]
macro_rules! kernel {
    ($program:ident) => {
        $crate::kernel!($program, only = [default, profiled, gq, shared, shared_profiled, multi]);
    };
    ($program:ident, clones) => {
        $crate::kernel!($program);
        $crate::__gtap_variant!($program, clones);
    };
    ($program:ident, only = [$($variant:ident),+ $(,)?]) => {
        $($crate::__gtap_variant!($program, $variant);)+
    };
}

/// [`kernel!`]'s entries of one variant, by the name `only = [..]` gives it.
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[macro_export]
macro_rules! __gtap_variant {
    ($program:ident, default) => {
        $crate::__gtap_entries!(@both $program, "_", false, false, false, false);
    };
    ($program:ident, profiled) => {
        $crate::__gtap_entries!(@both $program, "_profiled_", true, false, false, false);
    };
    ($program:ident, gq) => {
        $crate::__gtap_entries!(@both $program, "_gq_", false, true, false, false);
    };
    ($program:ident, shared) => {
        $crate::__gtap_entries!(@both $program, "_shared_", false, false, true, false);
    };
    ($program:ident, shared_profiled) => {
        $crate::__gtap_entries!(@both $program, "_shared_profiled_", true, false, true, false);
    };
    ($program:ident, multi) => {
        $crate::__gtap_entries!(@both $program, "_multi_", false, false, false, true);
    };
    ($program:ident, clones) => {
        const _: () = {
            #[export_name = concat!("gtap_thread_worker_clones_", stringify!($program))]
            pub unsafe extern "ptx-kernel" fn clones(params: *const $crate::gpu::layout::Params) {
                // SAFETY: launched by the gtap host runtime with params whose clone fields
                // are set (`Config::gpu_clones`).
                unsafe { $crate::gpu::thread_worker_clones::<$program>(params) }
            }
        };
    };
    ($program:ident, $other:ident) => {
        compile_error!(concat!(
            "gtap::kernel!: no kernel variant `",
            stringify!($other),
            "`; the variants are default, profiled, gq, shared, shared_profiled, multi, clones"
        ));
    };
}

/// [`kernel!`]'s instantiations of the worker loops (`PROFILE`, `GLOBAL`, `SHARED`, `MULTI`):
/// a variant's thread- and block-level entries (`@both`), or one of them (`@one`).
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[macro_export]
macro_rules! __gtap_entries {
    (@both $program:ident, $variant:literal,
     $profile:literal, $global:literal, $shared:literal, $multi:literal) => {
        $crate::__gtap_entries!(
            @one $program, thread_worker, "gtap_thread_worker", $variant,
            $profile, $global, $shared, $multi
        );
        $crate::__gtap_entries!(
            @one $program, block_worker, "gtap_block_worker", $variant,
            $profile, $global, $shared, $multi
        );
    };
    (@one $program:ident, $worker:ident, $prefix:literal, $variant:literal,
     $profile:literal, $global:literal, $shared:literal, $multi:literal) => {
        const _: () = {
            #[export_name = concat!($prefix, $variant, stringify!($program))]
            pub unsafe extern "ptx-kernel" fn entry(params: *const $crate::gpu::layout::Params) {
                // SAFETY: launched by the gtap host runtime with params whose regions match
                // this variant (its pools, global queues or profile regions).
                unsafe {
                    $crate::gpu::$worker::<$program, $profile, $global, $shared, $multi>(params)
                }
            }
        };
    };
}

/// Emits the GPU entry points of a program, `ptx-kernel`s taking a pointer to
/// [`layout::Params`]: the thread-level `gtap_thread_worker_<Program>`, and the block-level
/// `gtap_block_worker_<Program>` used when the program has a `#[gtap::function(block)]` kind
/// (each compiles to an empty kernel for the other kind of program), each also as
/// `..._profiled_<Program>` (the profiler) and `..._gq_<Program>` (the global-queue ablation);
/// `gtap::kernel!(Program, clones)` also the kernel for `Config::gpu_clones`, and
/// `gtap::kernel!(Program, only = [default, clones])` the listed variants alone.
/// Expands to nothing on the host (a misspelt variant fails to compile there too).
///
/// The crate root needs `#![cfg_attr(target_arch = "nvptx64", no_std, feature(abi_ptx))]`.
#[cfg(not(target_arch = "nvptx64"))]
#[macro_export]
macro_rules! kernel {
    ($program:ident) => {
        const _: fn() = || {
            let _ = <$program as $crate::task::Program>::KINDS;
        };
    };
    ($program:ident, clones) => {
        $crate::kernel!($program);
    };
    ($program:ident, only = [$($variant:ident),+ $(,)?]) => {
        $crate::kernel!($program);
        $($crate::__gtap_variant!($variant);)+
    };
}

/// [`kernel!`]'s check of a variant's name on the host, so that a misspelt one fails there
/// too, not only in the device build.
#[cfg(not(target_arch = "nvptx64"))]
#[doc(hidden)]
#[macro_export]
macro_rules! __gtap_variant {
    (default) => {};
    (profiled) => {};
    (gq) => {};
    (shared) => {};
    (shared_profiled) => {};
    (multi) => {};
    (clones) => {};
    ($other:ident) => {
        compile_error!(concat!(
            "gtap::kernel!: no kernel variant `",
            stringify!($other),
            "`; the variants are default, profiled, gq, shared, shared_profiled, multi, clones"
        ));
    };
}
