//! `fib [N] [CUTOFF [epaq]]`: fib(N) with a task at every call, checked against sequential
//! code; with CUTOFF, tasks only above it (`fib_cutoff`), and with `epaq` on three EPAQ queues
//! (leaves, inner tasks and continuations apart, GTaP's EPAQ experiment).

use std::process::ExitCode;

use gtap::Config;
use gtap_examples::{
    apps::fib::{fib, fib_cutoff, Fib, FibCutoff},
    host::{self, Opts},
    reference,
};

const USAGE: &str = "fib [N=30] [CUTOFF [epaq]] [--cpu|--gpu] [--workers N] [--reps N] [--scheduler wf|shared|gq] [--profile DIR]";

fn main() -> ExitCode {
    let opts = Opts::from_env(USAGE);
    let n: u32 = opts.arg(0, "N", 30, USAGE);
    if n > 60 {
        eprintln!("error: N must be at most 60 (fib(N) overflows far sooner than the run ends)");
        return ExitCode::from(2);
    }
    // CUTOFF: tasks above it only; `epaq`: three queues (see `apps::fib::fib_cutoff`).
    let cutoff: Option<u32> = opts
        .positional
        .get(1)
        .map(|_| opts.arg(1, "CUTOFF", 0, USAGE));
    let epaq = match opts.positional.get(2).map(String::as_str) {
        None => false,
        Some("epaq") => true,
        Some(other) => {
            eprintln!("error: the third argument must be `epaq`, got `{other}`\nusage: {USAGE}");
            return ExitCode::from(2);
        }
    };
    let config = Config {
        queues: if epaq { 3 } else { 1 },
        ..Config::default()
    };
    let mut rt = match opts.runtime_with(config) {
        Ok(rt) => rt,
        Err(e) => return host::fail("fib", &e),
    };
    let host::Reps {
        last: result,
        mut times,
        ..
    } = match host::repeat(&mut rt, &opts, "fib", |rt| match cutoff {
        Some(c) => rt.run::<FibCutoff, _>(fib_cutoff, (n, c, epaq)),
        None => rt.run::<Fib, _>(fib, (n,)),
    }) {
        Ok(reps) => reps,
        Err(code) => return code,
    };
    let (expected, seq_ms) = host::timed(|| reference::fib_seq(n));
    let ms = host::median(&mut times);
    let variant = match cutoff {
        Some(c) if epaq => format!(", cutoff {c}, EPAQ (3 queues)"),
        Some(c) => format!(", cutoff {c}"),
        None => String::new(),
    };
    println!(
        "fib({n}{variant}) = {result} on {} in {ms:.2} ms (median of {}); sequential {seq_ms:.2} ms",
        rt.backend_name(),
        times.len()
    );
    host::report("fib", result == expected, &format!("expected {expected}"))
}
