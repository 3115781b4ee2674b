//! Target switch for the primitives gtap needs from the machine.
//!
//! `host.rs` implements them with `core::sync::atomic`; `nvptx.rs` with explicit PTX, because on
//! nvptx rustc 1.95 drops the ordering of atomic RMWs and gives every other atomic `.sys` scope
//! (DESIGN.md §5). `host.rs` also reads the stack pointer for the CPU executor
//! (`stack_pointer`, one `mov` on x86-64 and AArch64). No other module of gtap contains `asm!`.
//!
//! User-level atomics (these signatures exist on both targets): relaxed, device ("gpu") scope,
//! on naturally aligned addresses in memory every task can reach.
//!
//! | fn | PTX on nvptx |
//! |---|---|
//! | `atomic_add_u32/u64` | `atom.relaxed.gpu.global.add` |
//! | `atomic_min_u32` / `atomic_max_u32` | `atom.relaxed.gpu.global.min/max.u32` |
//! | `atomic_cas_u32/u64` | `atom.relaxed.gpu.global.cas` |
//! | `atomic_load_u32/u64` | `ld.relaxed.gpu.global` |
//! | `atomic_store_u32/u64` | `st.relaxed.gpu.global` |
//! | `mul_add_f64` | `fma.rn.f64` (host: `f64::mul_add`) |
//! | `globaltimer` | `%globaltimer` (host: system time) |

#[cfg(not(target_arch = "nvptx64"))]
mod host;
#[cfg(not(target_arch = "nvptx64"))]
pub use host::*;

#[cfg(target_arch = "nvptx64")]
pub mod nvptx;
#[cfg(target_arch = "nvptx64")]
pub use nvptx::*;
