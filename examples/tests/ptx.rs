//! What the examples' PTX (built by `gtap-build`, embedded as `host::PTX`) says about how the
//! scheduler reaches its shared-memory words: through the `.shared` state space
//! (`arch::nvptx::SharedWord`), never through generic pointers. A generic block-scope access
//! compiles to `LD.E`/`ST.E` (two registers per address, the long scoreboard); the block-level
//! tree's kernel was 16% slower that way (`docs/benchmarks.md`, fourteenth session).

use gtap_examples::host::PTX;

/// Every kernel entry's name and body.
fn entries() -> Vec<(&'static str, &'static str)> {
    let mut out = Vec::new();
    let mut rest = PTX;
    while let Some(i) = rest.find(".entry ") {
        let after = &rest[i + ".entry ".len()..];
        let name_end = after.find('(').expect("an entry's parameter list");
        let body_end = after.find("\n}\n").map_or(after.len(), |e| e + 3);
        out.push((&after[..name_end], &after[..body_end]));
        rest = &after[body_end..];
    }
    out
}

#[test]
fn scheduler_words_are_accessed_in_the_shared_state_space() {
    let entries = entries();
    assert!(
        entries.len() > 100,
        "expected the examples' work-first, ablation and profiled kernels, found {} entries",
        entries.len()
    );
    for (name, body) in &entries {
        // Generic block-scope loads, stores and max: a shared word reached through a generic
        // pointer. (A generic `atom.relaxed.cta.add` is allowed: a join's `pending` in device
        // memory while only one block updates it.)
        for generic in [
            "ld.relaxed.cta.u32",
            "st.relaxed.cta.u32",
            "atom.relaxed.cta.max.u32",
        ] {
            assert!(
                !body.contains(generic),
                "{name} uses `{generic}` on a generic address; scheduler words in shared memory \
                 go through `arch::nvptx::SharedWord` (`ld_shared_u32` and friends)"
            );
        }
        if name.starts_with("gtap_thread_worker_") || name.starts_with("gtap_block_worker_") {
            // A worker that runs (not a program's unused block entry, which returns at once)
            // reads its words as `.shared`.
            let runs = body.lines().count() > 200;
            assert!(
                !runs || body.contains("ld.relaxed.cta.shared.u32"),
                "{name} never reads a shared word with `ld.relaxed.cta.shared.u32`"
            );
        }
    }
}
