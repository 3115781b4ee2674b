//! `nqueens [N] [CUTOFF]`: counts N-Queens solutions with detached tasks down to CUTOFF rows and
//! an atomic counter, checked against sequential code.

use std::process::ExitCode;

use gtap_examples::{
    apps::nqueens::{nqueens, NQueens},
    host::{self, Opts, Reference},
    reference,
};

const USAGE: &str = "nqueens [N=12] [CUTOFF=7] [--scheduler wf|shared|gq] [--reference seq|rayon] [--profile DIR] [--cpu|--gpu] [--workers N] [--reps N]";

fn main() -> ExitCode {
    let opts = Opts::from_env(USAGE);
    let n: u32 = opts.arg(0, "N", 12, USAGE);
    let cutoff: u32 = opts.arg(1, "CUTOFF", 7, USAGE);
    if !(1..=20).contains(&n) {
        eprintln!("error: N must be in 1..=20, got {n}");
        return ExitCode::from(2);
    }
    let mut rt = match opts.runtime() {
        Ok(rt) => rt,
        Err(e) => return host::fail("nqueens", &e),
    };
    let host::Reps {
        last: result,
        mut times,
        ..
    } = match host::repeat(&mut rt, &opts, "nqueens", |rt| {
        let count = rt.upload(&[0u64])?;
        rt.run::<NQueens, _>(nqueens, (n, 0, 0, 0, 0, cutoff, 0, count.slice()))?;
        Ok(rt.download(&count)?[0])
    }) {
        Ok(reps) => reps,
        Err(code) => return code,
    };
    let (expected, seq_ms) = host::timed(|| match opts.reference {
        Reference::Sequential => reference::nqueens_seq(n),
        Reference::Rayon => reference::nqueens_rayon(n, cutoff),
    });
    let ms = host::median(&mut times);
    println!("nqueens({n}, cutoff {cutoff}) = {result} on {} in {ms:.2} ms (median of {}); {} {seq_ms:.2} ms", rt.backend_name(), times.len(), opts.reference.name());
    host::report(
        "nqueens",
        result == expected,
        &format!("expected {expected}"),
    )
}
