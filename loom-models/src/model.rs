//! The models; the crate doc maps each step to the device code.

use std::{
    collections::BTreeSet,
    sync::{Arc as StdArc, Mutex},
};

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

/// `layout::FLAG_SHARED`: the parent's join may complete on another warp.
const FLAG_SHARED: u32 = 1;
/// Warp ids in the model's bookkeeping (0: nobody).
const OWNER: u32 = 1;
const THIEF: u32 = 2;

/// What child `i` computes: its argument, read from its frame, to its result.
fn work(arg: u32) -> u32 {
    10 * arg + 1
}

/// The results of `n` children whose arguments are `1..=n`.
fn expected_sum(n: usize) -> u32 {
    (1..=n as u32).map(work).sum()
}

/// Which fences the protocol runs: all of them, except in the `no_*` models.
#[derive(Clone, Copy)]
struct Fences {
    /// `Warp::release`: after the marks, before the add to `count`.
    release: bool,
    /// The batch's fence after a claim (`steal`, `pop_own`).
    claim: bool,
    /// `join_wf`: before the shared decrement.
    before_rmw: bool,
    /// `complete_wf`: the shared decrement is an acquire RMW (`atom.acquire.gpu`; until the
    /// fifteenth session a relaxed RMW and a fence after the last one).
    acquire_rmw: bool,
}

const ALL: Fences = Fences {
    release: true,
    claim: true,
    before_rmw: true,
    acquire_rmw: true,
};

/// One parent suspended at a join of `N` children, and its owner's deque (one queue, one
/// public entry at most).
struct Join<const N: usize> {
    fences: Fences,
    /// The parent's header `flags`.
    flags: UnsafeCell<u32>,
    /// The parent's header `pending`: plain on the device until the mark; here `Relaxed`
    /// loads and stores until then (loom cannot mix plain and atomic accesses to one place).
    pending: AtomicU32,
    /// The children's frames (their arguments).
    args: [UnsafeCell<u32>; N],
    /// The children's result slots in the parent's frame.
    results: [UnsafeCell<u32>; N],
    /// The owner's ring entry at the public head (a child index).
    ring: UnsafeCell<u32>,
    /// The owner's `DequeHeader::count`: published, unclaimed entries.
    count: AtomicU32,
    /// An overflow queue (`global_queue.rs`) of one entry: the entry (child + 1, 0 = empty),
    /// `tail` (committed) and `head` (claimed).
    ov_entry: AtomicU32,
    ov_tail: AtomicU32,
    ov_head: AtomicU32,
    /// Bookkeeping, not device state: the warp that resumed the parent, and the warp that
    /// ran the released child.
    resumed_by: AtomicU32,
    released_ran_on: AtomicU32,
}

impl<const N: usize> Join<N> {
    fn new(fences: Fences) -> Self {
        Join {
            fences,
            flags: UnsafeCell::new(0),
            pending: AtomicU32::new(0),
            args: std::array::from_fn(|_| UnsafeCell::new(0)),
            results: std::array::from_fn(|_| UnsafeCell::new(0)),
            ring: UnsafeCell::new(0),
            count: AtomicU32::new(0),
            ov_entry: AtomicU32::new(0),
            ov_tail: AtomicU32::new(0),
            ov_head: AtomicU32::new(0),
            resumed_by: AtomicU32::new(0),
            released_ran_on: AtomicU32::new(0),
        }
    }

    /// Owner: the parent's batch spawns its children and suspends.
    fn spawn(&self) {
        for (i, arg) in self.args.iter().enumerate() {
            write(arg, i as u32 + 1);
        }
        self.pending.store(N as u32, Relaxed);
    }

    /// Owner (`Warp::release`): publishes `child`; marks its parent, fences, adds to `count`.
    fn release(&self, child: u32) {
        write(&self.ring, child);
        write(&self.flags, read(&self.flags) | FLAG_SHARED);
        if self.fences.release {
            fence(AcqRel);
        }
        self.count.fetch_add(1, Relaxed);
    }

    /// Owner (`overflow::spill`): moves private `child` to the overflow queue: marks its
    /// parent, writes the entry, fences, commits `tail` with release. (`fences.release` false
    /// drops the fence and weakens the commit to `Relaxed`: one thread stands for all lanes
    /// here, so the release store alone would already order the marks.)
    fn spill(&self, child: u32) {
        write(&self.flags, read(&self.flags) | FLAG_SHARED);
        self.ov_entry.store(child + 1, Relaxed);
        if self.fences.release {
            fence(AcqRel);
        }
        let order = if self.fences.release {
            Release
        } else {
            Relaxed
        };
        self.ov_tail.store(1, order);
    }

    /// Either warp (`overflow::overflow_refill`): acquires `tail`, claims by CAS on `head`,
    /// fences, takes the entry (and zeroes it). (`fences.claim` false: a `Relaxed` load of
    /// `tail` and no fence.)
    fn refill(&self) -> Option<u32> {
        // As `GlobalQueues::pop`: `head` first, then `tail`, which may be older than that
        // `head` (different words): such a pair reads as empty.
        let h = self.ov_head.load(Relaxed);
        let order = if self.fences.claim { Acquire } else { Relaxed };
        let t = self.ov_tail.load(order);
        if t.wrapping_sub(h) == 0 || t.wrapping_sub(h) > 1 {
            return None;
        }
        self.ov_head
            .compare_exchange(h, h + 1, Relaxed, Relaxed)
            .ok()?;
        if self.fences.claim {
            fence(AcqRel);
        }
        let entry = self.ov_entry.load(Relaxed);
        // The device spins on an empty entry (`GlobalQueues::take`); a claimed position whose
        // entry reads empty here is a claim that did not see the spiller's writes.
        assert_ne!(
            entry, 0,
            "Causality violation: a claimed overflow entry read as empty"
        );
        self.ov_entry.store(0, Relaxed);
        Some(entry - 1)
    }

    /// Either warp (`steal`, `pop_own`): claims the public entry, then the batch's fence.
    fn claim(&self) -> Option<u32> {
        let c = self.count.load(Relaxed);
        if c == 0 {
            return None;
        }
        self.count
            .compare_exchange(c, c - 1, Relaxed, Relaxed)
            .ok()?;
        if self.fences.claim {
            fence(AcqRel);
        }
        Some(read(&self.ring))
    }

    /// Warp `warp` runs `child` and tells the parent (`join_wf`).
    fn run(&self, child: u32, warp: u32) {
        let c = child as usize;
        write(&self.results[c], work(read(&self.args[c])));
        if read(&self.flags) & FLAG_SHARED != 0 {
            self.complete_shared(warp);
        } else {
            self.complete_plain(warp);
        }
    }

    /// Warp `warp` runs `child` and tells the parent under the inline rules (`worker/lane.rs`):
    /// a parent that is unmarked and waits for this child alone is completed at once, with
    /// plain accesses and no fence (`Warp::waits_for_one`); a marked parent is told by the
    /// lane itself with its own fence and acquire RMW, and the lane whose RMW was the last
    /// resumes it at once (`Warp::tell_shared_in_lane`: the shared path for a group of one,
    /// `complete_shared` here); any other goes through `run`'s paths. `check_mark = false`
    /// drops the mark test (the `no_mark_check` model).
    fn run_inline(&self, child: u32, warp: u32, check_mark: bool) {
        let c = child as usize;
        write(&self.results[c], work(read(&self.args[c])));
        let unmarked = !check_mark || read(&self.flags) & FLAG_SHARED == 0;
        if unmarked && self.pending.load(Relaxed) == 1 {
            // The completed join's counter is not stored (as on the device).
            self.resume(warp);
        } else if read(&self.flags) & FLAG_SHARED != 0 {
            self.complete_shared(warp);
        } else {
            self.complete_plain(warp);
        }
    }

    /// `complete_wf`, owner only: a plain load and store (here `Relaxed`), no fence.
    fn complete_plain(&self, warp: u32) {
        assert_eq!(warp, OWNER, "an unmarked join completes on its owner");
        let left = self.pending.load(Relaxed) - 1;
        if left == 0 {
            // The completed join's counter is not stored (as on the device).
            self.resume(warp);
        } else {
            self.pending.store(left, Relaxed);
        }
    }

    /// `join_wf` + `complete_wf`, shared: fence, then an acquire RMW; the last one resumes
    /// the parent with no further fence.
    fn complete_shared(&self, warp: u32) {
        if self.fences.before_rmw {
            fence(AcqRel);
        }
        let order = if self.fences.acquire_rmw {
            Acquire
        } else {
            Relaxed
        };
        if self.pending.fetch_sub(1, order) == 1 {
            self.resume(warp);
        }
    }

    /// The parent resumes on `warp`: it reads every result and, suspending again later,
    /// clears its mark (a plain store by the new owner).
    fn resume(&self, warp: u32) {
        let sum: u32 = self.results.iter().map(read).sum();
        assert_eq!(sum, expected_sum(N));
        write(&self.flags, 0);
        assert_eq!(self.resumed_by.swap(warp, Relaxed), 0, "resumed twice");
    }

    /// Thief: one steal attempt; runs what it claims.
    fn thief(&self) {
        if let Some(child) = self.claim() {
            self.released_ran_on.store(THIEF, Relaxed);
            self.run(child, THIEF);
        }
    }

    /// Owner, with its private part empty: takes back a released child nobody stole.
    fn reclaim(&self) {
        if let Some(child) = self.claim() {
            self.released_ran_on.store(OWNER, Relaxed);
            self.run(child, OWNER);
        }
    }

    /// After both warps (joined): the parent resumed exactly once; (released child ran on,
    /// resumed on).
    fn outcome(&self) -> (u32, u32) {
        // `pending` is 0, or 1 where the owner completed the join with plain accesses and left
        // the completed counter unstored; that the parent resumed exactly once is `resume`'s
        // own check.
        assert!(self.pending.load(Relaxed) <= 1);
        let resumed = self.resumed_by.load(Relaxed);
        assert_ne!(resumed, 0, "the parent never resumed");
        (self.released_ran_on.load(Relaxed), resumed)
    }
}

/// Runs `owner` and the thief on one `Join` under loom; returns the set of outcomes seen.
fn check<const N: usize>(fences: Fences, owner: fn(&Join<N>)) -> BTreeSet<(u32, u32)> {
    let seen = StdArc::new(Mutex::new(BTreeSet::new()));
    let record = StdArc::clone(&seen);
    loom::model(move || {
        let join = Arc::new(Join::<N>::new(fences));
        let thief = {
            let join = Arc::clone(&join);
            thread::spawn(move || join.thief())
        };
        owner(&join);
        thief.join().unwrap();
        record.lock().unwrap().insert(join.outcome());
    });
    let seen = seen.lock().unwrap().clone();
    seen
}

/// Owner of model 2: two children, one kept, one released.
fn owner_keep_one(join: &Join<2>) {
    join.spawn();
    join.release(1);
    join.run(0, OWNER);
    join.reclaim();
}

/// Owner of the plain-then-shared model: child 0 completes through the plain path in an
/// earlier batch, then child 2 is released and child 1 runs.
fn owner_plain_then_release(join: &Join<3>) {
    join.spawn();
    join.run(0, OWNER);
    join.release(2);
    join.run(1, OWNER);
    join.reclaim();
}

/// Runs the inline-rule model: the owner spawns two children, releases child 1 when
/// `release`, finishes child 0 (and takes child 1 back if nobody stole it); the thief steals
/// and finishes what it claims; every finish uses the inline rule. Returns the outcomes.
fn check_inline(release: bool, check_mark: bool, fences: Fences) -> BTreeSet<(u32, u32)> {
    let seen = StdArc::new(Mutex::new(BTreeSet::new()));
    let record = StdArc::clone(&seen);
    loom::model(move || {
        let join = Arc::new(Join::<2>::new(fences));
        let thief = {
            let join = Arc::clone(&join);
            thread::spawn(move || {
                if let Some(child) = join.claim() {
                    join.released_ran_on.store(THIEF, Relaxed);
                    join.run_inline(child, THIEF, check_mark);
                }
            })
        };
        join.spawn();
        if release {
            join.release(1);
            join.run_inline(0, OWNER, check_mark);
            if let Some(child) = join.claim() {
                join.released_ran_on.store(OWNER, Relaxed);
                join.run_inline(child, OWNER, check_mark);
            }
        } else {
            join.run_inline(0, OWNER, check_mark);
            join.run_inline(1, OWNER, check_mark);
        }
        thief.join().unwrap();
        record.lock().unwrap().insert(join.outcome());
    });
    let seen = seen.lock().unwrap().clone();
    seen
}

/// Runs the overflow model: the owner spawns two children, spills child 1 to the overflow
/// queue, finishes child 0, and refills child 1 itself if no idle warp took it; the other warp
/// refills and runs what it claims. Returns the outcomes.
fn check_spill(fences: Fences) -> BTreeSet<(u32, u32)> {
    let seen = StdArc::new(Mutex::new(BTreeSet::new()));
    let record = StdArc::clone(&seen);
    loom::model(move || {
        let join = Arc::new(Join::<2>::new(fences));
        let idle = {
            let join = Arc::clone(&join);
            thread::spawn(move || {
                if let Some(child) = join.refill() {
                    join.released_ran_on.store(THIEF, Relaxed);
                    join.run(child, THIEF);
                }
            })
        };
        join.spawn();
        join.spill(1);
        join.run(0, OWNER);
        if let Some(child) = join.refill() {
            join.released_ran_on.store(OWNER, Relaxed);
            join.run(child, OWNER);
        }
        idle.join().unwrap();
        record.lock().unwrap().insert(join.outcome());
    });
    let seen = seen.lock().unwrap().clone();
    seen
}

#[test]
fn spilled_then_refilled() {
    // The spilled child runs on the idle warp (which may also complete the join) or goes back
    // to its owner; every completion reads both results.
    let seen = check_spill(ALL);
    assert!(seen.contains(&(THIEF, THIEF)), "{seen:?}");
    assert!(seen.contains(&(THIEF, OWNER)), "{seen:?}");
    assert!(seen.contains(&(OWNER, OWNER)), "{seen:?}");
}

#[test]
#[should_panic(expected = "Causality violation")]
fn no_spill_release() {
    check_spill(Fences {
        release: false,
        ..ALL
    });
}

#[test]
#[should_panic(expected = "Causality violation")]
fn no_refill_acquire() {
    check_spill(Fences {
        claim: false,
        ..ALL
    });
}

#[test]
fn inline_owner_only() {
    // Nothing released: the second child finds the parent unmarked and waiting for it alone,
    // and completes it in the lane (no fence), while a thief finds nothing to steal.
    let seen = check_inline(false, true, ALL);
    assert_eq!(seen, BTreeSet::from([(0, OWNER)]), "{seen:?}");
}

#[test]
fn inline_rule_with_thief() {
    // A released sibling: the mark sends every finish through the shared path, whichever warp
    // runs it and whichever completes the join.
    let seen = check_inline(true, true, ALL);
    assert!(seen.contains(&(THIEF, THIEF)), "{seen:?}");
    assert!(seen.contains(&(THIEF, OWNER)), "{seen:?}");
    assert!(seen.contains(&(OWNER, OWNER)), "{seen:?}");
}

#[test]
#[should_panic(expected = "Causality violation")]
fn no_mark_check() {
    // Without the mark test, the owner sees `pending == 1` after the thief's decrement and
    // completes the join with no acquire: it reads the thief's result unordered.
    check_inline(true, false, ALL);
}

#[test]
#[should_panic(expected = "Causality violation")]
fn inline_shared_no_fence() {
    // The lane that tells a marked parent in its body must fence before its RMW even though
    // the RMW counts its own child alone: without it, the lane whose RMW is the last (on the
    // other warp) reads this child's result unordered.
    check_inline(
        true,
        true,
        Fences {
            before_rmw: false,
            ..ALL
        },
    );
}

#[test]
#[should_panic(expected = "Causality violation")]
fn inline_shared_relaxed_rmw() {
    // The lane whose RMW is the last resumes the parent at once, with no fence after it: a
    // relaxed RMW would leave the other warp's result unordered before that read.
    check_inline(
        true,
        true,
        Fences {
            acquire_rmw: false,
            ..ALL
        },
    );
}

#[test]
fn owner_only_join() {
    /// Model 1's state: `pending` is plain data, as on the device.
    struct Plain {
        pending: UnsafeCell<u32>,
        args: [UnsafeCell<u32>; 2],
        results: [UnsafeCell<u32>; 2],
        count: AtomicU32,
    }
    loom::model(|| {
        let join = Arc::new(Plain {
            pending: UnsafeCell::new(0),
            args: std::array::from_fn(|_| UnsafeCell::new(0)),
            results: std::array::from_fn(|_| UnsafeCell::new(0)),
            count: AtomicU32::new(0),
        });
        let thief = {
            let join = Arc::clone(&join);
            // Nothing was released: the thief finds `count == 0` and touches nothing else.
            thread::spawn(move || assert_eq!(join.count.load(Relaxed), 0))
        };
        for (i, arg) in join.args.iter().enumerate() {
            write(arg, i as u32 + 1);
        }
        write(&join.pending, 2);
        let mut resumed = 0;
        for i in 0..2 {
            write(&join.results[i], work(read(&join.args[i])));
            let left = read(&join.pending) - 1;
            if left != 0 {
                write(&join.pending, left);
            }
            if left == 0 {
                resumed += 1;
                let sum: u32 = join.results.iter().map(read).sum();
                assert_eq!(sum, expected_sum(2));
            }
        }
        assert_eq!(resumed, 1);
        thief.join().unwrap();
    });
}

#[test]
fn released_then_stolen() {
    let seen = check(ALL, owner_keep_one);
    // The released child runs on the thief or goes back to its owner.
    assert!(seen.iter().any(|&(ran, _)| ran == THIEF), "{seen:?}");
    assert!(seen.iter().any(|&(ran, _)| ran == OWNER), "{seen:?}");
}

#[test]
fn last_child_on_thief() {
    let seen = check(ALL, owner_keep_one);
    assert!(seen.contains(&(THIEF, THIEF)), "{seen:?}");
}

#[test]
fn last_child_on_owner_after_thief() {
    let seen = check(ALL, owner_keep_one);
    assert!(seen.contains(&(THIEF, OWNER)), "{seen:?}");
}

#[test]
fn plain_then_shared() {
    let seen = check(ALL, owner_plain_then_release);
    assert!(seen.contains(&(THIEF, THIEF)), "{seen:?}");
    assert!(seen.contains(&(THIEF, OWNER)), "{seen:?}");
    assert!(seen.contains(&(OWNER, OWNER)), "{seen:?}");
}

#[test]
#[should_panic(expected = "Causality violation")]
fn no_release_fence() {
    check(
        Fences {
            release: false,
            ..ALL
        },
        owner_keep_one,
    );
}

#[test]
#[should_panic(expected = "Causality violation")]
fn no_claim_fence() {
    check(
        Fences {
            claim: false,
            ..ALL
        },
        owner_keep_one,
    );
}

#[test]
#[should_panic(expected = "Causality violation")]
fn no_fence_before_rmw() {
    check(
        Fences {
            before_rmw: false,
            ..ALL
        },
        owner_keep_one,
    );
}

#[test]
#[should_panic(expected = "Causality violation")]
fn no_acquire_rmw() {
    check(
        Fences {
            acquire_rmw: false,
            ..ALL
        },
        owner_keep_one,
    );
}

#[test]
#[should_panic(expected = "Causality violation")]
fn no_release_fence_after_plain_phase() {
    check(
        Fences {
            release: false,
            ..ALL
        },
        owner_plain_then_release,
    );
}
