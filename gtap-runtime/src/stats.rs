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
    /// Several GPUs: the task steps each GPU of the run carried out, by its index in the run
    /// (how the work was shared); empty on one GPU and on the CPU.
    pub gpu_steps: Vec<u64>,
    /// Several GPUs: how long each GPU was hungry, by its index in the run (empty on one GPU):
    /// the time during which its courier counted, round after round, at least 16 reports of
    /// warps whose steals and refills on that GPU found nothing, and so imported or asked for
    /// another GPU's work. A GPU counts as hungry with a few dozen idle warps of its thousands,
    /// so this is an upper bound on the time it lacked work, not the time it stood idle.
    pub gpu_hungry: Vec<Duration>,
    /// Several GPUs: requests for work that hungry GPUs sent to others.
    pub cross_requests: u64,
    /// GPU: times the run paused ([`Outcome::Paused`](crate::Outcome::Paused)) and was
    /// resumed before it finished.
    pub pauses: u32,
    /// GPU with an [`SmLimit`](crate::SmLimit): shrinks and grows the run carried out.
    pub resizes: u32,
    /// GPU: warps that left the run at a batch boundary (pauses and shrinks) and took their
    /// saved state up again later.
    pub rejoins: u64,
    /// GPU, one GPU: where the host's part of [`RunStats::elapsed`] went (the fixed cost of a
    /// run, which dominates small runs); zero elsewhere.
    pub host: HostPhases,
}

/// The phases of one GPU run as the host sees them, in order; their sum is about
/// [`RunStats::elapsed`].
#[non_exhaustive]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostPhases {
    /// Up to the launch: the kernel and pools (cached after the first run), and the resets of
    /// the control block, deques and queues and the root's record staged in pinned memory.
    pub setup: Duration,
    /// Queuing the run's work on its stream: the setup's resets and copies, the kernel between
    /// the timing events and the readback behind it, one replayed CUDA graph on one GPU
    /// (`docs/gpu-runtime.md`, "The fixed cost of a run").
    pub launch: Duration,
    /// From the launch call's return until the host saw the kernel finished: the kernel's
    /// own time, the queued setup before it, and the watcher's polling latency.
    pub wait: Duration,
    /// After the kernel: the control block, queue headers, result and statistics read back.
    pub readback: Duration,
}

impl RunStats {
    /// [`RunStats::kernel_time`] in milliseconds.
    #[must_use]
    pub fn kernel_ms(&self) -> Option<f64> {
        self.kernel_time.map(|t| t.as_secs_f64() * 1e3)
    }

    /// Several GPUs: steals across GPUs per second of the run (kernel time, or the whole
    /// run's where there is none); 0 when nothing crossed.
    #[must_use]
    pub fn cross_steals_per_second(&self) -> f64 {
        let secs = self.kernel_time.unwrap_or(self.elapsed).as_secs_f64();
        if self.cross_steals == 0 || secs <= 0.0 {
            return 0.0;
        }
        self.cross_steals as f64 / secs
    }

    /// Several GPUs: tasks each steal across GPUs moved, on average; 0 when nothing crossed.
    #[must_use]
    pub fn tasks_per_cross_steal(&self) -> f64 {
        if self.cross_steals == 0 {
            return 0.0;
        }
        self.cross_tasks as f64 / self.cross_steals as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cross_steal_rates() {
        let st = RunStats {
            kernel_time: Some(Duration::from_millis(250)),
            cross_steals: 50,
            cross_tasks: 1_000,
            ..RunStats::default()
        };
        assert!((st.cross_steals_per_second() - 200.0).abs() < 1e-9);
        assert!((st.tasks_per_cross_steal() - 20.0).abs() < 1e-9);
        let none = RunStats::default();
        assert_eq!(none.cross_steals_per_second(), 0.0);
        assert_eq!(none.tasks_per_cross_steal(), 0.0);
    }
}
