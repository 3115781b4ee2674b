//! Compile-fail tests of `#[gtap::function]`'s diagnostics (`tests/ui/<category>/<problem>.rs`
//! with the expected `.stderr` beside each), plus pass tests. The pass tests make trybuild run
//! `cargo build` instead of `cargo check`, which the post-monomorphization check of the
//! task-data struct's size (`tests/ui/limit/`) needs.
//!
//! Bless: `TRYBUILD=overwrite cargo test --test ui`.

#[test]
fn ui() {
    let t = trybuild::TestCases::new();
    t.compile_fail("tests/ui/**/*.rs");
    t.pass("tests/ui-pass/*.rs");
}
