//! `uts [TREE] [WORK]` or `uts B0 M Q SEED [WORK]`: a UTS binomial tree with a task per node,
//! the node count checked exactly. TREE is one of the named trees of `reference_deep`
//! (`1e5`, `1e7`, `1e9`: checked against their recorded counts, beside a rayon run); a tree
//! given by its parameters is counted by the sequential reference first. WORK adds that many
//! splitmix64 rounds per node. Runs with `Config::default()` plus the command-line options.

use std::process::ExitCode;

use gtap_examples::{
    apps::uts::{uts, Uts, UtsParams},
    host::{self, Opts},
    reference_deep::{self, UtsTree, UTS_MEDIUM, UTS_TREES},
};

const USAGE: &str = "uts [TREE=1e7 (1e5|1e7|1e9)] [WORK=0] | uts B0 M Q SEED [WORK=0]; [--cpu|--gpu] [--workers N] [--reps N] [--grid N] [--block N] [--tasks-per-warp N] [--pool-bytes N] [--max-registers N] [--scheduler wf|shared|gq] [--profile DIR]";

/// The tree the positional arguments name, whether its shape is recorded (a named tree) or is
/// still to be counted, and WORK.
fn tree(opts: &Opts) -> (UtsTree, bool, u32) {
    let named = opts.positional.first().map_or(Some(UTS_MEDIUM), |name| {
        UTS_TREES.iter().copied().find(|t| t.name == name)
    });
    if let Some(t) = named {
        return (t, true, opts.arg(1, "WORK", 0, USAGE));
    }
    if opts.positional.len() < 4 {
        eprintln!(
            "error: the first argument is a tree name (1e5, 1e7, 1e9) or B0 M Q SEED\nusage: {USAGE}"
        );
        std::process::exit(2);
    }
    let t = UtsTree {
        name: "custom",
        b0: opts.arg(0, "B0", 0, USAGE),
        m: opts.arg(1, "M", 0, USAGE),
        q: opts.arg(2, "Q", 0.0, USAGE),
        seed: opts.arg(3, "SEED", 0, USAGE),
        nodes: 0,
        max_depth: 0,
    };
    let qm = t.q * f64::from(t.m);
    if t.b0 == 0 || t.m == 0 || !(0.0..1.0).contains(&qm) {
        eprintln!("error: need B0 >= 1, M >= 1 and 0 <= Q * M < 1 (else the tree is infinite), got B0 {}, M {}, Q {}", t.b0, t.m, t.q);
        std::process::exit(2);
    }
    (t, false, opts.arg(4, "WORK", 0, USAGE))
}

fn main() -> ExitCode {
    let opts = Opts::from_env(USAGE);
    let (mut t, recorded, work) = tree(&opts);
    let p: UtsParams = t.params(work);
    if !recorded {
        let (c, seq_ms) = host::timed(|| reference_deep::uts_seq(&p, t.seed));
        println!(
            "uts: sequential count {} nodes, depth {} in {seq_ms:.2} ms",
            c.nodes, c.max_depth
        );
        (t.nodes, t.max_depth) = (c.nodes, c.max_depth);
    }
    let mut rt = match opts.runtime() {
        Ok(rt) => rt,
        Err(e) => return host::fail("uts", &e),
    };
    let host::Reps {
        last: result,
        mut times,
        mut kernel,
        ..
    } = match host::repeat(&mut rt, &opts, "uts", |rt| {
        rt.run::<Uts, _>(uts, (p, t.seed, 0, 0, 1))
    }) {
        Ok(reps) => reps,
        Err(code) => return code,
    };
    let tasks = rt.last_stats().map_or(0, |s| s.tasks);
    let pool = reference_deep::deep_pool(u64::from(t.max_depth));
    let (rayon_nodes, rayon_ms) =
        host::timed(|| pool.install(|| reference_deep::uts_rayon(&p, t.seed)));
    let ms = host::median(&mut times);
    let kernel_part = if kernel.is_empty() {
        String::new()
    } else {
        format!(", kernel {:.2} ms", host::median(&mut kernel))
    };
    println!(
        "uts({}: b0 {}, m {}, q {}, seed {}, work {work}) = {result} nodes on {} in {ms:.2} ms{kernel_part} (median of {}); {:.1} Mnodes/s; {tasks} tasks; depth {}; rayon {rayon_ms:.2} ms",
        t.name,
        t.b0,
        t.m,
        t.q,
        t.seed,
        rt.backend_name(),
        times.len(),
        result as f64 / ms / 1e3,
        t.max_depth
    );
    host::report(
        "uts",
        result == t.nodes && rayon_nodes == t.nodes && tasks == p.tasks(t.nodes),
        &format!(
            "expected {} nodes ({}) in {} tasks; rayon counted {rayon_nodes}",
            t.nodes,
            if recorded { "recorded" } else { "sequential" },
            p.tasks(t.nodes)
        ),
    )
}
