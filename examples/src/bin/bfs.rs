//! `bfs [FILE | rmat SCALE | grid W H] [SOURCE]`: asynchronous task BFS from SOURCE on a graph
//! file (Matrix Market `.mtx` or SNAP `.txt`, see docs/inputs.md), an R-MAT graph (Graph500
//! parameters, symmetrized) or a W × H grid; prints the traversal rate and checks the depths
//! against a sequential BFS. `--granularity block` makes every visit a block-level task (the
//! block's threads stride over the adjacency list); `--granularity mixed` keeps thread-level
//! visits and hands vertices of more than [`MIXED_THRESHOLD`] edges to block-level tasks.

use std::process::ExitCode;

use gtap_examples::{
    apps::bfs::{bfs_block, bfs_mixed, bfs_visit, Bfs, BfsBlock, BfsMixed, CHUNK},
    host::{self, Granularity, Opts},
    inputs::{self, grid, rmat, Csr, Grid, LoadOptions, Rmat},
    reference_irregular::{bfs_rayon, bfs_seq, traversed_edges, UNREACHED},
};

const USAGE: &str =
    "bfs [FILE.mtx | FILE.txt | rmat SCALE | grid W H] [SOURCE=0] [--granularity thread|block|mixed] [--block-threads N] [--scheduler wf|shared|gq] [--profile DIR] [--cpu|--gpu] [--workers N] [--reps N]  (default: rmat 16)";

/// Seed of the generated graphs (fixed, so runs are comparable).
const SEED: u64 = 1;

/// `--granularity mixed`: vertices with more out-edges than this go to a block-level task.
pub const MIXED_THRESHOLD: u32 = CHUNK;

fn main() -> ExitCode {
    let opts = Opts::from_env(USAGE);
    let (graph, what, source_arg) = match opts.positional.first().map(String::as_str) {
        None | Some("rmat") => {
            let scale: u32 = opts.arg(1, "SCALE", 16, USAGE);
            (
                rmat(&Rmat::graph500(scale, SEED)),
                format!("R-MAT scale {scale}"),
                2,
            )
        }
        Some("grid") => {
            let (w, h): (u32, u32) = (opts.arg(1, "W", 1000, USAGE), opts.arg(2, "H", 1000, USAGE));
            (
                grid(&Grid {
                    width: w,
                    height: h,
                    removed_edges: 0,
                    seed: SEED,
                }),
                format!("{w} × {h} grid"),
                3,
            )
        }
        Some(path) => (
            inputs::load(path, LoadOptions::default()),
            path.to_owned(),
            1,
        ),
    };
    let g = match graph {
        Ok(g) => g,
        Err(e) => {
            eprintln!("bfs: error: {e}");
            return ExitCode::from(2);
        }
    };
    let source: u32 = opts.arg(source_arg, "SOURCE", 0, USAGE);
    if g.n_rows != g.n_cols || source >= g.n_rows.max(1) {
        eprintln!("bfs: error: need a square matrix and SOURCE below {} (got a {}x{} matrix, SOURCE {source})", g.n_rows, g.n_rows, g.n_cols);
        return ExitCode::from(2);
    }
    println!("{what}: {} vertices, {} edges", g.n_rows, g.nnz());
    let mut rt = match opts.runtime() {
        Ok(rt) => rt,
        Err(e) => return host::fail("bfs", &e),
    };
    let mut times = Vec::new();
    let mut depths = Vec::new();
    for _ in 0..opts.reps.max(1) {
        match run(&mut rt, &g, source, opts.granularity) {
            Ok((d, ms)) => {
                depths = d;
                times.push(ms);
            }
            Err(e) => return host::fail("bfs", &e),
        }
    }
    if let Err(e) = host::write_profile(&rt, &opts) {
        eprintln!("bfs: {e}");
        return ExitCode::FAILURE;
    }
    let ms = host::median(&mut times);
    let tasks = rt.last_stats().map_or(0, |s| s.tasks);
    let edges = traversed_edges(&g, &depths);
    let reached = depths.iter().filter(|&&d| d != UNREACHED).count();
    let (expected, seq_ms) = host::timed(|| bfs_seq(&g, source));
    let (_, rayon_ms) = host::timed(|| bfs_rayon(&g, source));
    println!(
        "bfs ({}) from {source} on {}: {ms:.2} ms (median of {}), {reached} vertices reached, {edges} edges traversed, {:.1} M edges/s, {tasks} tasks ({:.1} per reached vertex); sequential {seq_ms:.2} ms, rayon {rayon_ms:.2} ms",
        opts.granularity.name(),
        rt.backend_name(),
        times.len(),
        edges as f64 / ms / 1e3,
        tasks as f64 / reached.max(1) as f64,
    );
    let wrong = depths.iter().zip(&expected).filter(|(a, b)| a != b).count();
    host::report(
        "bfs",
        wrong == 0,
        &format!(
            "{wrong} of {} depths differ from the sequential BFS",
            g.n_rows
        ),
    )
}

/// One timed run of the task program (uploads excluded): the depths and the ms.
fn run(
    rt: &mut gtap::Runtime,
    g: &Csr,
    source: u32,
    granularity: Granularity,
) -> gtap::Result<(Vec<u32>, f64)> {
    let mut init = vec![UNREACHED; g.n_rows as usize];
    init[source as usize] = 0;
    let offsets = rt.replicate(&g.offsets)?;
    let targets = rt.replicate(&g.targets)?;
    let depths = rt.upload(&init)?;
    let (o, t, d) = (offsets.table(), targets.table(), depths.slice());
    let (result, ms) = host::timed(|| match granularity {
        Granularity::Thread => rt.run::<Bfs, _>(bfs_visit, (source, 0, o, t, d)),
        Granularity::Block => rt.run::<BfsBlock, _>(bfs_block, (source, 0, o, t, d)),
        Granularity::Mixed => {
            rt.run::<BfsMixed, _>(bfs_mixed, (source, 0, MIXED_THRESHOLD, o, t, d))
        }
    });
    result?;
    Ok((rt.download(&depths)?, ms))
}
