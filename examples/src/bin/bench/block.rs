//! The block-level and mixed-granularity rows (`only=block`, `only=mixed`): the binary tree
//! thread against block, the tree sweeps, the pruned tree, SpMV and BFS with block-level tasks,
//! mergesort with block-level merges; each checked against the block references for the block
//! size it ran with.

use super::*;

impl Bench {
    /// A runtime for block-level rows: the bench's backend, the default grid (as many blocks
    /// as fit) and `block_threads` threads per block (unless `--block-threads` says otherwise).
    pub(crate) fn block_runtime(&self, block_threads: u32) -> Result<Runtime, String> {
        let config = Config {
            backend: self.rt_backend(),
            grid: None,
            block_threads: self.block_threads.unwrap_or(block_threads),
            ..Config::default()
        };
        Runtime::with_ptx(config, host::PTX).map_err(err)
    }

    /// The block size a block-level task runs with on `rt` (1 on the CPU executor).
    pub(crate) fn block_label(rt: &Runtime) -> String {
        format!(
            "gtap ({}), block-level B={}",
            rt.backend_name(),
            host::block_size(rt)
        )
    }

    /// The binary tree at depth 22 (m = c = 256), thread-level beside block-level (blocks of
    /// [`TREE_BLOCK_THREADS`]), rayon and sequential.
    pub(crate) fn binary_tree_block(&mut self) -> Result<(), String> {
        let depth = if self.gpu { 22 } else { 18 };
        let (m, c) = (256, 256);
        let work = TreeWork {
            mem_ops: m,
            compute_iters: c,
        };
        let values = reference::random_f64(1 << 20, 3);
        // SAFETY: `values` outlives every use of the handle in this function.
        let host_data = unsafe { gtap::Table::from_raw_parts(values.as_ptr(), values.len()) };
        let expected = reference::tree_rayon(0, depth, 0, m, c, host_data);
        let reps = self.reps;
        let data = self.rt.replicate(&values).map_err(err)?;
        let name = format!("{}, thread-level", self.gtap_name());
        let thread = measure(&name, reps, || {
            let r = self
                .rt
                .run::<BinaryTree, _>(tree, (0, depth, 0, m, c, data.table()))
                .map_err(err)?;
            if r.to_bits() != expected.to_bits() {
                return Err(format!("binary tree checksum {r}, expected {expected}"));
            }
            Ok(self.kernel_ms())
        })?;
        let mut brt = self.block_runtime(TREE_BLOCK_THREADS)?;
        let b = host::block_size(&brt);
        let expected_block = reference::tree_block_rayon(0, depth, 0, work, host_data, b);
        let bdata = brt.replicate(&values).map_err(err)?;
        let block = measure(&Self::block_label(&brt), reps, || {
            let r = brt
                .run::<BinaryTreeBlock, _>(tree_block, (0, depth, 0, m, c, bdata.table()))
                .map_err(err)?;
            if r.to_bits() != expected_block.to_bits() {
                return Err(format!(
                    "block binary tree (B={b}) checksum {r}, expected {expected_block}"
                ));
            }
            Ok(brt.last_stats().and_then(|s| s.kernel_ms()))
        })?;
        // The block-level workers before work first, beside the new ones.
        let shared_config = Config {
            scheduler: gtap::Scheduler::SharedDeque,
            block_threads: self.block_threads.unwrap_or(TREE_BLOCK_THREADS),
            ..Config::default()
        };
        let label = format!("gtap (gpu), block-level B={b}, shared deque (before)");
        let block_shared = self.variant_row(&label, shared_config, |rt| {
            let sdata = rt.replicate(&values).map_err(err)?;
            let r = rt
                .run::<BinaryTreeBlock, _>(tree_block, (0, depth, 0, m, c, sdata.table()))
                .map_err(err)?;
            if r.to_bits() != expected_block.to_bits() {
                return Err(format!("shared-deque block tree checksum {r}"));
            }
            Ok(())
        })?;
        let rayon = baseline("rayon::join at every node", reps, || {
            reference::tree_rayon(0, depth, 0, m, c, host_data).to_bits() == expected.to_bits()
        })?;
        let seq = baseline("sequential", reps, || {
            reference::tree_seq(0, depth, 0, m, c, host_data).to_bits() == expected.to_bits()
        })?;
        let t = |r: &Timing| r.kernel_median.unwrap_or(r.median);
        let ratio = t(&thread) / t(&block);
        let shared_ratio = block_shared.as_ref().map(|s| t(s) / t(&block));
        let mut rows = vec![thread, block];
        rows.extend(block_shared);
        rows.extend([rayon, seq]);
        print_table(
            &format!("binary tree thread vs block, depth {depth}, mem_ops {m}, compute_iters {c}"),
            &rows,
        );
        println!("  block-level {ratio:.2}x faster than thread-level");
        if let Some(r) = shared_ratio {
            println!("  block-level work first {r:.2}x faster than the shared deque");
        }
        Ok(())
    }

    /// The tree sweeps of [`Bench::tree_sweep`] with block-level nodes (blocks of
    /// [`TREE_BLOCK_THREADS`]), each beside rayon on the thread-level tree.
    pub(crate) fn tree_sweep_block(&mut self) -> Result<(), String> {
        let depth = if self.gpu { 20 } else { 14 };
        let values = reference::random_f64(1 << 20, 3);
        // SAFETY: `values` outlives every use of the handle in this function.
        let host_data = unsafe { gtap::Table::from_raw_parts(values.as_ptr(), values.len()) };
        let mut brt = self.block_runtime(TREE_BLOCK_THREADS)?;
        let b = host::block_size(&brt);
        let data = brt.replicate(&values).map_err(err)?;
        let mut rows = Vec::new();
        for (m, c) in TREE_SWEEP_POINTS {
            let work = TreeWork {
                mem_ops: m,
                compute_iters: c,
            };
            let expected = reference::tree_block_rayon(0, depth, 0, work, host_data, b);
            let reps = self.reps;
            let name = format!("gtap block B={b}: mem_ops {m}, compute_iters {c}");
            rows.push(measure(&name, reps, || {
                let r = brt
                    .run::<BinaryTreeBlock, _>(tree_block, (0, depth, 0, m, c, data.table()))
                    .map_err(err)?;
                if r.to_bits() != expected.to_bits() {
                    return Err(format!(
                        "tree_block(m {m}, c {c}, B={b}) = {r}, expected {expected}"
                    ));
                }
                Ok(brt.last_stats().and_then(|s| s.kernel_ms()))
            })?);
            let thread_expected = reference::tree_rayon(0, depth, 0, m, c, host_data);
            rows.push(rayon_tree_row(
                (depth, m, c),
                host_data,
                thread_expected,
                reps,
            )?);
        }
        print_table(
            &format!("block-level binary tree sweeps, depth {depth} (checked against the block reference)"),
            &rows,
        );
        print_vs_rayon(&rows, "gtap block");
        Ok(())
    }

    /// The pruned 3-ary tree at D = 32 (CPU: 20) with block-level nodes, beside rayon.
    pub(crate) fn pruned_tree_block(&mut self) -> Result<(), String> {
        let depth = if self.gpu { 32 } else { 20 };
        let (m, c, seed) = (256, 256, 1);
        let work = TreeWork {
            mem_ops: m,
            compute_iters: c,
        };
        let values = reference::random_f64(1 << 20, 3);
        // SAFETY: `values` outlives every use of the handle in this function.
        let host_data = unsafe { gtap::Table::from_raw_parts(values.as_ptr(), values.len()) };
        let mut brt = self.block_runtime(TREE_BLOCK_THREADS)?;
        let b = host::block_size(&brt);
        let data = brt.replicate(&values).map_err(err)?;
        let (expected, nodes) =
            reference::pruned_tree_block_rayon(0, depth, 0, seed, work, host_data, b);
        let reps = self.reps;
        let gtap = measure(&Self::block_label(&brt), reps, || {
            let args = (0, depth, 0, seed, m, c, data.table());
            let r = brt
                .run::<PrunedTreeBlock, _>(pruned_tree_block, args)
                .map_err(err)?;
            if r.to_bits() != expected.to_bits() {
                return Err(format!(
                    "block pruned tree D={depth} B={b}: {r}, expected {expected}"
                ));
            }
            Ok(brt.last_stats().and_then(|s| s.kernel_ms()))
        })?;
        let rayon = baseline("rayon::join at every node", reps, || {
            let (_, n) = reference::pruned_tree_rayon(0, depth, 0, seed, m, c, host_data);
            n == nodes
        })?;
        print_table(
            &format!("block-level pruned 3-ary tree, depth {depth} ({nodes} nodes), mem_ops {m}, compute_iters {c}"),
            &[gtap, rayon],
        );
        Ok(())
    }

    /// SpMV with block-level tasks (the spmv row's matrix), checked bit for bit against the
    /// block-order reference.
    pub(crate) fn spmv_block(&mut self) -> Result<(), String> {
        let (rows, per_row) = if self.gpu {
            (1_000_000, 64)
        } else {
            (100_000, 32)
        };
        let a: Csr = random_matrix(rows, per_row, 1).map_err(|e| e.to_string())?;
        let x = reference::random_f64(a.n_cols as usize, 1);
        let mut brt = self.block_runtime(Config::default().block_threads)?;
        let b = host::block_size(&brt);
        let expected = spmv_block_seq(&a, &x, b);
        let plain = spmv_seq(&a, &x);
        let reps = self.reps;
        let name = Self::block_label(&brt);
        let gtap = spmv_split(&mut brt, &name, reps, (&a, &x, &expected), |rt, args| {
            rt.run::<SpmvBlock, _>(spmv_block, args).map(|_| ())
        })?;
        let rayon = baseline("rayon par_iter over rows", reps, || {
            spmv_rayon(&a, &x) == plain
        })?;
        let seq = baseline("sequential", reps, || spmv_seq(&a, &x) == plain)?;
        self.table(
            &format!("block-level SpMV, random {rows} x {rows}, {} entries (gtap: the matrix and x uploaded every call; checked against the B={b} reference)", a.nnz()),
            &[gtap, rayon, seq],
        );
        Ok(())
    }

    /// BFS with block-level visits on the bfs row's graphs (edges/s).
    pub(crate) fn bfs_block(&mut self) -> Result<(), String> {
        let (scale, side) = if self.gpu { (22, 2048) } else { (16, 256) };
        let mut brt = self.block_runtime(Config::default().block_threads)?;
        for (what, g) in bfs_graphs(scale, side)? {
            let expected = bfs_seq(&g, 0);
            let edges = traversed_edges(&g, &expected);
            let reps = self.reps;
            let name = Self::block_label(&brt);
            let gtap = bfs_split(&mut brt, &name, reps, (&g, &expected), |rt, args| {
                rt.run::<BfsBlock, _>(bfs_block, args).map(|_| ())
            })?;
            let rayon = baseline("rayon, level-synchronous", reps, || {
                bfs_rayon(&g, 0) == expected
            })?;
            let seq = baseline("sequential queue BFS", reps, || bfs_seq(&g, 0) == expected)?;
            let teps = |t: &Timing| edges as f64 / t.kernel_median.unwrap_or(t.median) / 1e6;
            println!(
                "\n  block-level BFS edges/s on {what}: gtap {:.2} G, rayon {:.2} G, sequential {:.2} G ({edges} edges)",
                teps(&gtap), teps(&rayon), teps(&seq)
            );
            self.table(
                &format!(
                    "block-level BFS on {what}: {} vertices, {} edges (gtap: the graph and depths uploaded every call)",
                    g.n_rows,
                    g.nnz()
                ),
                &[gtap, rayon, seq],
            );
        }
        Ok(())
    }

    /// Mergesort of 10^7 keys (CPU: 10^6) with thread-level sorts and block-level merges of
    /// at least [`BLOCK_MERGE_MIN`] keys, beside rayon; prints gtap / rayon (the bar is 2).
    pub(crate) fn mergesort_mixed(&mut self) -> Result<(), String> {
        let n = if self.gpu { 10_000_000 } else { 1_000_000 };
        let cutoff = 128;
        let keys = reference::random_keys(n, 11);
        let mut brt = self.block_runtime(Config::default().block_threads)?;
        let reps = self.reps;
        let name = format!(
            "gtap ({}), mixed B={}",
            brt.backend_name(),
            host::block_size(&brt)
        );
        let mut data = brt.alloc_zeroed::<u32>(n).map_err(err)?;
        let tmp = brt.alloc_zeroed::<u32>(n).map_err(err)?;
        let mut sorted = vec![0u32; n];
        let mut expected = keys.clone();
        expected.sort_unstable();
        let gtap = measure_split(&name, reps, |ph| {
            ph.upload(|| brt.upload_into(&mut data, &keys))
                .map_err(err)?;
            let args = (data.slice(), tmp.slice(), cutoff, BLOCK_MERGE_MIN);
            ph.run(|| brt.run::<MergeSortMixed, _>(mergesort_mixed, args))
                .map_err(err)?;
            ph.kernel = brt.last_stats().and_then(|s| s.kernel_ms());
            ph.download(|| brt.download_into(&data, &mut sorted))
                .map_err(err)?;
            if !ph.check(|| sorted == expected) {
                return Err(format!(
                    "mixed mergesort of {n} keys: not a sorted permutation"
                ));
            }
            Ok(())
        })?;
        // The baselines copy the keys into a buffer they keep, as gtap's upload does.
        let mut v = keys.clone();
        let rayon = baseline("rayon::join + split merges, same algorithm", reps, || {
            v.copy_from_slice(&keys);
            reference::mergesort_rayon_split(&mut v, cutoff, BLOCK_MERGE_MIN);
            v.is_sorted()
        })?;
        let rayon_seq_merge = baseline("rayon::join, sequential merges", reps, || {
            v.copy_from_slice(&keys);
            reference::mergesort_rayon(&mut v, cutoff);
            v.is_sorted()
        })?;
        let seq = baseline("sequential", reps, || {
            v.copy_from_slice(&keys);
            reference::mergesort_seq(&mut v, cutoff);
            v.is_sorted()
        })?;
        let t = |r: &Timing| r.kernel_median.unwrap_or(r.median);
        let (kernel_ratio, pays_ratio) = (t(&gtap) / rayon.median, gtap.median / rayon.median);
        self.table(
            &format!("mixed mergesort of {n} random u32, block merges from {BLOCK_MERGE_MIN} keys, split over blocks from {} keys (gtap: upload + run + download; baselines: copy + sort)", 2 * MERGE_PART_KEYS),
            &[gtap, rayon, rayon_seq_merge, seq],
        );
        println!(
            "  gtap / rayon (same algorithm): {kernel_ratio:.2} (kernel), {pays_ratio:.2} (upload + run + download); the bar is <= 2"
        );
        Ok(())
    }
}
