//! A loom model of leaving a run and taking it up again (`gtap-device/src/gpu/park.rs`): a
//! warp parks with two private tasks while a thief steals, and a later warp of the same index
//! takes the saved state up and pops what is left.
//!
//! - The parking warp publishes its private entries with the ordinary release (the tasks'
//!   records written, `fence.acq_rel.gpu`, the relaxed add to `count`), then writes its park
//!   record (the restored tail) and sets the flag with a release store.
//! - The thief claims the oldest public entry with a CAS on `count`, fences, and reads that
//!   task's record.
//! - The rejoining warp acquires the flag, reads the record, and claims from its own public
//!   part (CAS on `count`, fence), newest first.
//!
//! Checked: every task runs exactly once, with its record visible, whoever runs it; the
//! rejoining warp sees the tail the parking one saved. `no_flag_release` stores the flag
//! relaxed with no fence before it: loom must report the record's read as a race.

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

/// Entries of the warp's ring (both private when it parks).
const TASKS: usize = 2;

struct Warp {
    /// The tasks' records (their arguments), written before they are published.
    records: [UnsafeCell<u32>; TASKS],
    /// Public entries not yet claimed (`DequeHeader::count`).
    count: AtomicU32,
    /// The steal end (`DequeHeader::head`; one thief, so its lock is left out).
    head: AtomicU32,
    /// The park record (the saved tail) and its flag.
    saved_tail: UnsafeCell<u32>,
    flag: AtomicU32,
    /// How many times each task ran.
    ran: [AtomicU32; TASKS],
    flag_release: bool,
}

impl Warp {
    /// A claimed task runs: its record must be the one its spawner wrote.
    fn run(&self, i: usize) {
        let arg = read(&self.records[i]);
        assert_eq!(
            arg,
            100 + i as u32,
            "a task's record not visible to its runner"
        );
        self.ran[i].fetch_add(1, Relaxed);
    }

    /// The thief: claims the oldest public entry (CAS on `count`, fence), runs it.
    fn steal(&self) {
        let c = self.count.load(Relaxed);
        if c == 0
            || self
                .count
                .compare_exchange(c, c - 1, Relaxed, Relaxed)
                .is_err()
        {
            return;
        }
        fence(AcqRel);
        let h = self.head.fetch_add(1, Relaxed);
        self.run(h as usize);
    }
}

fn check(flag_release: bool) {
    loom::model(move || {
        let w = Arc::new(Warp {
            records: [UnsafeCell::new(0), UnsafeCell::new(0)],
            count: AtomicU32::new(0),
            head: AtomicU32::new(0),
            saved_tail: UnsafeCell::new(0),
            flag: AtomicU32::new(0),
            ran: [AtomicU32::new(0), AtomicU32::new(0)],
            flag_release,
        });
        // The parking warp: its batch wrote the two private tasks; the park releases them
        // (fence, add), saves its tail, and sets the flag.
        let parker = {
            let w = Arc::clone(&w);
            thread::spawn(move || {
                for i in 0..TASKS {
                    write(&w.records[i], 100 + i as u32);
                }
                fence(AcqRel);
                w.count.fetch_add(TASKS as u32, Relaxed);
                write(&w.saved_tail, TASKS as u32);
                if w.flag_release {
                    // Every lane's fence, then lane 0's release store of the flag.
                    fence(AcqRel);
                    w.flag.store(1, Release);
                } else {
                    w.flag.store(1, Relaxed);
                }
            })
        };
        let thief = {
            let w = Arc::clone(&w);
            thread::spawn(move || w.steal())
        };
        // The rejoining warp (a later launch, or a block launched beside the run).
        while w.flag.load(Acquire) != 1 {
            thread::yield_now();
        }
        fence(AcqRel);
        let mut tail = read(&w.saved_tail);
        assert_eq!(tail, TASKS as u32, "the saved tail");
        // `pop_own`: claim the newest public entries, one CAS at a time.
        loop {
            let c = w.count.load(Relaxed);
            if c == 0 {
                break;
            }
            if w.count.compare_exchange(c, c - 1, Relaxed, Relaxed).is_ok() {
                fence(AcqRel);
                tail -= 1;
                w.run(tail as usize);
            }
        }
        parker.join().unwrap();
        thief.join().unwrap();
        for (i, r) in w.ran.iter().enumerate() {
            assert_eq!(r.load(Relaxed), 1, "task {i} ran once");
        }
    });
}

#[test]
fn parked_stolen_rejoined() {
    check(true);
}

#[test]
#[should_panic(expected = "Causality violation")]
fn no_flag_release() {
    check(false);
}
