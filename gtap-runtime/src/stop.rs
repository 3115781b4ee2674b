//! Stopping a run from outside: a [`CancelToken`] any thread can trigger, and a deadline
//! ([`RunOptions`], given to [`Runtime::run_with`](crate::Runtime::run_with)).
//!
//! Both backends stop at task boundaries and return [`Error::Cancelled`](crate::Error::Cancelled);
//! the runtime stays usable (the next run starts from clean pools and deques).
//!
//! - **GPU**: the host thread that waits for the kernel looks at the token and the deadline
//!   between its polls of the stream (at most 100 µs apart), and sets the abort word the
//!   workers read at their batch boundaries (every 64 batches, and whenever idle). A task body
//!   that runs long without returning delays the stop by its length.
//! - **CPU**: each worker looks every [`CPU_CHECK_EVERY`] steps and whenever idle, and the
//!   first that sees the request aborts the run.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// A cancellation request shared between threads: clone it, give one copy to
/// [`RunOptions::cancel`], call [`CancelToken::cancel`] on another.
#[derive(Clone, Debug, Default)]
pub struct CancelToken(Arc<AtomicBool>);

impl CancelToken {
    /// A token not yet cancelled.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Asks every run that holds this token to stop. Runs started with it afterwards stop at
    /// once; [`CancelToken::reset`] makes it usable again.
    pub fn cancel(&self) {
        // Ordering: Release; pairs with the Acquire in `is_cancelled` (nothing else is
        // published through the flag, Release/Acquire keeps the request itself ordered).
        self.0.store(true, Ordering::Release);
    }

    /// Whether [`CancelToken::cancel`] was called (since the last reset).
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        // Ordering: Acquire; pairs with `cancel`.
        self.0.load(Ordering::Acquire)
    }

    /// Clears the request.
    pub fn reset(&self) {
        // Ordering: Release; as `cancel`.
        self.0.store(false, Ordering::Release);
    }
}

/// How a run may be stopped before its root finishes, or steered while it runs.
#[derive(Clone, Debug, Default)]
pub struct RunOptions {
    /// Stop when this token is cancelled.
    pub cancel: Option<CancelToken>,
    /// Stop when the run has taken this long (measured from the call; for
    /// [`Paused::resume`](crate::Paused::resume), from the resume).
    pub deadline: Option<Duration>,
    /// Pause when this token asks ([`Runtime::start`](crate::Runtime::start) only).
    pub pause: Option<crate::PauseToken>,
    /// Follow this limit on the SMs the run uses while it runs (GPU).
    pub sms: Option<crate::SmLimit>,
}

/// Why a run stopped early ([`Error::Cancelled`](crate::Error::Cancelled)).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CancelReason {
    /// [`CancelToken::cancel`] was called.
    Token,
    /// [`RunOptions::deadline`] passed.
    Deadline,
}

/// CPU workers look for a stop request every this many steps (and whenever idle).
pub(crate) const CPU_CHECK_EVERY: u64 = 256;

/// A run's stop request, resolved from [`RunOptions`] at the start of the run, and what
/// steers it while it runs (pause, SM limit).
#[derive(Clone, Debug, Default)]
pub(crate) struct Stop {
    token: Option<CancelToken>,
    deadline: Option<Instant>,
    start: Option<Instant>,
    pub(crate) pause: Option<crate::PauseToken>,
    pub(crate) sms: Option<crate::SmLimit>,
}

impl Stop {
    /// The stop conditions of a run that starts now.
    pub(crate) fn new(options: &RunOptions) -> Self {
        let start = Instant::now();
        Self {
            token: options.cancel.clone(),
            deadline: options.deadline.map(|d| start + d),
            start: Some(start),
            pause: options.pause.clone(),
            sms: options.sms.clone(),
        }
    }

    /// Whether the run may be paused or resized (so the GPU watcher needs to look, and the
    /// run needs a kernel that can leave).
    pub(crate) fn steered(&self) -> bool {
        self.pause.is_some() || self.sms.is_some()
    }

    /// Nothing can stop the run.
    pub(crate) fn never() -> Self {
        Self::default()
    }

    /// Whether anything may ever stop the run (so the GPU watcher needs to look).
    pub(crate) fn armed(&self) -> bool {
        self.token.is_some() || self.deadline.is_some() || self.steered()
    }

    /// Why the run must stop now, if it must.
    pub(crate) fn requested(&self) -> Option<CancelReason> {
        if self.token.as_ref().is_some_and(CancelToken::is_cancelled) {
            return Some(CancelReason::Token);
        }
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            return Some(CancelReason::Deadline);
        }
        None
    }

    /// The error for a stop for `reason`.
    pub(crate) fn error(&self, reason: CancelReason) -> crate::Error {
        crate::Error::Cancelled {
            reason,
            after: self.start.map_or(Duration::ZERO, |s| s.elapsed()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_and_deadline() {
        let t = CancelToken::new();
        let stop = Stop::new(&RunOptions {
            cancel: Some(t.clone()),
            ..RunOptions::default()
        });
        assert!(stop.armed());
        assert_eq!(stop.requested(), None);
        t.cancel();
        assert_eq!(stop.requested(), Some(CancelReason::Token));
        t.reset();
        assert_eq!(stop.requested(), None);
        let late = Stop::new(&RunOptions {
            deadline: Some(Duration::ZERO),
            ..RunOptions::default()
        });
        assert_eq!(late.requested(), Some(CancelReason::Deadline));
        assert!(!Stop::never().armed());
        assert_eq!(Stop::never().requested(), None);
    }
}
