//! The deep workloads' rows (`only=deep`, or `chain`, `uts`, `uts_1e7`, `uts_1e9`): the
//! chain of 10^6 dependent tasks, reported per step, and UTS binomial trees of ~10^7 and
//! ~10^9 nodes (CPU: ~10^5 and ~10^7), counted exactly. gtap runs them on the bench's runtime,
//! `Config::default()` plus the command line; rayon recurses on a `deep_pool` (stacks sized
//! for the depth) on every core. The trees are checked against their recorded counts.

use gtap_examples::{
    apps::{
        chain::{chain, Chain},
        uts::{uts, Uts},
    },
    reference_deep::{
        chain_rayon, chain_seq, deep_pool, uts_rayon, uts_seq, UtsTree, UTS_LARGE, UTS_MEDIUM,
        UTS_SMALL,
    },
};

use gtap::Config;

use super::{baseline, err, measure, print_table, Bench, Timing};

/// Links of the chain row.
const CHAIN_STEPS: u32 = 1_000_000;

impl Bench {
    /// The chain of [`CHAIN_STEPS`] dependent tasks beside rayon (a `join` per level) and the
    /// sequential loops; prints each contender's time per step.
    pub(super) fn chain(&mut self) -> Result<(), String> {
        let (n, x) = (CHAIN_STEPS, 1);
        let expected = chain_seq(n, x);
        let reps = self.reps;
        let name = self.gtap_name();
        let gtap = measure(&name, reps, || {
            let r = self.rt.run::<Chain, _>(chain, (n, x)).map_err(err)?;
            if r != expected {
                return Err(format!("chain({n}) = {r:#x}, expected {expected:#x}"));
            }
            Ok(self.kernel_ms())
        })?;
        let pool = deep_pool(u64::from(n));
        let rayon = baseline("rayon::join per level", reps, || {
            pool.install(|| chain_rayon(n, x)) == expected
        })?;
        let seq = baseline("sequential loops", reps, || chain_seq(n, x) == expected)?;
        // The shared-deque ablation needs 10^6 records in the chain's one warp pool: 2^20 per
        // warp, on 64 warps (every warp's pool is that large, and a chain runs on one).
        let shared = self.shared_deque_row(1 << 20, Some(64), |rt| {
            let r = rt.run::<Chain, _>(chain, (n, x)).map_err(err)?;
            (r == expected)
                .then_some(())
                .ok_or(format!("chain({n}) = {r:#x}"))
        })?;
        // Notes printed under the table.
        let mut notes = String::new();
        if let Some(t) = &shared {
            notes += &format!(
                "  shared deque (before, tasks_per_warp = 2^20, 64 warps): {:.4} us per step (kernel)\n",
                t.kernel_median.unwrap_or(t.median) * 1e3 / f64::from(n)
            );
        }
        let clones = self.clones_row(|rt| {
            let r = rt.run::<Chain, _>(chain, (n, x)).map_err(err)?;
            (r == expected)
                .then_some(())
                .ok_or(format!("chain({n}) = {r:#x}"))
        })?;
        if let Some(t) = &clones {
            notes += &format!(
                "  children as calls of clones: {:.4} us per step (kernel)\n",
                t.kernel_median.unwrap_or(t.median) * 1e3 / f64::from(n)
            );
        }
        // The work-first scheduler without inline execution (the default of 2026-11-24).
        let no_inline = self.variant_row(
            "gtap (gpu), work first, inline off (before)",
            Config {
                inline_steps: 0,
                ..Config::default()
            },
            |rt| {
                let r = rt.run::<Chain, _>(chain, (n, x)).map_err(err)?;
                (r == expected)
                    .then_some(())
                    .ok_or(format!("chain({n}) = {r:#x}"))
            },
        )?;
        // A chain whose records fit in L2 (10^4 records of a few dozen bytes): the same
        // steps without the DRAM misses of a working set larger than the cache.
        let short = CHAIN_STEPS / 100;
        let short_expected = chain_seq(short, x);
        let short_row =
            self.variant_row("gtap (gpu), a chain of 10^4", Config::default(), |rt| {
                let r = rt.run::<Chain, _>(chain, (short, x)).map_err(err)?;
                (r == short_expected)
                    .then_some(())
                    .ok_or(format!("chain({short}) = {r:#x}"))
            })?;
        let per_step = |t: &Timing| t.kernel_median.unwrap_or(t.median) * 1e3 / f64::from(n);
        if let Some(t) = &no_inline {
            notes += &format!(
                "  work first, inline off (before): {:.4} us per step (kernel); inline {:.2}x faster\n",
                per_step(t),
                per_step(t) / per_step(&gtap)
            );
        }
        if let Some(t) = &short_row {
            notes += &format!(
                "  a chain of {short} (records fit in L2): {:.4} us per step (kernel)\n",
                t.kernel_median.unwrap_or(t.median) * 1e3 / f64::from(short)
            );
        }
        let line = format!(
            "  us per step: gtap {:.4}{}, rayon {:.4}, sequential {:.4} (the target is <= 0.5 on the GPU)",
            per_step(&gtap),
            if gtap.kernel_median.is_some() {
                format!(" kernel, {:.4} end to end", gtap.median * 1e3 / f64::from(n))
            } else {
                String::new()
            },
            per_step(&rayon),
            per_step(&seq)
        );
        print_table(
            &format!("chain of {n} dependent tasks (one child, one join per level)"),
            &[gtap, rayon, seq]
                .into_iter()
                .chain(no_inline)
                .chain(shared)
                .collect::<Vec<_>>(),
        );
        println!("{line}");
        print!("{notes}");
        Ok(())
    }

    /// UTS at ~10^7 nodes (CPU: ~10^5).
    pub(super) fn uts_small(&mut self) -> Result<(), String> {
        self.uts_row(if self.gpu { UTS_MEDIUM } else { UTS_SMALL })
    }

    /// UTS at ~10^9 nodes (CPU: ~10^7).
    pub(super) fn uts_large(&mut self) -> Result<(), String> {
        self.uts_row(if self.gpu { UTS_LARGE } else { UTS_MEDIUM })
    }

    /// One UTS tree, a task per node, beside rayon (a `join` where the tasks fork) and the
    /// sequential explicit-stack count; prints nodes per second.
    fn uts_row(&mut self, t: UtsTree) -> Result<(), String> {
        let p = t.params(0);
        let reps = self.reps;
        let name = self.gtap_name();
        let gtap = measure(&name, reps, || {
            let r = self
                .rt
                .run::<Uts, _>(uts, (p, t.seed, 0, 0, 1))
                .map_err(err)?;
            if r != t.nodes {
                return Err(format!("uts {}: {r} nodes, expected {}", t.name, t.nodes));
            }
            Ok(self.kernel_ms())
        })?;
        let tasks = self.rt.last_stats().map_or(0, |s| s.tasks);
        let pool = deep_pool(u64::from(t.max_depth));
        let rayon = baseline("rayon::join where the tasks fork", reps, || {
            pool.install(|| uts_rayon(&p, t.seed)) == t.nodes
        })?;
        let seq = baseline("sequential, explicit stack", reps, || {
            uts_seq(&p, t.seed).nodes == t.nodes
        })?;
        let rate = |r: &Timing| t.nodes as f64 / r.kernel_median.unwrap_or(r.median) / 1e6;
        let line = format!(
            "  Gnodes/s: gtap {:.3}, rayon {:.3}, sequential {:.3}",
            rate(&gtap),
            rate(&rayon),
            rate(&seq)
        );
        let rows = [gtap, rayon, seq];
        print_table(
            &format!(
                "unbalanced tree (UTS binomial {}): b0 {}, m {}, q {}, seed {}: {} nodes, depth {} ({tasks} tasks in the last gtap run)",
                t.name, t.b0, t.m, t.q, t.seed, t.nodes, t.max_depth
            ),
            &rows,
        );
        println!("{line}");
        Ok(())
    }
}
