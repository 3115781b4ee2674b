//! Floating-point operations whose result is the same on both backends.
//!
//! Rust does not contract `a * b + c` into a fused multiply-add (CUDA C++ does by default), so
//! a task that wants the GPU's FMA throughput asks for it here. The fused operation rounds once
//! on both targets, so CPU and GPU results agree bit for bit.

/// `a * b + c`, rounded once (`fma.rn.f64` on the GPU, `f64::mul_add` on the host).
#[inline(always)]
#[must_use]
pub fn mul_add(a: f64, b: f64, c: f64) -> f64 {
    crate::arch::mul_add_f64(a, b, c)
}
