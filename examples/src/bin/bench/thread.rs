//! The thread-level rows: fib (with the shared-deque ablation and variants), EPAQ, nqueens, the
//! sorts, the binary tree and its sweeps, BFS, the pruned tree and SpMV, each beside sequential
//! Rust and rayon in the same run.

use super::*;

impl Bench {
    /// On the GPU, the same workload under the previous scheduler ([`Scheduler::SharedDeque`],
    /// with `tasks_per_warp` records per warp), as a row beside the work-first one; `None` on
    /// the CPU.
    pub(crate) fn shared_deque_row(
        &self,
        tasks_per_warp: u32,
        grid: Option<u32>,
        f: impl FnMut(&mut Runtime) -> Result<(), String>,
    ) -> Result<Option<Timing>, String> {
        let config = Config {
            scheduler: gtap::Scheduler::SharedDeque,
            tasks_per_warp,
            grid,
            ..Config::default()
        };
        self.variant_row("gtap (gpu), shared deque (before)", config, f)
    }

    /// On the GPU, the same workload with lanes running children as calls of their
    /// sequential clones (`Config::gpu_clones`, off by default); `None` on the CPU.
    pub(crate) fn clones_row(
        &self,
        f: impl FnMut(&mut Runtime) -> Result<(), String>,
    ) -> Result<Option<Timing>, String> {
        let config = Config {
            gpu_clones: true,
            ..Config::default()
        };
        self.variant_row("gtap (gpu), children as calls of clones", config, f)
    }

    /// On the GPU, the same workload under `config` (its backend set here), as a row named
    /// `label` beside the default one; `None` on the CPU.
    pub(crate) fn variant_row(
        &self,
        label: &str,
        config: Config,
        mut f: impl FnMut(&mut Runtime) -> Result<(), String>,
    ) -> Result<Option<Timing>, String> {
        if !self.gpu {
            return Ok(None);
        }
        let config = Config {
            backend: self.rt_backend(),
            ..config
        };
        let mut rt = Runtime::with_ptx(config, host::PTX).map_err(err)?;
        let t = measure(label, self.reps, || {
            f(&mut rt)?;
            Ok(rt.last_stats().and_then(|s| s.kernel_ms()))
        })?;
        Ok(Some(t))
    }

    pub(crate) fn fib(&mut self) -> Result<(), String> {
        let n = if self.gpu { 40 } else { 32 };
        let expected = reference::fib_seq(n);
        let reps = self.reps;
        let name = self.gtap_name();
        let gtap = measure(&name, reps, || {
            let r = self.rt.run::<Fib, _>(fib, (n,)).map_err(err)?;
            if r != expected {
                return Err(format!("fib({n}) = {r}, expected {expected}"));
            }
            Ok(self.kernel_ms())
        })?;
        let rayon = baseline("rayon::join at every call", reps, || {
            reference::fib_rayon(n) == expected
        })?;
        let seq = baseline("sequential", reps, || reference::fib_seq(n) == expected)?;
        let tasks = self.rt.last_stats().map_or(0, |s| s.tasks);
        let shared = self.shared_deque_row(8192, None, |rt| {
            let r = rt.run::<Fib, _>(fib, (n,)).map_err(err)?;
            (r == expected)
                .then_some(())
                .ok_or(format!("fib({n}) = {r}"))
        })?;
        let clones = self.clones_row(|rt| {
            let r = rt.run::<Fib, _>(fib, (n,)).map_err(err)?;
            (r == expected)
                .then_some(())
                .ok_or(format!("fib({n}) = {r}"))
        })?;
        let ratio = scheduler_ratio(&gtap, shared.as_ref());
        let mut rows = vec![gtap];
        rows.extend(clones);
        rows.extend(shared);
        rows.extend([rayon, seq]);
        print_table(
            &format!("fib({n}), a task per call ({tasks} task!s in the last gtap run)"),
            &rows,
        );
        print!("{ratio}");
        Ok(())
    }

    pub(crate) fn epaq(&mut self) -> Result<(), String> {
        let (n, cutoffs): (u32, &[u32]) = if self.gpu {
            (40, &[9, 13, 18])
        } else {
            (30, &[9, 13])
        };
        let expected = reference::fib_seq(n);
        let mut rows = Vec::new();
        for &cutoff in cutoffs {
            for (queues, epaq) in [(1u32, false), (3, true)] {
                let config = Config {
                    backend: self.rt_backend(),
                    queues,
                    ..Config::default()
                };
                let mut rt = Runtime::with_ptx(config, host::PTX).map_err(err)?;
                let t = measure(
                    &format!("cutoff {cutoff}, {queues} queue(s)"),
                    self.reps,
                    || {
                        let r = rt
                            .run::<FibCutoff, _>(fib_cutoff, (n, cutoff, epaq))
                            .map_err(err)?;
                        if r != expected {
                            return Err(format!(
                                "fib_cutoff({n}, {cutoff}) = {r}, expected {expected}"
                            ));
                        }
                        Ok(rt.last_stats().and_then(|s| s.kernel_ms()))
                    },
                )?;
                rows.push(t);
            }
        }
        print_table(
            &format!(
                "EPAQ: fib({n}) with a sequential cutoff, 1 queue vs 3 queues ({})",
                self.rt.backend_name()
            ),
            &rows,
        );
        for pair in rows.chunks(2) {
            let (one, three) = (&pair[0], &pair[1]);
            let t = |r: &Timing| r.kernel_median.unwrap_or(r.median);
            println!(
                "  EPAQ speedup at {}: {:.2}x",
                one.name.split(',').next().unwrap_or(""),
                t(one) / t(three)
            );
        }
        Ok(())
    }

    pub(crate) fn nqueens(&mut self) -> Result<(), String> {
        let (n, cutoff) = if self.gpu { (16, 7) } else { (13, 5) };
        let expected = reference::nqueens_seq(n);
        let name = self.gtap_name();
        let reps = self.reps;
        let gtap = measure(&name, reps, || {
            let count = self.rt.upload(&[0u64]).map_err(err)?;
            self.rt
                .run::<NQueens, _>(nqueens, (n, 0, 0, 0, 0, cutoff, 0, count.slice()))
                .map_err(err)?;
            let got = self.rt.download(&count).map_err(err)?[0];
            if got != expected {
                return Err(format!("nqueens({n}) = {got}, expected {expected}"));
            }
            Ok(self.kernel_ms())
        })?;
        let rayon = baseline(&format!("rayon::scope to depth {cutoff}"), reps, || {
            reference::nqueens_rayon(n, cutoff) == expected
        })?;
        let seq = baseline("sequential", reps, || reference::nqueens_seq(n) == expected)?;
        let shared = self.shared_deque_row(8192, None, |rt| {
            let count = rt.upload(&[0u64]).map_err(err)?;
            rt.run::<NQueens, _>(nqueens, (n, 0, 0, 0, 0, cutoff, 0, count.slice()))
                .map_err(err)?;
            let got = rt.download(&count).map_err(err)?[0];
            (got == expected)
                .then_some(())
                .ok_or(format!("nqueens({n}) = {got}"))
        })?;
        let ratio = scheduler_ratio(&gtap, shared.as_ref());
        let mut rows = vec![gtap];
        rows.extend(shared);
        rows.extend([rayon, seq]);
        print_table(
            &format!("nqueens({n}), detached tasks to depth {cutoff}"),
            &rows,
        );
        print!("{ratio}");
        Ok(())
    }

    pub(crate) fn sort(&mut self, which: &str) -> Result<(), String> {
        let cilk = which == "cilksort";
        let n = match (cilk, self.gpu) {
            (true, true) => 100_000_000,
            (false, true) => 10_000_000,
            (true, false) => 2_000_000,
            (false, false) => 1_000_000,
        };
        let keys = reference::random_keys(n, 11);
        let name = self.gtap_name();
        let reps = self.reps;
        // Buffers made once, as a program sorting repeatedly keeps them.
        let mut data = self.rt.alloc_zeroed::<u32>(n).map_err(err)?;
        let tmp = self.rt.alloc_zeroed::<u32>(n).map_err(err)?;
        let mut sorted = vec![0u32; n];
        // The check compares with the keys sorted once here (exact, and cheap per rep).
        let mut expected = keys.clone();
        expected.sort_unstable();
        let rt = &mut self.rt;
        let gtap = measure_split(&name, reps, |ph| {
            ph.upload(|| rt.upload_into(&mut data, &keys))
                .map_err(err)?;
            ph.run(|| {
                if cilk {
                    rt.run::<CilkSort, _>(cilksort, (data.slice(), tmp.slice(), 64, 256, false))
                } else {
                    rt.run::<MergeSort, _>(mergesort, (data.slice(), tmp.slice(), 128))
                }
            })
            .map_err(err)?;
            ph.kernel = rt.last_stats().and_then(|s| s.kernel_ms());
            ph.download(|| rt.download_into(&data, &mut sorted))
                .map_err(err)?;
            if !ph.check(|| sorted == expected) {
                return Err(format!("{which} of {n} keys: not a sorted permutation"));
            }
            Ok(())
        })?;
        let check = |v: &[u32]| {
            if v.is_sorted() {
                Ok(None)
            } else {
                Err(format!("{which} baseline did not sort"))
            }
        };
        // The baselines copy the keys into a buffer they keep, as gtap's upload does.
        let mut v = keys.clone();
        let rayon = measure("rayon::join, same algorithm", reps, || {
            v.copy_from_slice(&keys);
            if cilk {
                reference::cilksort_rayon(&mut v, 64, 256)
            } else {
                reference::mergesort_rayon(&mut v, 128)
            }
            check(&v)
        })?;
        let seq = measure("sequential, same algorithm", reps, || {
            v.copy_from_slice(&keys);
            if cilk {
                reference::cilksort_seq(&mut v, 64, 256)
            } else {
                reference::mergesort_seq(&mut v, 128)
            }
            check(&v)
        })?;
        self.table(
            &format!(
                "{which} of {n} random u32 (gtap: upload + run + download; baselines: copy + sort)"
            ),
            &[gtap, rayon, seq],
        );
        Ok(())
    }

    pub(crate) fn binary_tree(&mut self) -> Result<(), String> {
        let depth = if self.gpu { 22 } else { 18 };
        let (m, c) = (256, 256);
        let values = reference::random_f64(1 << 20, 3);
        // SAFETY: `values` outlives every use of the handle in this function.
        let host_data = unsafe { gtap::Table::from_raw_parts(values.as_ptr(), values.len()) };
        let expected = reference::tree_seq(0, depth, 0, m, c, host_data);
        let mut data = self.rt.replicate(&values).map_err(err)?;
        let name = self.gtap_name();
        let reps = self.reps;
        let rt = &mut self.rt;
        // The table uploaded every call; the result comes back with the run.
        let gtap = measure_split(&name, reps, |ph| {
            ph.upload(|| rt.replicate_into(&mut data, &values))
                .map_err(err)?;
            let r = ph
                .run(|| rt.run::<BinaryTree, _>(tree, (0, depth, 0, m, c, data.table())))
                .map_err(err)?;
            ph.kernel = rt.last_stats().and_then(|s| s.kernel_ms());
            if r.to_bits() != expected.to_bits() {
                return Err(format!("binary tree checksum {r}, expected {expected}"));
            }
            Ok(())
        })?;
        let mut rows = vec![gtap];
        if self.gpu {
            // GTaP's launch shape for this benchmark (1000 blocks of 64 threads).
            let config = Config {
                backend: Backend::Gpu,
                grid: Some(1000),
                block: 64,
                ..Config::default()
            };
            let mut rt = Runtime::with_ptx(config, host::PTX).map_err(err)?;
            let data = rt.replicate(&values).map_err(err)?;
            rows.push(measure("gtap (gpu), 1000 x 64 like GTaP", reps, || {
                let r = rt
                    .run::<BinaryTree, _>(tree, (0, depth, 0, m, c, data.table()))
                    .map_err(err)?;
                if r.to_bits() != expected.to_bits() {
                    return Err(format!("binary tree checksum {r}, expected {expected}"));
                }
                Ok(rt.last_stats().and_then(|s| s.kernel_ms()))
            })?);
        }
        let rayon = baseline("rayon::join at every node", reps, || {
            reference::tree_rayon(0, depth, 0, m, c, host_data).to_bits() == expected.to_bits()
        })?;
        let seq = baseline("sequential", reps, || {
            reference::tree_seq(0, depth, 0, m, c, host_data).to_bits() == expected.to_bits()
        })?;
        rows.extend([rayon, seq]);
        self.table(
            &format!("binary tree, depth {depth}, mem_ops {m}, compute_iters {c} (gtap: its 8 MB table uploaded every call)"),
            &rows,
        );
        Ok(())
    }

    /// The binary tree at depth 20 over `mem_ops` and `compute_iters` (GTaP's sweeps), each
    /// result checked against the rayon run of the same tree.
    pub(crate) fn tree_sweep(&mut self) -> Result<(), String> {
        let depth = if self.gpu { 20 } else { 14 };
        let values = reference::random_f64(1 << 20, 3);
        // SAFETY: `values` outlives every use of the handle in this function.
        let host_data = unsafe { gtap::Table::from_raw_parts(values.as_ptr(), values.len()) };
        let data = self.rt.replicate(&values).map_err(err)?;
        let mut rows = Vec::new();
        for (m, c) in TREE_SWEEP_POINTS {
            let expected = reference::tree_rayon(0, depth, 0, m, c, host_data);
            let name = format!("gtap: mem_ops {m}, compute_iters {c}");
            let reps = self.reps;
            rows.push(measure(&name, reps, || {
                let r = self
                    .rt
                    .run::<BinaryTree, _>(tree, (0, depth, 0, m, c, data.table()))
                    .map_err(err)?;
                if r.to_bits() != expected.to_bits() {
                    return Err(format!("tree(m {m}, c {c}) = {r}, expected {expected}"));
                }
                Ok(self.kernel_ms())
            })?);
            rows.push(rayon_tree_row((depth, m, c), host_data, expected, reps)?);
        }
        print_table(
            &format!("binary tree sweeps, depth {depth} (checked against rayon)"),
            &rows,
        );
        print_vs_rayon(&rows, "gtap");
        Ok(())
    }

    /// Asynchronous BFS on an R-MAT graph and a grid, depths checked against sequential BFS.
    pub(crate) fn bfs(&mut self) -> Result<(), String> {
        let (scale, side) = if self.gpu { (22, 2048) } else { (16, 256) };
        let graphs = bfs_graphs(scale, side)?;
        for (what, g) in &graphs {
            let expected = bfs_seq(g, 0);
            let edges = traversed_edges(g, &expected);
            let name = self.gtap_name();
            let reps = self.reps;
            let gtap = bfs_split(&mut self.rt, &name, reps, (g, &expected), |rt, args| {
                rt.run::<Bfs, _>(bfs_visit, args).map(|_| ())
            })?;
            let rayon = baseline("rayon, level-synchronous", reps, || {
                bfs_rayon(g, 0) == expected
            })?;
            let seq = baseline("sequential queue BFS", reps, || bfs_seq(g, 0) == expected)?;
            let teps = |t: &Timing| edges as f64 / t.kernel_median.unwrap_or(t.median) / 1e6;
            println!(
                "\n  BFS edges/s on {what}: gtap {:.2} G, rayon {:.2} G, sequential {:.2} G ({edges} edges)",
                teps(&gtap), teps(&rayon), teps(&seq)
            );
            self.table(
                &format!("BFS on {what}: {} vertices, {} edges (gtap: the graph and depths uploaded every call)", g.n_rows, g.nnz()),
                &[gtap, rayon, seq],
            );
        }
        Ok(())
    }

    /// GTaP's pruned 3-ary tree (child kept with probability 1 - d/D), m = c = 256, checked
    /// against (and timed beside) rayon; the sequential run only at CPU sizes.
    pub(crate) fn pruned_tree(&mut self) -> Result<(), String> {
        let depths: &[u32] = if self.gpu { &[28, 32, 34] } else { &[20, 24] };
        let (m, c, seed) = (256, 256, 1);
        let values = reference::random_f64(1 << 20, 3);
        // SAFETY: `values` outlives every use of the handle in this function.
        let host_data = unsafe { gtap::Table::from_raw_parts(values.as_ptr(), values.len()) };
        let mut data = self.rt.replicate(&values).map_err(err)?;
        for &depth in depths {
            let (expected, nodes) =
                reference::pruned_tree_rayon(0, depth, 0, seed, m, c, host_data);
            let name = self.gtap_name();
            let reps = self.reps;
            let rt = &mut self.rt;
            // The table uploaded every call; the result comes back with the run.
            let gtap = measure_split(&name, reps, |ph| {
                ph.upload(|| rt.replicate_into(&mut data, &values))
                    .map_err(err)?;
                let args = (0, depth, 0, seed, m, c, data.table());
                let r = ph
                    .run(|| rt.run::<PrunedTree, _>(pruned_tree, args))
                    .map_err(err)?;
                ph.kernel = rt.last_stats().and_then(|s| s.kernel_ms());
                if r.to_bits() != expected.to_bits() {
                    return Err(format!("pruned tree D={depth}: {r}, expected {expected}"));
                }
                Ok(())
            })?;
            let rayon = baseline("rayon::join at every node", reps, || {
                reference::pruned_tree_rayon(0, depth, 0, seed, m, c, host_data)
                    .0
                    .to_bits()
                    == expected.to_bits()
            })?;
            self.table(
                &format!("pruned 3-ary tree, depth {depth} ({nodes} nodes), mem_ops {m}, compute_iters {c} (gtap: its 8 MB table uploaded every call)"),
                &[gtap, rayon],
            );
        }
        Ok(())
    }

    /// Divide-and-conquer SpMV on a random CSR matrix, checked bit for bit.
    pub(crate) fn spmv(&mut self) -> Result<(), String> {
        let (rows, per_row) = if self.gpu {
            (1_000_000, 64)
        } else {
            (100_000, 32)
        };
        let a: Csr = random_matrix(rows, per_row, 1).map_err(|e| e.to_string())?;
        let x = reference::random_f64(a.n_cols as usize, 1);
        let expected = spmv_seq(&a, &x);
        let name = self.gtap_name();
        let reps = self.reps;
        let gtap = spmv_split(
            &mut self.rt,
            &name,
            reps,
            (&a, &x, &expected),
            |rt, args| rt.run::<Spmv, _>(spmv, args).map(|_| ()),
        )?;
        let rayon = baseline("rayon par_iter over rows", reps, || {
            spmv_rayon(&a, &x) == expected
        })?;
        let seq = baseline("sequential", reps, || spmv_seq(&a, &x) == expected)?;
        self.table(
            &format!("SpMV, random {rows} x {rows}, {} entries (gtap: the matrix and x uploaded every call)", a.nnz()),
            &[gtap, rayon, seq],
        );
        Ok(())
    }
}
