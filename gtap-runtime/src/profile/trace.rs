//! A [`Profile`] as a Chrome trace-event JSON file, the format Perfetto's UI
//! (<https://ui.perfetto.dev>, "Open trace file") and `chrome://tracing` open.
//!
//! Layout: one process (the run), one track ("thread") per worker, named `warp N` or `block N`
//! and sorted by index, and one complete event (`"ph": "X"`) per [`BatchRecord`], so a
//! record and a slice are one to one:
//!
//! - a batch with tasks is the slice `batch` (or `batch (stolen)` when its tasks came from a
//!   steal, which Perfetto colours differently) from `run_from` to `end`: the bodies, then the
//!   finishing. The gap before it on its track is the warp's idle time (`idle_from..run_from`:
//!   looking for work, stealing, backing off);
//! - the last record of a worker, with no tasks, is the slice `idle until exit`, from
//!   `idle_from` to `end`.
//!
//! Each slice's `args` hold the record's counts (`tasks`, `kept`, `steal_attempts`, `stolen`,
//! `spawned`, `joins`), its index on the track (`batch`) and its three times in µs (`idle_us`,
//! `body_us`, `finishing_us`). Timestamps are µs (the format's unit) from the run's first
//! timestamp, with ns precision. A worker whose records did not all fit is named
//! `warp N (M records dropped)`, and the file's `otherData` holds the run's summary (the same
//! object as `summary.json`).
//!
//! The file is written event by event (a profile of millions of batches does not sit in memory
//! twice); it takes about 210 bytes per record
//! (a profiled fib(36), 2.7 million batches, is about 570 MB, written in a few seconds).

use std::io::{self, Write};

use serde_json::{json, Value};

use super::{BatchRecord, Profile};

/// The trace's only process id.
const PID: u32 = 1;

impl Profile {
    /// Writes the profile as Chrome trace-event JSON to `out` (see the module docs of
    /// `profile::trace` for its layout).
    ///
    /// # Errors
    ///
    /// Any error of `out`.
    pub fn write_trace(&self, out: impl Write) -> io::Result<()> {
        let mut out = io::BufWriter::new(out);
        let (t0, _) = self.span();
        let summary: Value =
            serde_json::from_str(&self.summary_json()).map_err(io::Error::other)?;
        out.write_all(b"{\"displayTimeUnit\":\"ns\",\"otherData\":")?;
        serde_json::to_writer(&mut out, &json!({ "gtap_summary": summary }))?;
        writeln!(out, ",\"traceEvents\":[")?;
        let worker = self.worker_name();
        let mut first = true;
        let mut event = |out: &mut io::BufWriter<_>, e: Value| -> io::Result<()> {
            if !first {
                out.write_all(b",\n")?;
            }
            first = false;
            serde_json::to_writer(&mut *out, &e).map_err(io::Error::from)
        };
        let process = if self.block_level {
            format!(
                "gtap GPU run: {} blocks of {} threads",
                self.warps.len(),
                self.block
            )
        } else {
            format!("gtap GPU run: {} warps", self.warps.len())
        };
        event(
            &mut out,
            json!({"ph": "M", "pid": PID, "name": "process_name", "args": {"name": process}}),
        )?;
        for (w, trace) in self.warps.iter().enumerate() {
            let name = if trace.dropped > 0 {
                format!("{worker} {w} ({} records dropped)", trace.dropped)
            } else {
                format!("{worker} {w}")
            };
            event(
                &mut out,
                json!({"ph": "M", "pid": PID, "tid": w, "name": "thread_name", "args": {"name": name}}),
            )?;
            event(
                &mut out,
                json!({"ph": "M", "pid": PID, "tid": w, "name": "thread_sort_index", "args": {"sort_index": w}}),
            )?;
            for (i, b) in trace.batches.iter().enumerate() {
                event(&mut out, slice(w, i, b, t0))?;
            }
        }
        out.write_all(b"\n]}\n")?;
        out.flush()
    }
}

/// Nanoseconds as the format's microseconds.
fn us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

/// The slice of record `i` of worker `w` (see the module docs).
fn slice(w: usize, i: usize, b: &BatchRecord, t0: u64) -> Value {
    let (name, from) = match (b.tasks, b.stolen) {
        (0, _) => ("idle until exit", b.idle_from),
        (_, 0) => ("batch", b.run_from),
        _ => ("batch (stolen)", b.run_from),
    };
    json!({
        "ph": "X",
        "pid": PID,
        "tid": w,
        "name": name,
        "ts": us(from.saturating_sub(t0)),
        "dur": us(b.end.saturating_sub(from)),
        "args": {
            "batch": i,
            "tasks": b.tasks,
            "kept": b.kept,
            "steal_attempts": b.steal_attempts,
            "stolen": b.stolen,
            "spawned": b.spawned,
            "joins": b.joins,
            "idle_us": us(b.run_from.saturating_sub(b.idle_from)),
            "body_us": us(b.run_to.saturating_sub(b.run_from)),
            "finishing_us": us(b.end.saturating_sub(b.run_to)),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::super::WarpTrace;
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

    /// Three workers with 3, 0 and 2 records (one of them stolen, one the final idle one),
    /// the last with dropped records.
    fn profile(block_level: bool) -> Profile {
        let stolen = BatchRecord {
            stolen: 5,
            spawned: 7,
            joins: 2,
            steal_attempts: 3,
            kept: 1,
            ..rec(2_000, 2_500, 4_000, 4_500, 6)
        };
        Profile {
            warps: vec![
                WarpTrace {
                    batches: vec![
                        rec(1_000, 1_000, 1_500, 2_000, 32),
                        stolen,
                        rec(4_500, 9_000, 9_000, 9_000, 0),
                    ],
                    dropped: 0,
                },
                WarpTrace::default(),
                WarpTrace {
                    batches: vec![
                        rec(1_200, 1_300, 1_700, 1_900, 1),
                        rec(1_900, 3_000, 3_000, 3_000, 0),
                    ],
                    dropped: 4,
                },
            ],
            block: 64,
            block_level,
        }
    }

    fn parse(p: &Profile) -> Value {
        let mut bytes = Vec::new();
        p.write_trace(&mut bytes).expect("write to a Vec");
        serde_json::from_slice(&bytes).expect("the trace is JSON")
    }

    fn events(v: &Value) -> &Vec<Value> {
        v["traceEvents"]
            .as_array()
            .expect("traceEvents is an array")
    }

    #[test]
    fn one_slice_per_record_on_its_workers_track() {
        let p = profile(false);
        let v = parse(&p);
        let events = events(&v);
        for (w, trace) in p.warps.iter().enumerate() {
            let slices: Vec<&Value> = events
                .iter()
                .filter(|e| e["ph"] == "X" && e["tid"] == w)
                .collect();
            assert_eq!(slices.len(), trace.batches.len(), "worker {w}");
            for (i, (s, b)) in slices.iter().zip(&trace.batches).enumerate() {
                assert_eq!(s["args"]["batch"], i, "worker {w}: {s}");
                assert_eq!(s["args"]["tasks"], b.tasks, "worker {w}: {s}");
                assert_eq!(s["pid"], PID);
            }
        }
        let total: usize = p.warps.iter().map(|w| w.batches.len()).sum();
        assert_eq!(events.iter().filter(|e| e["ph"] == "X").count(), total);
        // Every worker has a named, sorted track, records or not.
        for w in 0..p.warps.len() {
            assert!(
                events
                    .iter()
                    .any(|e| e["name"] == "thread_name" && e["tid"] == w),
                "worker {w} has no thread_name"
            );
            assert!(events.iter().any(|e| e["name"] == "thread_sort_index"
                && e["tid"] == w
                && e["args"]["sort_index"] == w));
        }
        assert!(events
            .iter()
            .any(|e| e["args"]["name"] == "warp 2 (4 records dropped)"));
        assert_eq!(v["otherData"]["gtap_summary"]["dropped"], 4);
        assert_eq!(v["otherData"]["gtap_summary"]["batches"], 3);
        assert_eq!(v["displayTimeUnit"], "ns");
    }

    #[test]
    fn slices_are_named_and_timed_from_the_records() {
        let v = parse(&profile(false));
        let events = events(&v);
        let on = |w: usize, name: &str| -> Vec<&Value> {
            events
                .iter()
                .filter(|e| e["ph"] == "X" && e["tid"] == w && e["name"] == name)
                .collect()
        };
        // t0 = 1000 ns. The first batch: bodies from 1000 to 2000 ns.
        let first = on(0, "batch")[0];
        assert_eq!(first["ts"].as_f64(), Some(0.0));
        assert_eq!(first["dur"].as_f64(), Some(1.0));
        // The stolen one: from run_from (2.5 µs) to end (4.5 µs), with its counts.
        let stolen = on(0, "batch (stolen)");
        assert_eq!(stolen.len(), 1);
        let s = stolen[0];
        assert_eq!(s["ts"].as_f64(), Some(1.5));
        assert_eq!(s["dur"].as_f64(), Some(2.0));
        for (k, want) in [
            ("stolen", 5),
            ("spawned", 7),
            ("joins", 2),
            ("steal_attempts", 3),
            ("kept", 1),
        ] {
            assert_eq!(s["args"][k], want, "{k}");
        }
        assert_eq!(s["args"]["idle_us"].as_f64(), Some(0.5));
        assert_eq!(s["args"]["body_us"].as_f64(), Some(1.5));
        assert_eq!(s["args"]["finishing_us"].as_f64(), Some(0.5));
        // The final idle record spans its idle time.
        let exit = on(0, "idle until exit")[0];
        assert_eq!(exit["ts"].as_f64(), Some(3.5));
        assert_eq!(exit["dur"].as_f64(), Some(4.5));
    }

    #[test]
    fn block_level_tracks_are_blocks() {
        let v = parse(&profile(true));
        let events = events(&v);
        assert!(events.iter().any(|e| e["args"]["name"] == "block 0"));
        assert!(events
            .iter()
            .any(|e| e["args"]["name"] == "gtap GPU run: 3 blocks of 64 threads"));
        assert!(!events.iter().any(|e| e["args"]["name"] == "warp 0"));
    }

    #[test]
    fn an_empty_profile_is_a_valid_trace() {
        let v = parse(&Profile::default());
        assert_eq!(events(&v).len(), 1, "only the process name");
    }
}
