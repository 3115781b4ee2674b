//! A clock tasks can read on both backends.
//!
//! The values are nanoseconds of a free-running wall clock (the GPU's `%globaltimer`, the host's
//! system time); only differences between two readings in the same run mean anything.

/// Nanoseconds of the wall clock; subtract two readings for an elapsed time.
#[inline(always)]
#[must_use]
pub fn now_ns() -> u64 {
    crate::arch::globaltimer()
}
