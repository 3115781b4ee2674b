//! `mergesort [N] [CUTOFF] [BLOCK_MERGE_MIN] [--granularity thread|mixed]`: sorts N random
//! 32-bit keys, checked sorted and a permutation. With `--granularity mixed` the sorts are
//! thread-level tasks and every merge of at least BLOCK_MERGE_MIN keys is a block-level
//! merge-path task.

use std::process::ExitCode;

use gtap_examples::{
    apps::mergesort::{mergesort, mergesort_mixed, MergeSort, MergeSortMixed},
    host::{self, Granularity, Opts},
    reference,
};

const USAGE: &str = "mergesort [N=1000000] [CUTOFF=128] [BLOCK_MERGE_MIN=4096] [--granularity thread|mixed] [--block-threads N] [--scheduler wf|shared|gq] [--profile DIR] [--cpu|--gpu] [--workers N] [--reps N]";

fn main() -> ExitCode {
    let opts = Opts::from_env(USAGE);
    let n: usize = opts.arg(0, "N", 1_000_000, USAGE);
    opts.require_granularity(&[Granularity::Thread, Granularity::Mixed], USAGE);
    let mixed = opts.granularity == Granularity::Mixed;
    let cutoff: usize = opts.arg(1, "CUTOFF", 128, USAGE);
    let block_merge_min: usize = opts.arg(2, "BLOCK_MERGE_MIN", 4096, USAGE);
    if cutoff == 0 {
        eprintln!("error: CUTOFF must be at least 1");
        return ExitCode::from(2);
    }
    let mut rt = match opts.runtime() {
        Ok(rt) => rt,
        Err(e) => return host::fail("mergesort", &e),
    };
    let keys = reference::random_keys(n, 42);
    let host::Reps {
        last: sorted,
        mut times,
        ..
    } = match host::repeat(&mut rt, &opts, "mergesort", |rt| {
        let data = rt.upload(&keys)?;
        let tmp = rt.alloc_zeroed::<u32>(n)?;
        if mixed {
            let args = (data.slice(), tmp.slice(), cutoff, block_merge_min);
            rt.run::<MergeSortMixed, _>(mergesort_mixed, args)?;
        } else {
            rt.run::<MergeSort, _>(mergesort, (data.slice(), tmp.slice(), cutoff))?;
        }
        rt.download(&data)
    }) {
        Ok(reps) => reps,
        Err(code) => return code,
    };
    let mut seq = keys.clone();
    let ((), seq_ms) = host::timed(|| reference::mergesort_seq(&mut seq, cutoff));
    let ms = host::median(&mut times);
    let what = if mixed {
        format!("mixed, block merges from {block_merge_min} keys")
    } else {
        "thread-level".to_string()
    };
    println!("mergesort ({what}) of {n} keys on {} in {ms:.2} ms (median of {}, with transfers); sequential {seq_ms:.2} ms", rt.backend_name(), times.len());
    host::report(
        "mergesort",
        reference::is_sorted_permutation(&keys, &sorted),
        "sorted and a permutation of the input",
    )
}
