//! The CI set: the 200 programs of seeds 1..=200 (`build.rs`'s default; `GTAP_RANDOM_COUNT`
//! and `GTAP_RANDOM_SEED` pick others, `scripts/random-programs.sh`), each on 1, 2 and all
//! workers with children as calls on and off, against the plain-Rust reference. A mismatch
//! prints the seed, the configuration, the expected and the actual outcome, and the program.

use gtap_random_programs::programs::{EXPECTED, PROGRAMS};
use gtap_random_programs::{check, quiet_panics, COVERAGE};

#[test]
fn generated_programs_match_plain_rust() {
    quiet_panics();
    let mut bad = Vec::new();
    for e in PROGRAMS {
        for m in check(e) {
            bad.push(format!(
                "seed {}: {} workers, calls {}: expected {:?}, got {:?}\n{}",
                m.seed, m.workers, m.inline, m.expected, m.got, e.text
            ));
        }
    }
    // The default hook again, so that the failure below prints its message.
    drop(std::panic::take_hook());
    assert_eq!(PROGRAMS.len(), EXPECTED, "programs generated");
    assert!(
        bad.is_empty(),
        "{} mismatches:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn the_set_covers_every_construct() {
    assert!(COVERAGE.contains("gaps: none"), "{COVERAGE}");
}
