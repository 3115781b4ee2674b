//! `cilksort [N] [SORT_CUTOFF] [MERGE_CUTOFF]`: sorts N random 32-bit keys with a parallel merge,
//! checked sorted and a permutation.

use std::process::ExitCode;

use gtap_examples::{
    apps::cilksort::{cilksort, CilkSort},
    host::{self, Opts, Reference},
    reference,
};

const USAGE: &str = "cilksort [N=1000000] [SORT_CUTOFF=64] [MERGE_CUTOFF=256] [--scheduler wf|shared|gq] [--reference seq|rayon] [--profile DIR] [--cpu|--gpu] [--workers N] [--reps N]";

fn main() -> ExitCode {
    let opts = Opts::from_env(USAGE);
    let n: usize = opts.arg(0, "N", 1_000_000, USAGE);
    let sort_cutoff: usize = opts.arg(1, "SORT_CUTOFF", 64, USAGE);
    let merge_cutoff: usize = opts.arg(2, "MERGE_CUTOFF", 256, USAGE);
    if sort_cutoff == 0 || merge_cutoff == 0 {
        eprintln!("error: cutoffs must be at least 1");
        return ExitCode::from(2);
    }
    let mut rt = match opts.runtime() {
        Ok(rt) => rt,
        Err(e) => return host::fail("cilksort", &e),
    };
    let keys = reference::random_keys(n, 7);
    let host::Reps {
        last: sorted,
        mut times,
        ..
    } = match host::repeat(&mut rt, &opts, "cilksort", |rt| {
        let data = rt.upload(&keys)?;
        let tmp = rt.alloc_zeroed::<u32>(n)?;
        rt.run::<CilkSort, _>(
            cilksort,
            (data.slice(), tmp.slice(), sort_cutoff, merge_cutoff, false),
        )?;
        rt.download(&data)
    }) {
        Ok(reps) => reps,
        Err(code) => return code,
    };
    let mut seq = keys.clone();
    // The baseline only: the check below needs no reference sort.
    let ((), seq_ms) = host::timed(|| match opts.reference {
        Reference::Sequential => reference::cilksort_seq(&mut seq, sort_cutoff, merge_cutoff),
        Reference::Rayon => reference::cilksort_rayon(&mut seq, sort_cutoff, merge_cutoff),
    });
    let ms = host::median(&mut times);
    println!("cilksort of {n} keys on {} in {ms:.2} ms (median of {}, with transfers); {} {seq_ms:.2} ms", rt.backend_name(), times.len(), opts.reference.name());
    host::report(
        "cilksort",
        reference::is_sorted_permutation(&keys, &sorted),
        "sorted and a permutation of the input",
    )
}
