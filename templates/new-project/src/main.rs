//! hello-gtap: squares a vector of `N` numbers with the task tree of [`square_sum`], on the GPU
//! when one is there (the CPU executor otherwise), and checks every output element and the sum.
//!
//! `hello-gtap [N] [--cpu | --gpu] [--profile DIR]` (default N = 1000000). `--profile DIR`
//! records every GPU worker's batches and writes them to DIR (`trace.json` opens in
//! <https://ui.perfetto.dev>).

use std::path::PathBuf;
use std::process::ExitCode;

use gtap::{Backend, Config, Error, Runtime};
use hello_gtap::{square_sum, SquareSum};

/// The PTX of `src/lib.rs`, built by `build.rs`: the binary carries its GPU code with it.
const PTX: &str = include_str!(env!("GTAP_PTX"));

const USAGE: &str = "usage: hello-gtap [N] [--cpu | --gpu] [--profile DIR]";

/// The command line.
struct Args {
    n: usize,
    backend: Backend,
    profile: Option<PathBuf>,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        n: 1_000_000,
        backend: Backend::Auto,
        profile: None,
    };
    let mut it = std::env::args().skip(1);
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--cpu" => args.backend = Backend::Cpu,
            "--gpu" => args.backend = Backend::Gpu,
            "--profile" => {
                let dir = it.next().ok_or("--profile needs a directory")?;
                args.profile = Some(dir.into());
            }
            "-h" | "--help" => return Err(USAGE.to_owned()),
            n => {
                args.n = n
                    .parse()
                    .map_err(|_| format!("N must be a number, not {n:?}\n{USAGE}"))?;
            }
        }
    }
    if args.n == 0 {
        return Err("N must be at least 1".to_owned());
    }
    Ok(args)
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => {
            println!("hello-gtap: OK");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("hello-gtap: {message}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), String> {
    let args = parse_args()?;
    let n = args.n;
    let config = Config {
        backend: args.backend,
        // Batch records per GPU worker: 0 (the default) runs the kernel without the profiler.
        profile_records: if args.profile.is_some() { 4096 } else { 0 },
        ..Config::default()
    };
    let mut rt = Runtime::with_ptx(config, PTX).map_err(explain)?;

    // Data in: copy the input into the runtime's memory (device memory on the GPU), and make
    // a zeroed output buffer. Tasks get `Slice` handles to them; the buffers must outlive the
    // run.
    let input: Vec<u32> = (0..n).map(|i| (i % 1000) as u32).collect();
    let input_buf = rt.upload(&input).map_err(explain)?;
    let output_buf = rt.alloc_zeroed::<u64>(n).map_err(explain)?;

    // The root task; `run` returns when its whole task tree is done.
    let sum = rt
        .run::<SquareSum, _>(square_sum, (input_buf.slice(), output_buf.slice(), 0, n))
        .map_err(explain)?;

    // Data out: copy the output back to the host.
    let output = rt.download(&output_buf).map_err(explain)?;

    let stats = rt.last_stats().expect("a run happened");
    println!(
        "sum of {n} squares = {sum} on the {} ({} tasks, {:.2} ms)",
        rt.backend_name(),
        stats.tasks,
        stats.elapsed.as_secs_f64() * 1e3
    );
    let square = |x: u32| u64::from(x) * u64::from(x);
    if let Some(i) = (0..n).find(|&i| output[i] != square(input[i])) {
        return Err(format!(
            "output[{i}] = {}, expected {}",
            output[i],
            square(input[i])
        ));
    }
    let expected = input.iter().fold(0u64, |s, &x| s.wrapping_add(square(x)));
    if sum != expected {
        return Err(format!("sum = {sum}, expected {expected}"));
    }

    if let Some(dir) = &args.profile {
        match &stats.profile {
            Some(profile) => {
                let written = profile
                    .write_dir(dir)
                    .map_err(|e| format!("writing the profile to {}: {e}", dir.display()))?;
                for path in written {
                    println!("profile: wrote {}", path.display());
                }
            }
            None => println!("profile: the CPU executor records no profile (GPU runs only)"),
        }
    }
    Ok(())
}

/// The error's message and what to change about it.
fn explain(e: Error) -> String {
    let fix = match &e {
        Error::NoGpu { .. } => "run with --cpu, or on a machine with an NVIDIA GPU and driver",
        Error::PoolExhausted { .. } | Error::QueueOverflow { .. } => {
            "raise the Config field the message names, or make the leaves larger (LEAF)"
        }
        Error::FrameTooLarge { .. } => {
            "raise Config::task_data_limit, or keep fewer locals alive across taskwait!()"
        }
        Error::TaskPanicked { .. } => "fix the task (an index out of bounds, an overflow, ...)",
        Error::DeviceFault { .. } => {
            "a task trapped on the GPU (a Slice index out of bounds traps): run with --cpu to see \
             the panic, or under compute-sanitizer"
        }
        Error::Hang { .. } => {
            "no task finished for Config::watchdog: a task loops forever, or raise the watchdog"
        }
        Error::ContextLost => "the GPU context is gone after an earlier fault: restart the process",
        _ => "see the gtap::Error docs",
    };
    format!("{e}\n  what to do: {fix}")
}
