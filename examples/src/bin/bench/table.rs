//! The bench's measurement and its tables: a contender's timings ([`Timing`], and a
//! data-carrying call's phases, [`Split`]), the medians ([`measure`], [`measure_split`]), the
//! workload tables with the ratios against the baselines of the same run, and the summary of
//! what a user pays ([`print_pays`]). Every row family prints through these.

use super::*;

/// One contender's timings, in ms.
#[derive(Clone)]
pub(crate) struct Timing {
    pub(crate) name: String,
    /// For a row with `split`: the median of upload + run + download (what a user pays).
    pub(crate) median: f64,
    pub(crate) kernel_median: Option<f64>,
    pub(crate) runs: usize,
    /// A data-carrying gtap row: the medians of each phase ([`measure_split`]).
    pub(crate) split: Option<Split>,
}

/// Medians (ms) of the phases of a data-carrying gtap call, each over the same reps.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Split {
    /// Host data into device buffers that already exist (`Runtime::upload_into`).
    pub(crate) upload: f64,
    /// `Runtime::run`, wall time (pool reset, launch, kernel, result).
    pub(crate) run: f64,
    /// The kernel alone (CUDA events), inside `run`; `None` on the CPU.
    pub(crate) kernel: Option<f64>,
    /// Results back into host memory that already exists (`Runtime::download_into`).
    pub(crate) download: f64,
    /// The median of the per-rep sums upload + run + download.
    pub(crate) total: f64,
    /// The correctness check, timed apart and not in `total`.
    pub(crate) check: f64,
}

/// The phases of one data-carrying call, timed one by one (see [`measure_split`]); the
/// closure of a row wraps each step in the phase it belongs to.
#[derive(Default)]
pub(crate) struct Phases {
    pub(crate) upload: f64,
    pub(crate) run: f64,
    pub(crate) kernel: Option<f64>,
    pub(crate) download: f64,
    pub(crate) check: f64,
}

impl Phases {
    pub(crate) fn timed<R>(slot: &mut f64, f: impl FnOnce() -> R) -> R {
        let (r, ms) = host::timed(f);
        *slot += ms;
        r
    }

    /// Host to device copies (all the call's inputs).
    pub(crate) fn upload<R>(&mut self, f: impl FnOnce() -> R) -> R {
        Self::timed(&mut self.upload, f)
    }

    /// The run; `kernel` is its kernel time (`None` on the CPU).
    pub(crate) fn run<R>(&mut self, f: impl FnOnce() -> R) -> R {
        Self::timed(&mut self.run, f)
    }

    /// Device to host copies (all the call's outputs).
    pub(crate) fn download<R>(&mut self, f: impl FnOnce() -> R) -> R {
        Self::timed(&mut self.download, f)
    }

    /// The correctness check: timed, never counted in what a user pays.
    pub(crate) fn check<R>(&mut self, f: impl FnOnce() -> R) -> R {
        Self::timed(&mut self.check, f)
    }

    pub(crate) fn total(&self) -> f64 {
        self.upload + self.run + self.download
    }
}

/// Like [`measure`] for a data-carrying gtap call: `f` runs one call (upload, run, download)
/// and its check, each step inside its [`Phases`] method; one warm-up call (allocations, the
/// staging buffers, page faults) is not counted. The row's `median` is the median of the
/// per-rep sums upload + run + download; the check is reported apart.
pub(crate) fn measure_split(
    name: &str,
    reps: usize,
    mut f: impl FnMut(&mut Phases) -> Result<(), String>,
) -> Result<Timing, String> {
    f(&mut Phases::default())?;
    let mut done: Vec<Phases> = Vec::new();
    let mut reps = reps;
    while done.len() < reps {
        let mut p = Phases::default();
        f(&mut p)?;
        // Slow contenders (over 2 s a call) get 3 runs, as in `measure`.
        if done.is_empty() && p.total() > 2000.0 {
            reps = reps.min(3);
        }
        done.push(p);
    }
    let med = |g: fn(&Phases) -> f64| host::median(&mut done.iter().map(g).collect::<Vec<_>>());
    let kernels: Vec<f64> = done.iter().filter_map(|p| p.kernel).collect();
    let kernel = (!kernels.is_empty()).then(|| host::median(&mut kernels.clone()));
    let split = Split {
        upload: med(|p| p.upload),
        run: med(|p| p.run),
        kernel,
        download: med(|p| p.download),
        total: med(Phases::total),
        check: med(|p| p.check),
    };
    Ok(Timing {
        name: name.to_string(),
        median: split.total,
        kernel_median: kernel,
        runs: done.len(),
        split: Some(split),
    })
}

/// One line per (gtap, rayon) pair of rows: how much faster gtap's kernel was.
pub(crate) fn print_vs_rayon(rows: &[Timing], who: &str) {
    for pair in rows.chunks(2) {
        println!(
            "  {}: {who} {:.2}x faster than rayon",
            pair[1].name.trim_start_matches("rayon: "),
            pair[1].median / pair[0].kernel_median.unwrap_or(pair[0].median)
        );
    }
}

/// The line comparing the work-first scheduler's kernel median with the shared-deque
/// ablation's (empty without the latter).
pub(crate) fn scheduler_ratio(wf: &Timing, shared: Option<&Timing>) -> String {
    match (wf.kernel_median, shared.and_then(|t| t.kernel_median)) {
        (Some(a), Some(b)) => format!(
            "  work first / shared deque (kernel): {a:.2} / {b:.2} ms = {:.2}x faster\n",
            b / a
        ),
        _ => String::new(),
    }
}

/// A baseline contender (rayon, sequential): `run` does the work and says whether its answer
/// is right; a wrong answer aborts the benchmark, naming the contender.
pub(crate) fn baseline(
    name: &str,
    reps: usize,
    mut run: impl FnMut() -> bool,
) -> Result<Timing, String> {
    measure(name, reps, || {
        if run() {
            Ok(None)
        } else {
            Err(format!("{name}: wrong answer"))
        }
    })
}

pub(crate) fn measure(
    name: &str,
    reps: usize,
    mut f: impl FnMut() -> Result<Option<f64>, String>,
) -> Result<Timing, String> {
    let mut wall = Vec::new();
    let mut kernel = Vec::new();
    // One warm-up run (module load, page faults, thread start) that is not counted.
    f()?;
    let mut reps = reps;
    while wall.len() < reps {
        let (k, ms) = host::timed(&mut f);
        if let Some(k) = k? {
            kernel.push(k);
        }
        wall.push(ms);
        // A contender slower than 2 s (the sequential baselines) gets 3 runs, not `reps`.
        if wall.len() == 1 && ms > 2000.0 {
            reps = reps.min(3);
        }
    }
    let runs = wall.len();
    Ok(Timing {
        name: name.to_string(),
        median: host::median(&mut wall),
        kernel_median: (!kernel.is_empty()).then(|| host::median(&mut kernel)),
        runs,
        split: None,
    })
}

/// The baselines' medians in `rows`: the first `sequential...` and the first `rayon...` row.
pub(crate) fn baselines(rows: &[Timing]) -> (Option<f64>, Option<f64>) {
    let find = |p: &str| {
        rows.iter()
            .find(|r| r.name.starts_with(p))
            .map(|r| r.median)
    };
    (find("sequential"), find("rayon"))
}

/// The split of every data-carrying gtap row of a table: each phase's median, their sum
/// (what a user pays), the check (apart) and the sum over the baselines of the same run.
pub(crate) fn print_split(rows: &[Timing]) {
    let (seq, rayon) = baselines(rows);
    let split: Vec<_> = rows
        .iter()
        .filter_map(|r| r.split.map(|s| (r, s)))
        .collect();
    if split.is_empty() {
        return;
    }
    println!(
        "  what a user pays (ms)              {:>9} {:>9} {:>9} {:>9} {:>9} {:>9} {:>11} {:>9}",
        "upload", "run", "(kernel)", "download", "= total", "check", "total/rayon", "total/seq"
    );
    let opt = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.2}"));
    for (r, s) in split {
        println!(
            "  {:<34} {:>9.2} {:>9.2} {:>9} {:>9.2} {:>9.2} {:>9.2} {:>11} {:>9}",
            r.name,
            s.upload,
            s.run,
            opt(s.kernel),
            s.download,
            s.total,
            s.check,
            opt(rayon.map(|b| s.total / b)),
            opt(seq.map(|b| s.total / b)),
        );
    }
}

pub(crate) fn print_table(workload: &str, rows: &[Timing]) {
    println!("\n{workload}");
    println!(
        "  {:<34} {:>12} {:>12} {:>6} {:>10} {:>10}",
        "contender", "median ms", "kernel ms", "runs", "vs seq", "vs rayon"
    );
    let seq = rows
        .iter()
        .find(|r| r.name.starts_with("sequential"))
        .map(|r| r.median);
    let rayon = rows
        .iter()
        .find(|r| r.name.starts_with("rayon"))
        .map(|r| r.median);
    for r in rows {
        let best = r.kernel_median.unwrap_or(r.median);
        let ratio =
            |base: Option<f64>| base.map_or("-".to_string(), |b| format!("{:.2}x", b / best));
        let kernel = r
            .kernel_median
            .map_or("-".to_string(), |k| format!("{k:.2}"));
        println!(
            "  {:<34} {:>12.2} {:>12} {:>6} {:>10} {:>10}",
            r.name,
            r.median,
            kernel,
            r.runs,
            ratio(seq),
            ratio(rayon)
        );
    }
    print_split(rows);
}

/// One data-carrying gtap row of the summary.
pub(crate) struct Pays {
    pub(crate) workload: &'static str,
    pub(crate) row: String,
    pub(crate) split: Split,
    pub(crate) rayon: Option<f64>,
    pub(crate) seq: Option<f64>,
}

/// The summary of every data-carrying gtap row (a Markdown table), and on the GPU the two
/// targets of issue 11: cilksort 10^8 upload + run + download <= 150 ms, and mixed mergesort
/// 10^7 upload + run + download faster than rayon.
pub(crate) fn print_pays(pays: &[Pays], gpu: bool) {
    if pays.is_empty() {
        return;
    }
    println!("\nwhat a user pays: upload + run + download, medians in ms (the check timed apart, not in the total)");
    println!("| workload | gtap | upload | run | kernel | download | total | check | rayon | total / rayon | sequential |");
    println!("|---|---|---|---|---|---|---|---|---|---|---|");
    let opt = |x: Option<f64>| x.map_or("-".to_string(), |x| format!("{x:.2}"));
    for p in pays {
        let s = &p.split;
        println!(
            "| {} | {} | {:.2} | {:.2} | {} | {:.2} | **{:.2}** | {:.2} | {} | {} | {} |",
            p.workload,
            p.row,
            s.upload,
            s.run,
            opt(s.kernel),
            s.download,
            s.total,
            s.check,
            opt(p.rayon),
            opt(p.rayon.map(|r| s.total / r)),
            opt(p.seq),
        );
    }
    if !gpu {
        return;
    }
    let target = |workload: &str, what: &str, ok: &dyn Fn(&Pays) -> (bool, String)| {
        if let Some(p) = pays.iter().find(|p| p.workload == workload) {
            let (met, detail) = ok(p);
            let verdict = if met { "met" } else { "NOT met" };
            println!("target: {what}: {detail}: {verdict}");
        }
    };
    target(
        "cilksort",
        "cilksort 10^8 upload + run + download <= 150 ms",
        &|p| (p.split.total <= 150.0, format!("{:.2} ms", p.split.total)),
    );
    target(
        "mergesort_mixed",
        "mixed mergesort 10^7 upload + run + download faster than rayon (16 cores)",
        &|p| match p.rayon {
            Some(r) => (
                p.split.total < r,
                format!(
                    "{:.2} ms vs rayon {r:.2} ms ({:.2}x)",
                    p.split.total,
                    p.split.total / r
                ),
            ),
            None => (false, "no rayon row".into()),
        },
    );
}
