//! The CI set: the 200 programs of seeds 1..=200 (`build.rs`'s default), each on 1, 2 and all
//! workers with children as calls on and off, against the plain-Rust reference.

use gtap_random_programs::{check, programs::PROGRAMS, quiet_panics, COVERAGE};

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
    assert!(
        PROGRAMS.len() >= 200,
        "the CI set has {} programs",
        PROGRAMS.len()
    );
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
