//! A loom model of the channels between GPUs (`gtap-device/src/gpu/peer`): a task exported
//! by GPU `V`, imported by `T`'s courier, run by a worker of `T`, whose result the worker
//! writes into `V`'s parent frame and whose completion goes through `T`'s outbox to `T`'s
//! courier and from there to `V`'s inbox, while `V` runs the parent's other child.
//!
//! Loom has one scope; the model maps every `.sys` access and fence to the same Rust atomic
//! or fence as its `.gpu` twin (`fence.acq_rel.sys` -> `fence(AcqRel)`, `st.release.sys` ->
//! `Release`, `ld.acquire.sys` -> `Acquire`). What it checks is the order of the steps: the
//! record is read after it was published, the result is written before the completion and
//! read by whoever resumes the parent (through two hand-offs: the worker's device-scope push
//! to the outbox, the courier's system-scope push to the inbox), and the parent resumes
//! exactly once. The scopes themselves are the argument of `docs/gpu-runtime.md` ("Several
//! GPUs"): every word two GPUs share is accessed at system scope by both, and each hand-off
//! inside a GPU is at device scope between threads of that GPU.
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
        let v = self.entry.load(Relaxed);
        // The commit released `tail` after the entry was written: an entry that reads as
        // empty here was not ordered before the commit (the model's own causality check, for
        // the variants without the fence).
        assert!(
            v != 0,
            "Causality violation: a committed entry read as empty"
        );
        Some(v - 1)
    }
}

/// Which fence the model leaves out (all but `Fenced` must be rejected by loom).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Fences {
    /// Every hand-off fences and releases.
    Fenced,
    /// `T`'s worker pushes the completion to the outbox without its fence and release.
    NoOutboxRelease,
    /// `T`'s courier forwards the completion to `V`'s inbox without its fence and release.
    NoInboxRelease,
}

/// `V`'s parent (two children: one run on `V`, one exported) and the channels.
struct Run {
    /// The exported child's record (its argument), written by `V` before the export.
    record: UnsafeCell<u32>,
    /// The imported copy of the record, in `T`'s pool.
    copy: UnsafeCell<u32>,
    /// The parent's frame: the two children's results.
    results: [UnsafeCell<u32>; 2],
    /// The parent's `pending` (shared path: fence, then an acquire RMW).
    pending: AtomicU32,
    /// `V`'s export queue, `T`'s overflow queue (where the courier puts the copy), `T`'s
    /// outbox and `V`'s inbox.
    export: Channel,
    overflow: Channel,
    outbox: Channel,
    inbox: Channel,
    /// How many times the parent resumed.
    resumed: AtomicU32,
    fences: Fences,
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

/// Spins (yielding to loom's scheduler) until `ch` holds an entry.
fn wait(ch: &Channel) -> u32 {
    loop {
        if let Some(v) = ch.take() {
            return v;
        }
        thread::yield_now();
    }
}

fn check(fences: Fences) {
    loom::model(move || {
        let run = Arc::new(Run {
            record: UnsafeCell::new(0),
            copy: UnsafeCell::new(0),
            results: [UnsafeCell::new(0), UnsafeCell::new(0)],
            pending: AtomicU32::new(2),
            export: Channel::new(),
            overflow: Channel::new(),
            outbox: Channel::new(),
            inbox: Channel::new(),
            resumed: AtomicU32::new(0),
            fences,
        });
        // T's courier: import (claim, fence, copy the record into a slot of T), push the copy
        // to T's overflow queue; later take the completion from the outbox and forward V's
        // slot to V's inbox.
        let courier = {
            let run = Arc::clone(&run);
            thread::spawn(move || {
                let slot = wait(&run.export);
                assert_eq!(slot, 1, "the exported slot");
                write(&run.copy, read(&run.record));
                run.overflow.push(0, true);
                let entry = wait(&run.outbox);
                assert_eq!(entry, 0, "the import-table entry");
                run.inbox.push(slot, run.fences != Fences::NoInboxRelease);
            })
        };
        // A worker of T: refills the copy from the overflow queue, runs it, writes the result
        // into V's frame and puts the import-table entry in the outbox.
        let worker = {
            let run = Arc::clone(&run);
            thread::spawn(move || {
                wait(&run.overflow);
                let arg = read(&run.copy);
                assert_eq!(arg, 7, "the record imported before it was written");
                write(&run.results[1], 2 * arg);
                run.outbox.push(0, run.fences != Fences::NoOutboxRelease);
            })
        };
        // GPU V: the record, then the export (fence, commit); the other child runs here and
        // completes; V's courier takes the completion and completes the placeholder.
        write(&run.record, 7);
        run.export.push(1, true);
        write(&run.results[0], 10);
        run.complete_child();
        wait(&run.inbox);
        run.complete_child();
        courier.join().unwrap();
        worker.join().unwrap();
        assert_eq!(run.resumed.load(Relaxed), 1, "the parent resumed once");
    });
}

#[test]
fn exported_imported_completed() {
    check(Fences::Fenced);
}

#[test]
#[should_panic(expected = "Causality violation")]
fn no_outbox_release() {
    check(Fences::NoOutboxRelease);
}

#[test]
#[should_panic(expected = "Causality violation")]
fn no_inbox_release() {
    check(Fences::NoInboxRelease);
}
