//! A loom model of the end of a run without joins on several GPUs (`gtap-device/src/gpu/peer`,
//! "Termination without joins"): each GPU counts its live tasks in one word whose high half
//! counts its imports, a task that moves is counted by the importer before the exporter
//! uncounts it, and the first GPU's courier ends the run only when two waves over every GPU's
//! word read a live count of 0 everywhere and each word the same twice.
//!
//! One task moves from GPU 1 to GPU 0, back, and to GPU 0 again, then finishes there, while
//! the first GPU's courier runs its two waves. A wave that ends the run while the task has not
//! finished is the failure the model looks for: the moving task hides from a wave that reads
//! GPU 0's word before it arrives there and GPU 1's after it left.
//!
//! Every access to the words is `SeqCst` here, stronger than the device's relaxed system-scope
//! RMWs and loads with a sequentially consistent fence between the waves: the model checks the
//! counting (what each word must hold and in which order a move updates the two words), and
//! `docs/gpu-runtime.md` ("Several GPUs") argues the device's orderings over each word's
//! coherence order. The variants without the import count, with the exporter uncounting
//! first, or with one wave must be rejected.

use loom::{
    sync::{
        atomic::{AtomicBool, AtomicU64, Ordering::SeqCst},
        Arc,
    },
    thread,
};

/// One import in a word's high half.
const IMPORT: u64 = 1 << 32;

/// Which part of the protocol the model leaves out (all but `Whole` must be rejected).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Variant {
    /// The protocol as the device runs it.
    Whole,
    /// An import adds to the live count only (no import count).
    NoImportCount,
    /// The exporter uncounts the task before the importer counts it.
    UncountFirst,
    /// The courier ends the run after one wave that reads every live count as 0.
    OneWave,
}

struct Gpus {
    /// Each GPU's `Control::live_here`.
    words: [AtomicU64; 2],
    /// The task ran to its end (set before its finish uncounts it).
    finished: AtomicBool,
    variant: Variant,
}

impl Gpus {
    /// The task moves from GPU `from` to GPU `to`: the importing courier counts it (and its
    /// import), then the exporter's courier, on the acknowledgement, uncounts it.
    fn moves(&self, from: usize, to: usize) {
        let count = if self.variant == Variant::NoImportCount {
            1
        } else {
            IMPORT + 1
        };
        if self.variant == Variant::UncountFirst {
            self.words[from].fetch_sub(1, SeqCst);
            self.words[to].fetch_add(count, SeqCst);
        } else {
            self.words[to].fetch_add(count, SeqCst);
            self.words[from].fetch_sub(1, SeqCst);
        }
    }

    /// One wave: every GPU's word, or `None` if a live count is not 0.
    fn wave(&self) -> Option<[u64; 2]> {
        let mut seen = [0; 2];
        for (g, w) in self.words.iter().enumerate() {
            seen[g] = w.load(SeqCst);
            if seen[g] as u32 != 0 {
                return None;
            }
        }
        Some(seen)
    }

    /// The first GPU's courier: whether the run is over (`every_count_zero`).
    fn every_count_zero(&self) -> bool {
        let Some(first) = self.wave() else {
            return false;
        };
        if self.variant == Variant::OneWave {
            return true;
        }
        self.wave() == Some(first)
    }
}

fn check(variant: Variant) {
    loom::model(move || {
        // The task starts on GPU 1, counted there.
        let gpus = Arc::new(Gpus {
            words: [AtomicU64::new(0), AtomicU64::new(1)],
            finished: AtomicBool::new(false),
            variant,
        });
        let couriers = {
            let gpus = Arc::clone(&gpus);
            thread::spawn(move || {
                gpus.moves(1, 0);
                gpus.moves(0, 1);
                gpus.moves(1, 0);
                gpus.finished.store(true, SeqCst);
                gpus.words[0].fetch_sub(1, SeqCst);
            })
        };
        if gpus.every_count_zero() {
            assert!(
                gpus.finished.load(SeqCst),
                "the run ended while a task was still live"
            );
        }
        couriers.join().unwrap();
        // Once everything settled, a wave does see the end.
        assert!(gpus.every_count_zero(), "the end was never seen");
    });
}

#[test]
fn moved_task_keeps_the_run_going() {
    check(Variant::Whole);
}

#[test]
#[should_panic(expected = "the run ended while a task was still live")]
fn no_import_count() {
    check(Variant::NoImportCount);
}

#[test]
#[should_panic(expected = "the run ended while a task was still live")]
fn uncount_first() {
    check(Variant::UncountFirst);
}

#[test]
#[should_panic(expected = "the run ended while a task was still live")]
fn one_wave() {
    check(Variant::OneWave);
}
