//! The `no_std` half of gtap: everything that runs where tasks run.
//!
//! This crate is compiled twice from the same source: for the host (where the CPU executor in
//! `gtap-runtime` drives it) and for `nvptx64-nvidia-cuda` (where the persistent kernel in
//! [`gpu`] drives it). Its modules:
//!
//! - [`task`]: the contract between the code `#[gtap::function]` generates and the schedulers
//!   (`TaskFn`, `Context`, `Step`, `Program`). Both schedulers drive the very same generated code.
//! - [`data`]: `Copy` handles to user arrays (device memory on the GPU, host memory on the CPU).
//! - [`atomic`]: user-level atomics that are correct on both backends.
//! - [`block`]: thread index, barriers and collectives for block-level task bodies.
//! - [`clock`]: a nanosecond clock on both backends.
//! - [`math`]: floating-point operations with the same result on both backends (`mul_add`).
//! - `arch`: the only place with inline assembly (PTX on the GPU; `core::sync::atomic` on the host).
#![cfg_attr(not(test), no_std)]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(asm_experimental_arch, abi_ptx, stdarch_nvptx)
)]

pub mod arch;
pub mod atomic;
pub mod block;
pub mod clock;
pub mod data;
#[doc(hidden)]
pub mod glue;
pub mod math;
pub mod task;

pub mod gpu;

pub use task::{Context, KindId, Program, Step, TaskFn};
