//! `spmv [FILE.mtx | random ROWS NNZ_PER_ROW]`: `y = A·x` by row-range divide and conquer
//! (leaves of 16 rows) on a Matrix Market file (see docs/inputs.md) or a random square matrix;
//! checks `y` bit for bit against sequential SpMV. With `--granularity block` the tasks are
//! block-level (each row's products strided over the block) and the reference sums each row in
//! the block's order for the block size (`--block-threads`, 1 on the CPU executor).

use std::process::ExitCode;

use gtap_examples::{
    apps::spmv::{spmv, spmv_block, Spmv, SpmvBlock},
    host::{self, Granularity, Opts},
    inputs::{self, random_matrix, Csr, LoadOptions},
    reference,
    reference_irregular::{spmv_block_seq, spmv_rayon, spmv_seq},
};

const USAGE: &str =
    "spmv [FILE.mtx | random ROWS NNZ_PER_ROW] [--granularity thread|block] [--block-threads N] [--scheduler wf|shared|gq] [--profile DIR] [--cpu|--gpu] [--workers N] [--reps N]  (default: random 100000 32)";

/// Seed of the generated matrix and vector.
const SEED: u64 = 1;

fn main() -> ExitCode {
    let opts = Opts::from_env(USAGE);
    opts.require_granularity(&[Granularity::Thread, Granularity::Block], USAGE);
    let block = opts.granularity == Granularity::Block;
    let (matrix, what) = match opts.positional.first().map(String::as_str) {
        None | Some("random") => {
            let (rows, per_row): (u32, u32) = (
                opts.arg(1, "ROWS", 100_000, USAGE),
                opts.arg(2, "NNZ_PER_ROW", 32, USAGE),
            );
            (
                random_matrix(rows, per_row, SEED),
                format!("random {rows} × {rows}, ≤ {per_row} per row"),
            )
        }
        Some(path) => (inputs::load(path, LoadOptions::default()), path.to_owned()),
    };
    let a = match matrix {
        Ok(a) => a,
        Err(e) => {
            eprintln!("spmv: error: {e}");
            return ExitCode::from(2);
        }
    };
    println!("{what}: {} × {}, {} entries", a.n_rows, a.n_cols, a.nnz());
    let x = reference::random_f64(a.n_cols as usize, SEED);
    let mut rt = match opts.runtime() {
        Ok(rt) => rt,
        Err(e) => return host::fail("spmv", &e),
    };
    let mut times = Vec::new();
    let mut y = Vec::new();
    for _ in 0..opts.reps.max(1) {
        match run(&mut rt, &a, &x, block) {
            Ok((out, ms)) => {
                y = out;
                times.push(ms);
            }
            Err(e) => return host::fail("spmv", &e),
        }
    }
    if let Err(e) = host::write_profile(&rt, &opts) {
        eprintln!("spmv: {e}");
        return ExitCode::FAILURE;
    }
    let ms = host::median(&mut times);
    let b = host::block_size(&rt);
    let (expected, seq_ms) = host::timed(|| {
        if block {
            spmv_block_seq(&a, &x, b)
        } else {
            spmv_seq(&a, &x)
        }
    });
    let (_, rayon_ms) = host::timed(|| spmv_rayon(&a, &x));
    println!(
        "spmv ({}) on {}: {ms:.2} ms (median of {}), {:.2} GFLOP/s; sequential {seq_ms:.2} ms, rayon {rayon_ms:.2} ms",
        if block {
            format!("block-level, {b} threads per block")
        } else {
            "thread-level".to_string()
        },
        rt.backend_name(),
        times.len(),
        2.0 * a.nnz() as f64 / ms / 1e6,
    );
    let wrong = y
        .iter()
        .zip(&expected)
        .filter(|(a, b)| a.to_bits() != b.to_bits())
        .count();
    host::report(
        "spmv",
        wrong == 0,
        &format!(
            "{wrong} of {} rows differ from sequential SpMV (in the block's order for block-level)",
            a.n_rows
        ),
    )
}

/// One timed run of the task program (uploads excluded): `y` and the ms.
fn run(rt: &mut gtap::Runtime, a: &Csr, x: &[f64], block: bool) -> gtap::Result<(Vec<f64>, f64)> {
    let offsets = rt.upload(&a.offsets)?;
    let cols = rt.upload(&a.targets)?;
    let vals = rt.upload(&a.values_or_ones())?;
    let xb = rt.upload(x)?;
    let y = rt.alloc_zeroed::<f64>(a.n_rows as usize)?;
    let args = (
        0,
        a.n_rows,
        offsets.slice(),
        cols.slice(),
        vals.slice(),
        xb.slice(),
        y.slice(),
    );
    let (result, ms) = host::timed(|| {
        if block {
            rt.run::<SpmvBlock, _>(spmv_block, args)
        } else {
            rt.run::<Spmv, _>(spmv, args)
        }
    });
    result?;
    Ok((rt.download(&y)?, ms))
}
