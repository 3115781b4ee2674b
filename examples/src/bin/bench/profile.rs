//! The profiler's overhead (`only=profile`): the same run with and without the profiled kernel,
//! thread- and block-level.

use super::*;

impl Bench {
    /// The profiler's cost: fib(36) with the unprofiled kernel and with the profiled one.
    pub(crate) fn profile_overhead(&mut self) -> Result<(), String> {
        if !self.gpu {
            println!("\nprofiler overhead: GPU only (the profiler records GPU warps)");
            return Ok(());
        }
        let n = 36;
        let expected = reference::fib_seq(n);
        let mut rows = Vec::new();
        let mut summary = String::new();
        for records in [0u32, 4096] {
            let config = Config {
                backend: Backend::Gpu,
                profile_records: records,
                ..Config::default()
            };
            let mut rt = Runtime::with_ptx(config, host::PTX).map_err(err)?;
            let name = if records == 0 {
                "fib(36), profiler off".to_string()
            } else {
                format!("fib(36), profiler on ({records} records/warp)")
            };
            rows.push(measure(&name, self.reps, || {
                let r = rt.run::<Fib, _>(fib, (n,)).map_err(err)?;
                if r != expected {
                    return Err(format!("fib({n}) = {r}"));
                }
                Ok(rt.last_stats().and_then(|s| s.kernel_ms()))
            })?);
            if let Some(p) = rt.last_stats().and_then(|s| s.profile.as_ref()) {
                let s = p.summary();
                summary = format!(
                    "{} batches, {:.1} tasks/batch, {:.1}% in bodies, {} records dropped",
                    s.batches,
                    s.tasks_per_batch,
                    s.executing * 100.0,
                    s.dropped
                );
            }
        }
        print_table("profiler overhead on fib(36) (kernel time)", &rows);
        let k = |t: &Timing| t.kernel_median.unwrap_or(t.median);
        println!(
            "  overhead: {:+.1}% kernel, {:+.1}% end to end; profiled run: {summary}",
            (k(&rows[1]) / k(&rows[0]) - 1.0) * 100.0,
            (rows[1].median / rows[0].median - 1.0) * 100.0
        );
        self.profile_overhead_block()
    }

    /// The profiler on block-level workers: the block-level binary tree at depth 20 with
    /// GTaP's compute-heavy shape (m = 64, c = 1024, blocks of [`TREE_BLOCK_THREADS`]), off and
    /// on, checked bit for bit.
    pub(crate) fn profile_overhead_block(&mut self) -> Result<(), String> {
        let (depth, m, c) = (20, 64, 1024);
        let work = TreeWork {
            mem_ops: m,
            compute_iters: c,
        };
        let values = reference::random_f64(1 << 20, 3);
        // SAFETY: `values` outlives every use of the handle in this function.
        let host_data = unsafe { gtap::Table::from_raw_parts(values.as_ptr(), values.len()) };
        let mut rows = Vec::new();
        let mut summary = String::new();
        for records in [0u32, 4096] {
            let config = Config {
                backend: Backend::Gpu,
                block_threads: self.block_threads.unwrap_or(TREE_BLOCK_THREADS),
                profile_records: records,
                ..Config::default()
            };
            let mut rt = Runtime::with_ptx(config, host::PTX).map_err(err)?;
            let b = host::block_size(&rt);
            let expected = reference::tree_block_rayon(0, depth, 0, work, host_data, b);
            let data = rt.replicate(&values).map_err(err)?;
            let name = if records == 0 {
                format!("block tree D={depth} B={b}, profiler off")
            } else {
                format!("block tree D={depth} B={b}, profiler on ({records}/block)")
            };
            rows.push(measure(&name, self.reps, || {
                let r = rt
                    .run::<BinaryTreeBlock, _>(tree_block, (0, depth, 0, m, c, data.table()))
                    .map_err(err)?;
                if r.to_bits() != expected.to_bits() {
                    return Err(format!("block tree checksum {r}, expected {expected}"));
                }
                Ok(rt.last_stats().and_then(|s| s.kernel_ms()))
            })?);
            if let Some(p) = rt.last_stats().and_then(|s| s.profile.as_ref()) {
                let s = p.summary();
                summary = format!(
                    "{} blocks, {} batches, {:.1}% in bodies, {} records dropped",
                    s.warps,
                    s.batches,
                    s.executing * 100.0,
                    s.dropped
                );
            }
        }
        print_table(
            "profiler overhead on block-level workers (kernel time)",
            &rows,
        );
        let k = |t: &Timing| t.kernel_median.unwrap_or(t.median);
        println!(
            "  overhead: {:+.1}% kernel, {:+.1}% end to end; profiled run: {summary}",
            (k(&rows[1]) / k(&rows[0]) - 1.0) * 100.0,
            (rows[1].median / rows[0].median - 1.0) * 100.0
        );
        Ok(())
    }
}
