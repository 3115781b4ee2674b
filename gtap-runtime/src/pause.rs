//! Giving the GPU back during a run: pause and resume ([`PauseToken`], [`Runtime::start`],
//! [`Paused::resume`]), and a run that shrinks and grows while it goes on ([`SmLimit`]).
//!
//! Both work at batch boundaries, like cancellation (`stop.rs`): the host writes a request
//! word the workers read at their stop checks; a warp that leaves publishes every task it
//! holds and saves its scheduler state in device memory (`gtap-device`'s `gpu/park.rs`,
//! `docs/gpu-runtime.md`, "Leaving and rejoining a run").
//!
//! - **Pause**: every warp leaves and the kernel exits; [`Runtime::start`] (or
//!   [`Paused::resume`]) returns [`Outcome::Paused`], and the GPU runs nothing of gtap's
//!   until [`Paused::resume`] launches the kernel again from the saved state. The handle
//!   borrows the runtime, so no other run can reset the saved pools meanwhile (checked at
//!   compile time); dropping it abandons the run.
//! - **Elastic workers**: [`SmLimit::set`] asks a running run to use at most that many SMs'
//!   worth of blocks. Blocks above the limit leave; when the limit rises again, a kernel of
//!   the missing blocks is launched beside the running one and they take their saved states
//!   up again.
//!
//! Supported on the GPU for thread-level programs under the default scheduler on one GPU;
//! elsewhere [`Runtime::start`] returns [`Error::Unsupported`](crate::Error::Unsupported).
//! The CPU executor never pauses and ignores the SM limit: its runs finish (or cancel).
//!
//! [`Runtime::start`]: crate::Runtime::start

use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::sync::Arc;

use gtap_device::task::{Program, TaskFn};

use crate::{Result, RunOptions, Runtime};

/// A pause request shared between threads: give a clone to [`RunOptions::pause`], call
/// [`PauseToken::pause`] on another. The run that pauses consumes the request, so the same
/// token pauses a resumed run again only when asked again.
#[derive(Clone, Debug, Default)]
pub struct PauseToken(Arc<AtomicBool>);

impl PauseToken {
    /// A token with no request.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks the run holding this token to pause at its workers' next batch boundaries.
    pub fn pause(&self) {
        // Ordering: Release; pairs with the AcqRel swap in `take` (only the request itself
        // travels through the flag).
        self.0.store(true, Ordering::Release);
    }

    /// Whether a request is waiting.
    #[must_use]
    pub fn is_requested(&self) -> bool {
        // Ordering: Acquire; pairs with `pause`.
        self.0.load(Ordering::Acquire)
    }

    /// Takes the request (the run that acts on it).
    pub(crate) fn take(&self) -> bool {
        // Ordering: AcqRel; pairs with `pause`, and one taker wins.
        self.0.swap(false, Ordering::AcqRel)
    }
}

/// The SMs a running run may use, changed from any thread while it runs: give a clone to
/// [`RunOptions::sms`] and call [`SmLimit::set`]. A run starts with the SMs of its launch
/// ([`Config::sms`](crate::Config::sms), or all), and follows the limit at its workers'
/// batch boundaries: blocks leave (publishing their tasks) when it falls, and come back when
/// it rises. The limit counts SMs' worth of blocks (as `Config::sms` does); at least one
/// SM's worth always stays.
#[derive(Clone, Debug, Default)]
pub struct SmLimit(Arc<AtomicU32>);

impl SmLimit {
    /// No limit: the run uses every block it was launched with.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Use at most `sms` SMs' worth of blocks from now on (`None`: all of the launch's).
    pub fn set(&self, sms: Option<u32>) {
        // Ordering: Relaxed; a value read by the run's watcher, nothing else rides on it.
        self.0.store(sms.map_or(0, |s| s.max(1)), Ordering::Relaxed);
    }

    /// The limit now (`None`: none).
    #[must_use]
    pub fn get(&self) -> Option<u32> {
        // Ordering: Relaxed; as `set`.
        match self.0.load(Ordering::Relaxed) {
            0 => None,
            s => Some(s),
        }
    }
}

/// How [`Runtime::start`] or [`Paused::resume`] came back.
#[must_use = "a paused run is abandoned when its handle is dropped"]
pub enum Outcome<'rt, P: Program, T: TaskFn> {
    /// The root finished: its result (the run's statistics are in
    /// [`Runtime::last_stats`](crate::Runtime::last_stats), over all its segments).
    Done(T::Output),
    /// Paused: nothing of the run is on the GPU; [`Paused::resume`] goes on.
    Paused(Paused<'rt, P, T>),
}

impl<P: Program, T: TaskFn> core::fmt::Debug for Outcome<'_, P, T>
where
    T::Output: core::fmt::Debug,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        match self {
            Self::Done(v) => f.debug_tuple("Done").field(v).finish(),
            Self::Paused(_) => f.write_str("Paused(..)"),
        }
    }
}

/// A paused run of `entry: T` in program `P`, holding the runtime whose device memory keeps
/// its state.
pub struct Paused<'rt, P: Program, T: TaskFn> {
    pub(crate) rt: &'rt mut Runtime,
    pub(crate) _run: PhantomData<(P, T)>,
}

impl<'rt, P: Program, T: TaskFn> Paused<'rt, P, T> {
    /// Launches the run again from where its workers left; returns as [`Runtime::start`].
    ///
    /// # Errors
    ///
    /// As for [`Runtime::start`].
    ///
    /// [`Runtime::start`]: crate::Runtime::start
    pub fn resume(self, options: &RunOptions) -> Result<Outcome<'rt, P, T>> {
        self.rt.resume_inner::<P, T>(options)
    }

    /// The runtime (for its configuration and the statistics of the segments so far).
    #[must_use]
    pub fn runtime(&self) -> &Runtime {
        self.rt
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pause_is_taken_once() {
        let t = PauseToken::new();
        assert!(!t.take());
        t.clone().pause();
        assert!(t.is_requested());
        assert!(t.take());
        assert!(!t.take());
        assert!(!t.is_requested());
    }

    #[test]
    fn the_sm_limit_keeps_one_sm() {
        let l = SmLimit::new();
        assert_eq!(l.get(), None);
        l.clone().set(Some(0));
        assert_eq!(l.get(), Some(1));
        l.set(Some(66));
        assert_eq!(l.get(), Some(66));
        l.set(None);
        assert_eq!(l.get(), None);
    }
}
