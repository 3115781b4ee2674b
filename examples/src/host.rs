//! Command-line plumbing shared by the example programs: backend selection, the runtime with
//! this crate's PTX, timing, and exit codes.

use std::{process::ExitCode, time::Instant};

use gtap::{Config, Runtime};

/// PTX of `apps/` for `nvptx64-nvidia-cuda`, built by `build.rs`.
pub const PTX: &str = include_str!(env!("GTAP_PTX"));

/// Which CPU code computes the answer a run is checked against, and the baseline it prints
/// (`--reference`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Reference {
    /// Sequential Rust (the default).
    #[value(name = "seq")]
    Sequential,
    /// The same algorithm with `rayon` (identical results, computed on every core): for the
    /// large checks of `gpu-check.sh`, where the sequential reference would take most of a
    /// run's time on the GPU machine.
    Rayon,
}

impl Reference {
    /// How a run's output names the baseline.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Reference::Sequential => "sequential",
            Reference::Rayon => "rayon",
        }
    }
}

/// Which task granularity a program runs with (`--granularity`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum Granularity {
    /// Every task on one thread (the default).
    Thread,
    /// Every task on a thread block (`#[gtap::function(block)]`).
    Block,
    /// Thread-level tasks that hand large pieces of work to block-level ones.
    Mixed,
}

impl Granularity {
    /// The flag's spelling.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Thread => "thread",
            Self::Block => "block",
            Self::Mixed => "mixed",
        }
    }
}

pub use crate::cli::Opts;

impl Opts {
    /// Parses `std::env::args()` (`crate::cli`, clap) with `usage` as the usage line; prints
    /// the help or an error and exits on `--help` or bad input.
    #[must_use]
    pub fn from_env(usage: &str) -> Self {
        crate::cli::parse(usage)
    }

    /// Positional argument `i` parsed as `T`, or `default` when absent.
    #[must_use]
    pub fn arg<T: std::str::FromStr>(&self, i: usize, name: &str, default: T, usage: &str) -> T {
        match self.positional.get(i) {
            None => default,
            Some(s) => s.parse().unwrap_or_else(|_| {
                exit_usage(&format!("{name} must be a number, got `{s}`"), usage)
            }),
        }
    }

    /// Exits with a usage error unless `--granularity` is one of `allowed`.
    pub fn require_granularity(&self, allowed: &[Granularity], usage: &str) {
        if !allowed.contains(&self.granularity) {
            let names: Vec<_> = allowed.iter().map(|g| g.name()).collect();
            exit_usage(
                &format!(
                    "--granularity {} is not available here (this program has: {})",
                    self.granularity.name(),
                    names.join(", ")
                ),
                usage,
            );
        }
    }

    /// The runtime these options ask for.
    ///
    /// # Errors
    ///
    /// When the configuration is invalid or `--gpu` was given and no GPU can be used.
    pub fn runtime(&self) -> gtap::Result<Runtime> {
        self.runtime_with(Config::default())
    }

    /// The runtime these options ask for, starting from `config`.
    ///
    /// # Errors
    ///
    /// As for [`Opts::runtime`].
    pub fn runtime_with(&self, config: Config) -> gtap::Result<Runtime> {
        Runtime::with_ptx(self.config_with(config), PTX)
    }

    /// `config` with what these options set.
    #[must_use]
    pub fn config_with(&self, mut config: Config) -> Config {
        config.backend = self.backend();
        if let Some(w) = self.workers {
            config.workers = w;
        }
        if self.cpu_records {
            config.cpu_inline_children = false;
        }
        if let Some(g) = self.grid {
            config.grid = Some(g);
        }
        config.block = self.block.unwrap_or(config.block);
        config.tasks_per_warp = self.tasks_per_warp.unwrap_or(config.tasks_per_warp);
        config.release_below = self.release_below.unwrap_or(config.release_below);
        config.release_other_below = self
            .release_other_below
            .unwrap_or(config.release_other_below);
        config.release_shift = self.release_shift.unwrap_or(config.release_shift);
        config.release_all_below = self.release_all_below.unwrap_or(config.release_all_below);
        config.inline_steps = self.inline_steps.unwrap_or(config.inline_steps);
        config.inline_last_child |= self.inline_last_child;
        config.gpu_clones = (config.gpu_clones || self.clones) && !self.no_clones;
        config.gpu_clone_depth = self.clone_depth.or(config.gpu_clone_depth);
        config.gpu_hand_offs |= self.hand_offs;
        config.stack_bytes = self.stack_bytes.unwrap_or(config.stack_bytes);
        config.idle_max_ns = self.idle_max_ns.unwrap_or(config.idle_max_ns);
        config.steal_tries = self.steal_tries.unwrap_or(config.steal_tries);
        config.gpu_pool_bytes = self.pool_bytes.or(config.gpu_pool_bytes);
        config.max_registers = self.max_registers.or(config.max_registers);
        config.block_threads = self.block_threads.unwrap_or(config.block_threads);
        config.tasks_per_block = self.tasks_per_block.or(config.tasks_per_block);
        config.scheduler = self.scheduler();
        config.devices = self.devices.clone();
        if let Some(ms) = self.spread_after_ms {
            config.spread_after = std::time::Duration::from_millis(ms);
        }
        config.split_start &= !self.no_split_start;
        config.sms = self.sms.or(config.sms);
        if self.profile.is_some() {
            config.profile_records = self.profile_records.max(1);
        }
        config
    }
}

/// The block size a block-level task runs with on `rt`: `Config::block_threads` on the GPU,
/// 1 on the CPU executor (see `gtap::block`). Block-level references take it.
#[must_use]
pub fn block_size(rt: &Runtime) -> u32 {
    if rt.backend_name() == "gpu" {
        rt.config().block_threads
    } else {
        1
    }
}

fn exit_usage(msg: &str, usage: &str) -> ! {
    eprintln!("error: {msg}\nusage: {usage}");
    std::process::exit(2)
}

/// What [`repeat`] measured: the last run's result, every run's wall time (ms), and the kernel
/// times the runtime reported (empty on the CPU executor).
pub struct Reps<R> {
    /// The last run's result.
    pub last: R,
    /// Every run's wall time, in ms.
    pub times: Vec<f64>,
    /// Every run's kernel time, in ms (GPU runs).
    pub kernel: Vec<f64>,
}

/// Runs `run` on `rt` `--reps` times (at least once), timing each, then writes the last run's
/// profile when `--profile` asked for one. A failure is printed under `name`, and its exit code
/// comes back as the error for `main` to return.
///
/// # Errors
///
/// The exit code of a failed run or of a profile that could not be written.
pub fn repeat<R>(
    rt: &mut Runtime,
    opts: &Opts,
    name: &str,
    mut run: impl FnMut(&mut Runtime) -> gtap::Result<R>,
) -> Result<Reps<R>, ExitCode> {
    let reps = opts.reps.max(1);
    let (mut times, mut kernel, mut last) = (Vec::with_capacity(reps), Vec::new(), None);
    for _ in 0..reps {
        match timed(|| run(rt)) {
            (Ok(r), ms) => {
                last = Some(r);
                times.push(ms);
                kernel.extend(rt.last_stats().and_then(gtap::RunStats::kernel_ms));
            }
            (Err(e), _) => return Err(fail(name, &e)),
        }
    }
    if let Err(e) = write_profile(rt, opts) {
        eprintln!("{name}: {e}");
        return Err(ExitCode::FAILURE);
    }
    let Some(last) = last else {
        unreachable!("at least one run")
    };
    Ok(Reps {
        last,
        times,
        kernel,
    })
}

/// Runs `f` and returns its result and the elapsed milliseconds.
pub fn timed<R>(f: impl FnOnce() -> R) -> (R, f64) {
    let t = Instant::now();
    let r = f();
    (r, t.elapsed().as_secs_f64() * 1e3)
}

/// The median of `xs` (which must not be empty).
#[must_use]
pub fn median(xs: &mut [f64]) -> f64 {
    xs.sort_by(f64::total_cmp);
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        (xs[n / 2 - 1] + xs[n / 2]) / 2.0
    }
}

/// Prints the check's outcome and turns it into the process exit code.
#[must_use]
pub fn report(name: &str, ok: bool, detail: &str) -> ExitCode {
    if ok {
        println!("{name}: OK ({detail})");
        ExitCode::SUCCESS
    } else {
        eprintln!("{name}: WRONG RESULT ({detail})");
        ExitCode::FAILURE
    }
}

/// Prints an error from the runtime and returns a failing exit code.
#[must_use]
pub fn fail(name: &str, e: &gtap::Error) -> ExitCode {
    eprintln!("{name}: error: {e}");
    ExitCode::FAILURE
}

/// With `--profile DIR`: writes the last run's profile to DIR and prints its summary. Says so
/// when the run was on the CPU (the profiler records GPU warps only).
///
/// # Errors
///
/// When the profile cannot be written (the message names the path).
pub fn write_profile(rt: &Runtime, opts: &Opts) -> Result<(), String> {
    if let Some(st) = rt.last_stats().filter(|s| s.gpus > 1) {
        println!(
            "gpus: {} ran the last run; {} steals across GPUs ({:.0} a second) moved {} tasks ({:.1} a steal, {} bytes)",
            st.gpus,
            st.cross_steals,
            st.cross_steals_per_second(),
            st.cross_tasks,
            st.tasks_per_cross_steal(),
            st.cross_bytes
        );
        let shares: Vec<String> = st
            .gpu_steps
            .iter()
            .map(|&n| format!("{:.1}%", 100.0 * n as f64 / st.steps.max(1) as f64))
            .collect();
        println!("gpus: steps run by each GPU: {}", shares.join(" / "));
        let hungry: Vec<String> = st
            .gpu_hungry
            .iter()
            .map(|d| format!("{:.2}", d.as_secs_f64() * 1e3))
            .collect();
        println!(
            "gpus: ms each GPU was hungry: {}; {} requests for work",
            hungry.join(" / "),
            st.cross_requests
        );
    }
    let Some(dir) = &opts.profile else {
        return Ok(());
    };
    let Some(profile) = rt.last_stats().and_then(|s| s.profile.as_ref()) else {
        return Err(format!(
            "--profile: the last run on the {} backend has no profile (the profiler records GPU workers)",
            rt.backend_name()
        ));
    };
    let s = profile.summary();
    println!(
        "profile: {} {}s, {} batches, {:.1} tasks per batch; time in bodies {:.1}%, finishing {:.1}%, idle {:.1}%; {} steal rounds, {} batches stolen; {} spawns, {} joins",
        s.warps,
        profile.worker_name(),
        s.batches,
        s.tasks_per_batch,
        s.executing * 100.0,
        s.finishing * 100.0,
        s.idle * 100.0,
        s.steal_attempts,
        s.steals,
        s.spawns,
        s.joins
    );
    if s.dropped > 0 {
        println!(
            "profile: WARNING: {} records did not fit and were dropped; raise --profile-records (now {})",
            s.dropped, opts.profile_records
        );
    }
    let written = profile
        .write_dir(dir)
        .map_err(|e| format!("--profile: writing to {}: {e}", dir.display()))?;
    for path in written {
        println!("profile: wrote {}", path.display());
    }
    Ok(())
}
