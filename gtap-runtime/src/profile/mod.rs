//! The batch profiler's data: what each GPU warp did, batch by batch.
//!
//! Switched on by [`Config::profile_records`](crate::Config::profile_records) (records per
//! warp; 0, the default, runs the kernel without any profiling code). A profiled run launches
//! `gtap_thread_worker_profiled_<Program>`, whose lane 0 writes one [`BatchRecord`] per batch
//! into a bounded per-warp region; the host reads them into a [`Profile`], available as
//! `Runtime::last_stats().profile`.
//!
//! Invariants: a warp's records are in time order and do not overlap
//! (`idle_from <= run_from <= run_to <= end <= next idle_from`); records beyond the region's
//! capacity are not stored but counted in [`WarpTrace::dropped`], and [`Profile::dropped`] is
//! reported by every writer here, so a truncated profile never passes for a complete one.
//!
//! [`Profile::write_dir`] writes it as `batches.csv`, `summary.json`, `trace.json` (Chrome
//! trace-event JSON for Perfetto's UI: module `trace`) and, with the `plot` feature, pictures.
//!
//! Times are the GPU's `%globaltimer` nanoseconds (one clock for all SMs; it advances in steps
//! of about 1 µs on Hopper, so a single short interval is only accurate to that step).

#[cfg(feature = "plot")]
mod plot;
mod trace;
#[cfg(feature = "plot")]
pub use plot::ensure_font;

use std::fmt::Write as _;
use std::io;
use std::path::Path;

pub use gtap_device::gpu::layout::BatchRecord;

/// The batches of one warp.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct WarpTrace {
    /// Stored records, in time order.
    pub batches: Vec<BatchRecord>,
    /// Records the warp produced beyond the region's capacity (not stored).
    pub dropped: u64,
}

/// A profiled run: one trace per worker (a warp, or a block for block-level workers).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Profile {
    /// Indexed by worker: the global warp index (block × warps per block + warp in block)
    /// for thread-level workers, the block index for block-level ones.
    pub warps: Vec<WarpTrace>,
    /// Threads per block of the run (32 lanes per warp).
    pub block: u32,
    /// The workers are blocks (a program with a `#[gtap::function(block)]` kind): a record's
    /// `tasks` is 1 for a block-level task, or the thread-level tasks of the batch (one per
    /// thread, up to `block`).
    pub block_level: bool,
}

impl Profile {
    /// What one trace is: `"warp"` or `"block"`.
    #[must_use]
    pub fn worker_name(&self) -> &'static str {
        if self.block_level {
            "block"
        } else {
            "warp"
        }
    }
}

/// Totals over a [`Profile`].
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Warps in the run.
    pub warps: usize,
    /// Stored batch records with at least one task.
    pub batches: u64,
    /// Records not stored (the run's profile is incomplete when > 0).
    pub dropped: u64,
    /// First and last timestamp, ns.
    pub span_ns: (u64, u64),
    /// Tasks run per batch, mean (of 32 lanes).
    pub tasks_per_batch: f64,
    /// Fraction of warp-time spent in task bodies, in finishing, and idle (sums to 1).
    pub executing: f64,
    /// See `executing`.
    pub finishing: f64,
    /// See `executing`.
    pub idle: f64,
    /// Steal rounds tried and batches that came from a steal.
    pub steal_attempts: u64,
    /// See `steal_attempts`.
    pub steals: u64,
    /// Children spawned and parents resumed by joins.
    pub spawns: u64,
    /// See `spawns`.
    pub joins: u64,
}

impl Profile {
    /// Records produced but not stored, over all warps.
    #[must_use]
    pub fn dropped(&self) -> u64 {
        self.warps.iter().map(|w| w.dropped).sum()
    }

    /// The earliest and latest timestamps of the run (0, 0 when empty).
    #[must_use]
    pub fn span(&self) -> (u64, u64) {
        let mut lo = u64::MAX;
        let mut hi = 0;
        for b in self.warps.iter().flat_map(|w| &w.batches) {
            lo = lo.min(b.idle_from);
            hi = hi.max(b.end);
        }
        if lo > hi {
            (0, 0)
        } else {
            (lo, hi)
        }
    }

    /// Totals and time fractions.
    #[must_use]
    pub fn summary(&self) -> Summary {
        let mut s = Summary {
            warps: self.warps.len(),
            dropped: self.dropped(),
            span_ns: self.span(),
            ..Summary::default()
        };
        let (mut tasks, mut exec, mut fin, mut idle) = (0u64, 0u64, 0u64, 0u64);
        for b in self.warps.iter().flat_map(|w| &w.batches) {
            if b.tasks > 0 {
                s.batches += 1;
                tasks += u64::from(b.tasks);
            }
            idle += b.run_from.saturating_sub(b.idle_from);
            exec += b.run_to.saturating_sub(b.run_from);
            fin += b.end.saturating_sub(b.run_to);
            s.steal_attempts += u64::from(b.steal_attempts);
            s.steals += u64::from(b.stolen > 0);
            s.spawns += u64::from(b.spawned);
            s.joins += u64::from(b.joins);
        }
        let total = (exec + fin + idle).max(1) as f64;
        s.tasks_per_batch = tasks as f64 / s.batches.max(1) as f64;
        s.executing = exec as f64 / total;
        s.finishing = fin as f64 / total;
        s.idle = idle as f64 / total;
        s
    }

    /// Every record as CSV, one line per batch, times in ns from the run's first timestamp.
    #[must_use]
    pub fn to_csv(&self) -> String {
        let (t0, _) = self.span();
        let mut out = format!(
            "{},batch,idle_from_ns,run_from_ns,run_to_ns,end_ns,tasks,kept,steal_attempts,stolen,spawned,joins\n",
            self.worker_name()
        );
        for (w, trace) in self.warps.iter().enumerate() {
            for (i, b) in trace.batches.iter().enumerate() {
                let _ = writeln!(
                    out,
                    "{w},{i},{},{},{},{},{},{},{},{},{},{}",
                    b.idle_from - t0,
                    b.run_from - t0,
                    b.run_to - t0,
                    b.end - t0,
                    b.tasks,
                    b.kept,
                    b.steal_attempts,
                    b.stolen,
                    b.spawned,
                    b.joins
                );
            }
        }
        out
    }

    /// The summary as JSON (one object), with the per-warp dropped counts where non-zero.
    #[must_use]
    pub fn summary_json(&self) -> String {
        let s = self.summary();
        let dropped: Vec<String> = self
            .warps
            .iter()
            .enumerate()
            .filter(|(_, w)| w.dropped > 0)
            .map(|(i, w)| format!("[{i},{}]", w.dropped))
            .collect();
        format!(
            "{{\"worker\":\"{}\",\"warps\":{},\"block\":{},\"batches\":{},\"dropped\":{},\"dropped_per_warp\":[{}],\"span_ns\":{},\"tasks_per_batch\":{:.3},\"executing\":{:.4},\"finishing\":{:.4},\"idle\":{:.4},\"steal_attempts\":{},\"steals\":{},\"spawns\":{},\"joins\":{}}}\n",
            self.worker_name(),
            s.warps,
            self.block,
            s.batches,
            s.dropped,
            dropped.join(","),
            s.span_ns.1 - s.span_ns.0,
            s.tasks_per_batch,
            s.executing,
            s.finishing,
            s.idle,
            s.steal_attempts,
            s.steals,
            s.spawns,
            s.joins
        )
    }

    /// Writes `batches.csv`, `summary.json` and `trace.json` (see [`Profile::write_trace`])
    /// into `dir` (created if missing), and with the `plot` feature also `timeline`,
    /// `utilization` and `batch-time-histogram` as `.png` and `.svg`. Returns the paths
    /// written.
    ///
    /// # Errors
    ///
    /// Any I/O error, or a plotting error as [`io::ErrorKind::Other`].
    pub fn write_dir(&self, dir: &Path) -> io::Result<Vec<std::path::PathBuf>> {
        std::fs::create_dir_all(dir)?;
        let mut written = Vec::new();
        let csv = dir.join("batches.csv");
        std::fs::write(&csv, self.to_csv())?;
        written.push(csv);
        let json = dir.join("summary.json");
        std::fs::write(&json, self.summary_json())?;
        written.push(json);
        let trace = dir.join("trace.json");
        self.write_trace(std::fs::File::create(&trace)?)?;
        written.push(trace);
        #[cfg(feature = "plot")]
        written.extend(plot::write_all(self, dir)?);
        Ok(written)
    }

    /// Fraction of warps inside a task body, sampled at `bins` evenly spaced instants over
    /// the run's span (for the utilization curve).
    #[must_use]
    pub fn utilization(&self, bins: usize) -> Vec<(f64, f64)> {
        let (t0, t1) = self.span();
        let bins = bins.max(1);
        let width = ((t1 - t0) as f64 / bins as f64).max(1.0);
        let mut busy = vec![0f64; bins];
        for b in self.warps.iter().flat_map(|w| &w.batches) {
            // Add the overlap of [run_from, run_to) with each bin.
            let (s, e) = ((b.run_from - t0) as f64, (b.run_to - t0) as f64);
            if e <= s {
                continue;
            }
            let first = ((s / width) as usize).min(bins - 1);
            let last = ((e / width) as usize).min(bins - 1);
            for (i, slot) in busy.iter_mut().enumerate().take(last + 1).skip(first) {
                let lo = s.max(i as f64 * width);
                let hi = e.min((i + 1) as f64 * width);
                *slot += (hi - lo).max(0.0);
            }
        }
        let warps = self.warps.len().max(1) as f64;
        busy.iter()
            .enumerate()
            .map(|(i, &t)| ((i as f64 + 0.5) * width / 1e6, t / (width * warps)))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rec(idle_from: u64, run_from: u64, run_to: u64, end: u64, tasks: u32) -> BatchRecord {
        BatchRecord {
            idle_from,
            run_from,
            run_to,
            end,
            tasks,
            ..BatchRecord::default()
        }
    }

    #[test]
    fn summary_splits_time_and_counts_drops() {
        let p = Profile {
            warps: vec![
                WarpTrace {
                    batches: vec![rec(0, 10, 30, 40, 32), rec(40, 40, 50, 60, 16)],
                    dropped: 0,
                },
                WarpTrace {
                    batches: vec![rec(0, 60, 60, 60, 0)],
                    dropped: 3,
                },
            ],
            block: 64,
            block_level: false,
        };
        let s = p.summary();
        assert_eq!(s.batches, 2);
        assert_eq!(s.dropped, 3);
        assert_eq!(s.span_ns, (0, 60));
        assert!((s.tasks_per_batch - 24.0).abs() < 1e-9);
        // idle 10 + 0 + 60, exec 20 + 10, finishing 10 + 10: total 120.
        assert!((s.idle - 70.0 / 120.0).abs() < 1e-9, "{s:?}");
        assert!((s.executing - 30.0 / 120.0).abs() < 1e-9, "{s:?}");
        assert!(p.summary_json().contains("\"dropped_per_warp\":[[1,3]]"));
        let csv = p.to_csv();
        assert_eq!(csv.lines().count(), 4);
        assert!(csv.starts_with("warp,batch,"));
        let blocks = Profile {
            block_level: true,
            ..p.clone()
        };
        assert!(blocks.to_csv().starts_with("block,batch,"));
        assert!(blocks.summary_json().contains("\"worker\":\"block\""));
        assert!(csv
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("0,0,0,10,30,40,32,"));
    }

    #[cfg(feature = "plot")]
    #[test]
    fn pictures_are_written() {
        let warps = (0..300u64)
            .map(|w| WarpTrace {
                batches: (0..50u64)
                    .map(|i| {
                        rec(
                            i * 100 + w,
                            i * 100 + w + 10,
                            i * 100 + w + 60,
                            i * 100 + w + 90,
                            32,
                        )
                    })
                    .collect(),
                dropped: 0,
            })
            .collect();
        let p = Profile {
            warps,
            block: 64,
            block_level: false,
        };
        let dir = std::env::temp_dir().join(format!("gtap-profile-test-{}", std::process::id()));
        let written = p.write_dir(&dir).expect("pictures");
        assert_eq!(written.len(), 9, "{written:?}");
        for path in &written {
            let bytes = std::fs::metadata(path).expect("written").len();
            assert!(bytes > 100, "{} has {bytes} bytes", path.display());
        }
        let svg = std::fs::read_to_string(dir.join("timeline.svg")).unwrap();
        assert!(svg.contains("<rect"), "the timeline draws rectangles");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn write_dir_writes_a_trace_with_every_record() {
        let p = Profile {
            warps: (0..4u64)
                .map(|w| WarpTrace {
                    batches: (0..=w)
                        .map(|i| rec(i * 10, i * 10 + 1, i * 10 + 5, i * 10 + 9, 3))
                        .collect(),
                    dropped: 0,
                })
                .collect(),
            block: 32,
            block_level: false,
        };
        let dir = std::env::temp_dir().join(format!("gtap-trace-test-{}", std::process::id()));
        let written = p.write_dir(&dir).expect("written");
        let trace = dir.join("trace.json");
        assert!(written.contains(&trace), "{written:?}");
        let v: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&trace).unwrap()).expect("trace.json parses");
        let slices = v["traceEvents"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["ph"] == "X")
            .count();
        assert_eq!(slices, 1 + 2 + 3 + 4);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn utilization_is_the_busy_fraction_per_bin() {
        // One of two warps busy for the whole first half.
        let p = Profile {
            warps: vec![
                WarpTrace {
                    batches: vec![rec(0, 0, 50, 100, 1)],
                    dropped: 0,
                },
                WarpTrace {
                    batches: vec![rec(0, 100, 100, 100, 0)],
                    dropped: 0,
                },
            ],
            block: 64,
            block_level: false,
        };
        let u = p.utilization(2);
        assert_eq!(u.len(), 2);
        assert!((u[0].1 - 0.5).abs() < 1e-9, "{u:?}");
        assert!(u[1].1.abs() < 1e-9, "{u:?}");
    }
}
