//! The examples' command line, parsed by clap (derive) into [`Opts`]: the options every example
//! accepts, then the example's own positional arguments (`fib 40 --gpu --reps 5`, `uts 1e7
//! --cpu`), which the example reads through `Opts::arg` (`host.rs`, with the runtime the
//! options ask for).
//!
//! `--help` is generated from the field docs below, with the example's own usage line; a bad
//! option or value is clap's error (exit status 2) naming the option and, for a choice, its
//! possible values.

use std::path::PathBuf;

use clap::{CommandFactory, FromArgMatches, Parser, ValueEnum};
use gtap::{Backend, Devices, Scheduler};

use crate::host::{Granularity, Reference};

// The options every example accepts, then its positional arguments. No doc comment: clap
// would print it as every example's description; the field docs are `--help`'s lines.
#[derive(Parser, Debug)]
#[command(disable_version_flag = true)]
#[allow(
    missing_docs,
    reason = "the field docs are the help text; the struct needs none"
)]
pub struct Opts {
    /// Run on the CPU executor.
    #[arg(long, conflicts_with = "gpu")]
    pub cpu: bool,
    /// Run on the GPU (default: the GPU when one is present, else the CPU executor).
    #[arg(long)]
    pub gpu: bool,
    /// CPU executor threads (default: all cores).
    #[arg(long, value_name = "N")]
    pub workers: Option<usize>,
    /// CPU: make every child a record on a deque instead of a call on its parent's worker
    /// (`Config::cpu_inline_children = false`; to measure against).
    #[arg(long)]
    pub cpu_records: bool,
    /// Timed repetitions; the examples print the median.
    #[arg(long, value_name = "N", default_value_t = 1)]
    pub reps: usize,
    /// GPU: blocks of the persistent kernel (default: every block resident).
    #[arg(long, value_name = "N")]
    pub grid: Option<u32>,
    /// GPU: threads per block of thread-level workers.
    #[arg(long, value_name = "N")]
    pub block: Option<u32>,
    /// GPU: deque entries per warp.
    #[arg(long, value_name = "N")]
    pub tasks_per_warp: Option<u32>,
    /// GPU: deque entries per block of block-level workers.
    #[arg(long, value_name = "N")]
    pub tasks_per_block: Option<u32>,
    /// GPU: the kernel's register cap.
    #[arg(long, value_name = "N")]
    pub max_registers: Option<u32>,
    /// Task granularity, where the program has it.
    #[arg(long, value_enum, default_value_t = Granularity::Thread)]
    pub granularity: Granularity,
    /// GPU: threads per block of block-level workers (a multiple of 32; default 128).
    #[arg(long, value_name = "N")]
    pub block_threads: Option<u32>,
    /// GPU scheduler: work first, or the shared-deque or global-queue ablation.
    #[arg(long, value_enum, default_value_t = SchedulerArg::Wf)]
    pub scheduler: SchedulerArg,
    /// GPUs of a run: one, all, ordinals (0,1), or partitions:N (GPU 0 split into N kernels
    /// that steal from each other).
    #[arg(long, value_name = "one|all|LIST|partitions:N", value_parser = parse_devices, default_value = "one")]
    pub devices: Devices,
    /// GPU, several GPUs: milliseconds a run stays on the first GPU before the others ask
    /// it for work (default 0: from the start).
    #[arg(long, value_name = "MS")]
    pub spread_after_ms: Option<u64>,
    /// GPU, several GPUs: do not hand the root's first children to the other GPUs at the
    /// start (`Config::split_start` off).
    #[arg(long)]
    pub no_split_start: bool,
    /// GPU: the SMs' worth of resident blocks a run uses.
    #[arg(long, value_name = "N")]
    pub sms: Option<u32>,
    /// GPU, work first: the release policy's bound.
    #[arg(long, value_name = "N")]
    pub release_below: Option<u32>,
    /// GPU, work first: the bound for the queues a warp does not run next.
    #[arg(long, value_name = "N")]
    pub release_other_below: Option<u32>,
    /// GPU, work first: the release policy's shift.
    #[arg(long, value_name = "N")]
    pub release_shift: Option<u32>,
    /// GPU, work first: release everything below this many entries.
    #[arg(long, value_name = "N")]
    pub release_all_below: Option<u32>,
    /// GPU, work first: steps a lane runs inline per batch (0..=56, default 32; 0: off).
    #[arg(long, value_name = "N")]
    pub inline_steps: Option<u32>,
    /// GPU, work first: run every step's last child inline, not only a lone child.
    #[arg(long)]
    pub inline_last_child: bool,
    /// GPU: let lanes run children as calls of their sequential clones (`Config::gpu_clones`;
    /// off by default).
    #[arg(long, conflicts_with = "no_clones")]
    pub clones: bool,
    /// GPU: make every child a task (`Config::gpu_clones = false`, the default).
    #[arg(long)]
    pub no_clones: bool,
    /// GPU, with clones: the depth in the tree from which children are calls
    /// (`Config::gpu_clone_depth`; default from the grid's lanes, 0: from the root).
    #[arg(long, value_name = "N")]
    pub clone_depth: Option<u32>,
    /// GPU, with clones: lanes in clones answer idle warps' requests by handing pieces off
    /// (`Config::gpu_hand_offs`, off by default).
    #[arg(long)]
    pub hand_offs: bool,
    /// GPU: the per-thread stack in bytes (`Config::stack_bytes`); clones use what the
    /// kernel's frame and a reserve leave of it.
    #[arg(long, value_name = "BYTES")]
    pub stack_bytes: Option<u32>,
    /// GPU: idle workers' longest sleep (256..=1000000 ns, default 2048).
    #[arg(long, value_name = "N")]
    pub idle_max_ns: Option<u32>,
    /// GPU: victims per steal round (1..=64, default 4).
    #[arg(long, value_name = "N")]
    pub steal_tries: Option<u32>,
    /// GPU: task memory in bytes (`Config::gpu_pool_bytes`).
    #[arg(long, value_name = "N")]
    pub pool_bytes: Option<usize>,
    /// Profile the GPU runs and write the last one's batches.csv, summary.json, trace.json
    /// (Perfetto) and pictures to DIR.
    #[arg(long, value_name = "DIR")]
    pub profile: Option<PathBuf>,
    /// Profile records per worker (a warp, or a block for block-level programs).
    #[arg(long, value_name = "N", default_value_t = 4096)]
    pub profile_records: u32,
    /// The CPU code the answer is checked against, where the program has both.
    #[arg(long, value_enum, default_value_t = Reference::Sequential)]
    pub reference: Reference,
    /// The example's own arguments (see the usage line).
    #[arg(value_name = "ARGS")]
    pub positional: Vec<String>,
}

/// `--scheduler`'s values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
pub enum SchedulerArg {
    /// Work first (the default).
    Wf,
    /// The shared-deque ablation.
    Shared,
    /// One global queue (an ablation).
    Gq,
}

impl Opts {
    /// The backend `--cpu` / `--gpu` ask for (`Auto` without either).
    #[must_use]
    pub fn backend(&self) -> Backend {
        if self.cpu {
            Backend::Cpu
        } else if self.gpu {
            Backend::Gpu
        } else {
            Backend::Auto
        }
    }

    /// The scheduler `--scheduler` asks for.
    #[must_use]
    pub fn scheduler(&self) -> Scheduler {
        match self.scheduler {
            SchedulerArg::Wf => Scheduler::WorkFirst,
            SchedulerArg::Shared => Scheduler::SharedDeque,
            SchedulerArg::Gq => Scheduler::GlobalQueue,
        }
    }
}

/// Parses the process's arguments with `usage` as the usage line; prints help or an error and
/// exits (status 0 or 2) the way clap does.
pub(crate) fn parse(usage: &str) -> Opts {
    let command = Opts::command().override_usage(usage.to_owned());
    Opts::from_arg_matches(&command.get_matches()).unwrap_or_else(|e| e.exit())
}

/// `--devices`' value: `one`, `all`, `partitions:N`, or comma-separated ordinals.
fn parse_devices(v: &str) -> Result<Devices, String> {
    let bad =
        || format!("expected one, all, a list of device ordinals (0,1) or partitions:N, got `{v}`");
    match v {
        "one" => Ok(Devices::One),
        "all" => Ok(Devices::All),
        _ => {
            if let Some(n) = v.strip_prefix("partitions:") {
                return n.parse().map(Devices::Partitions).map_err(|_| bad());
            }
            v.split(',')
                .map(|d| d.trim().parse().ok())
                .collect::<Option<Vec<u32>>>()
                .map(Devices::List)
                .ok_or_else(bad)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gtap::Config;

    fn cli(args: &[&str]) -> Result<Opts, clap::Error> {
        Opts::try_parse_from(std::iter::once("fib").chain(args.iter().copied()))
    }

    #[test]
    fn the_command_is_well_formed() {
        Opts::command().debug_assert();
    }

    #[test]
    fn options_and_positionals_interleave() {
        let c = cli(&["32", "--cpu", "6", "--reps", "3", "epaq"]).unwrap();
        assert!(c.cpu && !c.gpu);
        assert_eq!(c.reps, 3);
        assert_eq!(c.positional, ["32", "6", "epaq"]);
    }

    #[test]
    fn clone_flags_reach_the_options() {
        let c = cli(&[
            "--gpu",
            "--clones",
            "--clone-depth",
            "21",
            "--stack-bytes",
            "8192",
        ])
        .unwrap();
        assert!(c.clones);
        assert_eq!(c.clone_depth, Some(21));
        assert_eq!(c.stack_bytes, Some(8192));
        let config = c.config_with(gtap::Config::default());
        assert!(config.gpu_clones);
        assert_eq!(config.gpu_clone_depth, Some(21));
        assert_eq!(config.stack_bytes, 8192);
        let off = cli(&["--gpu", "--no-clones"]).unwrap();
        assert!(!off.config_with(gtap::Config::default()).gpu_clones);
        assert!(cli(&["--clones", "--no-clones"]).is_err());
    }

    #[test]
    fn cpu_records_turns_calls_off() {
        let c = cli(&["--cpu", "--cpu-records"]).unwrap();
        assert!(c.cpu_records);
        assert!(!c.config_with(Config::default()).cpu_inline_children);
        let default = cli(&["--cpu"]).unwrap().config_with(Config::default());
        assert!(default.cpu_inline_children);
    }

    #[test]
    fn devices_take_every_form() {
        for (arg, want) in [
            ("one", Devices::One),
            ("all", Devices::All),
            ("0,1", Devices::List(vec![0, 1])),
            ("partitions:4", Devices::Partitions(4)),
        ] {
            assert_eq!(cli(&["--devices", arg]).unwrap().devices, want, "{arg}");
        }
        let e = cli(&["--devices", "two"]).unwrap_err().to_string();
        assert!(e.contains("got `two`") && e.contains("partitions:N"), "{e}");
    }

    #[test]
    fn choices_are_named_and_checked() {
        let c = cli(&[
            "--scheduler",
            "gq",
            "--granularity",
            "mixed",
            "--reference",
            "rayon",
        ])
        .unwrap();
        assert_eq!(c.scheduler, SchedulerArg::Gq);
        assert_eq!(c.granularity, Granularity::Mixed);
        assert_eq!(c.reference, Reference::Rayon);
        let e = cli(&["--scheduler", "fifo"]).unwrap_err().to_string();
        assert!(e.contains("fifo") && e.contains("wf, shared, gq"), "{e}");
    }

    #[test]
    fn bad_numbers_and_unknown_options_are_errors() {
        assert!(cli(&["--reps", "x"]).is_err());
        assert!(cli(&["--workers"]).is_err());
        assert!(cli(&["--frobnicate"]).is_err());
        assert!(
            cli(&["--cpu", "--gpu"]).is_err(),
            "--cpu and --gpu conflict"
        );
    }
}
