//! What the last run did: [`RunStats`], from [`Runtime::last_stats`](crate::Runtime::last_stats).

use std::time::Duration;

/// Counters and timings of one run. Counters a backend does not track stay 0.
#[non_exhaustive]
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunStats {
    /// `"cpu"` or `"gpu"`.
    pub backend: &'static str,
    /// CPU worker threads, or GPU workers (warps or blocks).
    pub workers: usize,
    /// Tasks created, the root included.
    pub tasks: u64,
    /// Calls of a step function (a task that suspends `k` times takes `k + 1`).
    pub steps: u64,
    /// Successful steal operations (a batch counts once).
    pub steals: u64,
    /// Wall time of the whole run, host bookkeeping included.
    pub elapsed: Duration,
    /// GPU: time between the kernel's start and end events; `None` on the CPU.
    pub kernel_time: Option<Duration>,
    /// GPU with `Config::profile_records > 0`: every warp's batches.
    pub profile: Option<crate::profile::Profile>,
    /// GPU: the GPUs (or partitions of one, see [`Devices`](crate::Devices)) that ran the
    /// task tree: 1 on one GPU, 0 on the CPU.
    pub gpus: usize,
    /// Several GPUs: steals across GPUs (claims that moved tasks from one GPU to another).
    pub cross_steals: u64,
    /// Several GPUs: tasks that moved to another GPU (each one's record crossed once, and its
    /// completion crossed back).
    pub cross_tasks: u64,
    /// Several GPUs: bytes that crossed between GPUs for those tasks (records, results and
    /// queue entries; the user's own buffers excluded).
    pub cross_bytes: u64,
    /// GPU: times the run paused ([`Outcome::Paused`](crate::Outcome::Paused)) and was
    /// resumed before it finished.
    pub pauses: u32,
    /// GPU with an [`SmLimit`](crate::SmLimit): shrinks and grows the run carried out.
    pub resizes: u32,
    /// GPU: warps that left the run at a batch boundary (pauses and shrinks) and took their
    /// saved state up again later.
    pub rejoins: u64,
}

impl RunStats {
    /// [`RunStats::kernel_time`] in milliseconds.
    #[must_use]
    pub fn kernel_ms(&self) -> Option<f64> {
        self.kernel_time.map(|t| t.as_secs_f64() * 1e3)
    }
}
