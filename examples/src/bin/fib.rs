//! `fib [N]`: fib(N) with a task at every call, checked against sequential code.

use std::process::ExitCode;

use gtap_examples::{
    apps::fib::{fib, Fib},
    host::{self, Opts},
    reference,
};

const USAGE: &str =
    "fib [N=30] [--cpu|--gpu] [--workers N] [--reps N] [--scheduler wf|shared|gq] [--profile DIR]";

fn main() -> ExitCode {
    let opts = Opts::from_env(USAGE);
    let n: u32 = opts.arg(0, "N", 30, USAGE);
    if n > 60 {
        eprintln!("error: N must be at most 60 (fib(N) overflows far sooner than the run ends)");
        return ExitCode::from(2);
    }
    let mut rt = match opts.runtime() {
        Ok(rt) => rt,
        Err(e) => return host::fail("fib", &e),
    };
    let mut times = Vec::new();
    let mut result = 0;
    for _ in 0..opts.reps.max(1) {
        match host::timed(|| rt.run::<Fib, _>(fib, (n,))) {
            (Ok(r), ms) => {
                result = r;
                times.push(ms);
            }
            (Err(e), _) => return host::fail("fib", &e),
        }
    }
    if let Err(e) = host::write_profile(&rt, &opts) {
        eprintln!("fib: {e}");
        return ExitCode::FAILURE;
    }
    let (expected, seq_ms) = host::timed(|| reference::fib_seq(n));
    let ms = host::median(&mut times);
    println!(
        "fib({n}) = {result} on {} in {ms:.2} ms (median of {}); sequential {seq_ms:.2} ms",
        rt.backend_name(),
        times.len()
    );
    host::report("fib", result == expected, &format!("expected {expected}"))
}
