//! A loom model of the channels between GPUs (`gtap-device/src/gpu/peer.rs`): a task exported
//! by GPU `V`, imported and run by GPU `T`, whose result `T` writes into `V`'s parent frame and
//! whose completion comes back through `V`'s inbox, while `V` runs the parent's other child.
//!
//! Loom has one scope; the model maps every `.sys` access and fence to the same Rust atomic
//! or fence as its `.gpu` twin (`fence.acq_rel.sys` -> `fence(AcqRel)`, `st.release.sys` ->
//! `Release`, `ld.acquire.sys` -> `Acquire`). What it checks is the order of the steps: the
//! record is read after it was published, the result is written before the completion and
//! read by whoever resumes the parent, and the parent resumes exactly once. The scopes
//! themselves are the argument of `docs/gpu-runtime.md` ("Several GPUs"): every word two GPUs
//! share is accessed at system scope by both.
//!
//! Each channel is one entry with its `tail` (the global-queue protocol's commit and claim on
//! a ring that never wraps here; `ring.rs` models the wrap-around).

use crate::cell::{read, write};
use loom::{
    cell::UnsafeCell,
    sync::{
        atomic::{
            fence, AtomicU32,
            Ordering::{AcqRel, Acquire, Relaxed, Release},
        },
        Arc,
    },
    thread,
};

/// One single-entry channel: the entry, then `tail` released.
struct Channel {
    entry: AtomicU32,
    tail: AtomicU32,
}

impl Channel {
    fn new() -> Self {
        Channel {
            entry: AtomicU32::new(0),
            tail: AtomicU32::new(0),
        }
    }

    /// `reserve`, `write`, fence, `commit` (`commit_release`: the `.sys` release of `tail`).
    fn push(&self, v: u32, fenced: bool) {
        self.entry.store(v + 1, Relaxed);
        if fenced {
            fence(AcqRel);
        }
        self.tail.store(1, if fenced { Release } else { Relaxed });
    }

    /// `pop` (acquire `tail`), fence, `take`: the value, when one was committed.
    fn take(&self) -> Option<u32> {
        if self.tail.load(Acquire) == 0 {
            return None;
        }
        fence(AcqRel);
        Some(self.entry.load(Relaxed).wrapping_sub(1))
    }
}

/// `V`'s parent (two children: one run on `V`, one exported) and the channels.
struct Run {
    /// The exported child's record (its argument), written by `V` before the export.
    record: UnsafeCell<u32>,
    /// The parent's frame: the two children's results.
    results: [UnsafeCell<u32>; 2],
    /// The parent's `pending` (shared path: fence, then an acquire RMW).
    pending: AtomicU32,
    /// `V`'s overflow queue (the export channel) and inbox (the completion channel).
    export: Channel,
    inbox: Channel,
    /// How many times the parent resumed.
    resumed: AtomicU32,
    /// `T` fences before its completion and releases it (false: loom must reject).
    completion_fenced: bool,
}

impl Run {
    /// A child finished (its result is in the frame): the shared join of `join.rs`.
    fn complete_child(&self) {
        fence(AcqRel);
        if self.pending.fetch_sub(1, Acquire) == 1 {
            // The parent resumes: both results.
            let (a, b) = (read(&self.results[0]), read(&self.results[1]));
            assert_eq!((a, b), (10, 2 * 7), "a result not visible to the parent");
            self.resumed.fetch_add(1, Relaxed);
        }
    }
}

fn check(completion_fenced: bool) {
    loom::model(move || {
        let run = Arc::new(Run {
            record: UnsafeCell::new(0),
            results: [UnsafeCell::new(0), UnsafeCell::new(0)],
            pending: AtomicU32::new(2),
            export: Channel::new(),
            inbox: Channel::new(),
            resumed: AtomicU32::new(0),
            completion_fenced,
        });
        // GPU T: import (claim, fence, copy the record), run, write the result into V's frame,
        // then complete: fence, push V's slot to V's inbox.
        let t = {
            let run = Arc::clone(&run);
            thread::spawn(move || {
                let slot = loop {
                    if let Some(s) = run.export.take() {
                        break s;
                    }
                    thread::yield_now();
                };
                assert_eq!(slot, 1, "the exported slot");
                let arg = read(&run.record);
                assert_eq!(arg, 7, "the record imported before it was written");
                write(&run.results[1], 2 * arg);
                run.inbox.push(slot, run.completion_fenced);
            })
        };
        // GPU V: the record, then the export (a spill: fence, commit); the other child runs
        // here and completes; an idle warp of V takes the completion and completes the
        // placeholder.
        write(&run.record, 7);
        run.export.push(1, true);
        write(&run.results[0], 10);
        run.complete_child();
        let slot = loop {
            if let Some(s) = run.inbox.take() {
                break s;
            }
            thread::yield_now();
        };
        if run.completion_fenced {
            assert_eq!(slot, 1, "the completed slot");
        }
        run.complete_child();
        t.join().unwrap();
        assert_eq!(run.resumed.load(Relaxed), 1, "the parent resumed once");
    });
}

#[test]
fn exported_imported_completed() {
    check(true);
}

#[test]
#[should_panic(expected = "Causality violation")]
fn no_completion_release() {
    check(false);
}
