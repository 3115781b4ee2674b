//! User-level atomics on [`Slice`] elements, correct on both backends.
//!
//! All are *relaxed* and have *device* scope (`.gpu` in PTX): atomic with respect to every task
//! of the run, on either backend; they order nothing else. Ordering between tasks comes from
//! joins (see [`crate::task`]). N-Queens counts solutions with [`Slice::atomic_add`]; BFS
//! lowers depths with [`Slice::atomic_min`].
//!
//! Every method checks its index like [`Slice::get`].

use crate::{arch, data::Slice};

macro_rules! atomic_methods {
    ($t:ty, $add:ident, $cas:ident, $load:ident, $store:ident) => {
        impl Slice<$t> {
            /// Atomically adds `v` to element `i`; returns the previous value.
            ///
            /// # Panics
            ///
            /// If `i >= len`.
            #[inline]
            pub fn atomic_add(self, i: usize, v: $t) -> $t {
                assert!(i < self.len(), "Slice::atomic_add index out of bounds");
                // SAFETY: i < len; the handle is valid and aligned (from_raw_parts' contract).
                unsafe { arch::$add(self.as_ptr().add(i), v) }
            }

            /// Atomically replaces element `i` with `new` if it equals `current`; returns the
            /// previous value (the swap happened iff it equals `current`).
            ///
            /// # Panics
            ///
            /// If `i >= len`.
            #[inline]
            pub fn atomic_cas(self, i: usize, current: $t, new: $t) -> $t {
                assert!(i < self.len(), "Slice::atomic_cas index out of bounds");
                // SAFETY: as above.
                unsafe { arch::$cas(self.as_ptr().add(i), current, new) }
            }

            /// Atomically reads element `i`.
            ///
            /// # Panics
            ///
            /// If `i >= len`.
            #[inline]
            #[must_use]
            pub fn atomic_load(self, i: usize) -> $t {
                assert!(i < self.len(), "Slice::atomic_load index out of bounds");
                // SAFETY: as above.
                unsafe { arch::$load(self.as_ptr().add(i)) }
            }

            /// Atomically writes element `i`.
            ///
            /// # Panics
            ///
            /// If `i >= len`.
            #[inline]
            pub fn atomic_store(self, i: usize, v: $t) {
                assert!(i < self.len(), "Slice::atomic_store index out of bounds");
                // SAFETY: as above.
                unsafe { arch::$store(self.as_ptr().add(i), v) }
            }
        }
    };
}

atomic_methods!(
    u32,
    atomic_add_u32,
    atomic_cas_u32,
    atomic_load_u32,
    atomic_store_u32
);
atomic_methods!(
    u64,
    atomic_add_u64,
    atomic_cas_u64,
    atomic_load_u64,
    atomic_store_u64
);

impl Slice<u32> {
    /// Atomically lowers element `i` to `min(element, v)`; returns the previous value.
    ///
    /// # Panics
    ///
    /// If `i >= len`.
    #[inline]
    pub fn atomic_min(self, i: usize, v: u32) -> u32 {
        assert!(i < self.len(), "Slice::atomic_min index out of bounds");
        // SAFETY: i < len; the handle is valid and aligned.
        unsafe { arch::atomic_min_u32(self.as_ptr().add(i), v) }
    }

    /// Atomically raises element `i` to `max(element, v)`; returns the previous value.
    ///
    /// # Panics
    ///
    /// If `i >= len`.
    #[inline]
    pub fn atomic_max(self, i: usize, v: u32) -> u32 {
        assert!(i < self.len(), "Slice::atomic_max index out of bounds");
        // SAFETY: i < len; the handle is valid and aligned.
        unsafe { arch::atomic_max_u32(self.as_ptr().add(i), v) }
    }
}
