//! One run from `Inner::run` down to the kernel launch and back: the kernel and pools for the
//! program, the params and control block, the root slot and the setup's work (queued, with the
//! launch between two timing events and the readback, by `replay.rs`), and what the kernel
//! left: the result, the statistics and the profile.

use std::ptr::addr_of_mut;

use super::*;

/// Bytes of a lane's stack kept below the deepest clone's floor for the frames that a body
/// calls besides clones (and the floor's own frame).
const CLONE_STACK_RESERVE: u32 = 1024;

impl Inner {
    pub(super) fn run<P: Program, T: TaskFn>(
        &mut self,
        _entry: &T,
        args: T::Args,
        stride: usize,
        stop: &Stop,
    ) -> Result<Segment<T::Output>> {
        let t0 = Instant::now();
        let mut launch = self.prepare::<P, T>(args, stride, Part::ONE)?;
        if let Some(reason) = stop.requested() {
            // Not launched: the setup is queued anyway (it resets only what the next run
            // resets again, and the flags of what it reset stay true).
            self.queue_setup(&mut launch)?;
            return Err(stop.error(reason));
        }
        if stop.steered() {
            self.queue_setup(&mut launch)?;
            // Pause or SM limit: the blocks above the limit leave at once (`elastic.rs`).
            let k = launch.kernel;
            let (mut steering, word) = elastic::Steering::at_start(&k, stop);
            if word != 0 {
                self.queue_resize(word)?;
            }
            if let Some(p) = self.pools.as_mut() {
                p.parks_dirty = true;
            }
            self.launch(&launch)?;
            self.wait(launch.warps, stop, Some((&mut steering, &k)))?;
            return self.end_segment::<P, T>(launch, &steering, t0);
        }
        let t1 = Instant::now();
        // The setup, the kernel and the readback behind it (a one-GPU run ends here, so its
        // readback can follow the kernel on the device), as one replayed graph.
        self.launch_replayed::<T>(&mut launch)?;
        let t2 = Instant::now();
        self.wait(launch.warps, stop, None)?;
        let t3 = Instant::now();
        let end = self.finish::<P, T>(launch)?;
        let mut stats = end.stats;
        stats.elapsed = t0.elapsed();
        stats.host = HostPhases {
            setup: t1 - t0,
            launch: t2 - t1,
            wait: t3 - t2,
            readback: stats.elapsed.saturating_sub(t3 - t0),
        };
        match end.output {
            Some(out) => Ok(Segment::Done(out, stats)),
            None => Err(Error::Protocol {
                task: T::NAME,
                detail: "the GPU workers exited before the root task finished",
            }),
        }
    }

    /// Everything of a run up to the launch: the kernel, the pools, the params and control
    /// block, the root's slot (on GPU 0 of the run), queued on the run stream.
    pub(super) fn prepare<P: Program, T: TaskFn>(
        &mut self,
        args: T::Args,
        stride: usize,
        part: Part,
    ) -> Result<Launch> {
        if self.lost() {
            return Err(Error::ContextLost);
        }
        self.bind()?;
        // A new run abandons a paused one; blocks that rejoined the last run have exited
        // (it ended), but their streams are synchronized before anything is reset.
        self.paused = None;
        self.wait_rejoins()?;
        if size_of::<T::Args>() > stride || size_of::<T::Output>() > ROOT_RESULT_BYTES {
            return Err(Error::Protocol {
                task: T::NAME,
                detail: "root arguments or result larger than the frame",
            });
        }
        let k = self.kernel::<P>(part.gpus > 1)?;
        let warps = k.grid * k.workers_per_block;

        if part.gpus > 1 && warps < 2 {
            // The last warp of each GPU of a multi-GPU run is its courier and runs no tasks.
            return Err(Error::InvalidConfig {
                field: "grid",
                value: format!("{warps} warp on GPU {} of a multi-GPU run", part.gpu),
                expected: "at least 2 warps on each GPU (one is the GPU's courier): a larger grid, or fewer partitions",
            });
        }
        // Work-first pools (one per warp, block-level workers' warps included) under the
        // default scheduler.
        let wf = self.config.scheduler == Scheduler::WorkFirst;
        let (stride, block_frame_stride, shape) = if P::HAS_BLOCK {
            let (shared, per_thread) = probe::block_strides::<P>(self.config.task_data_limit)?;
            let frames = shared.max(per_thread * k.block as usize);
            if wf {
                // Each warp of a block has a pool; each block deques of `tasks_per_block`
                // entries (`WF_BLOCK_QUEUE_ENTRIES` by default).
                let entries = self
                    .config
                    .tasks_per_block
                    .unwrap_or(WF_BLOCK_QUEUE_ENTRIES);
                let pool_warps = warps * (k.block / 32);
                // A joining block-level kind's record holds a frame per thread: the fresh
                // range each warp starts with takes at most half of the task memory (from
                // WF_INITIAL_SLOTS down to 16 records).
                let slot_bytes = slot_bytes(frames);
                let slots = self.wf_pool_bytes()? / slot_bytes;
                let n = (slots / (2 * pool_warps as usize)).clamp(16, WF_INITIAL_SLOTS as usize);
                let shape = PoolShape {
                    workers: warps,
                    pool_warps,
                    n: n as u32,
                    queues: 2,
                    queue_entries: entries,
                    wf,
                    multi: false,
                    record_bytes: 0,
                };
                (frames, per_thread, shape)
            } else {
                let n = match self.config.tasks_per_block {
                    Some(n) => n,
                    // The pools of the last run when their shape fits (the free memory the
                    // sizing sees does not count them).
                    None => match &self.pools {
                        Some(p)
                            if p.warps == warps
                                && p.queues == 2
                                && p.slot_bytes as usize == slot_bytes(frames) =>
                        {
                            p.n
                        }
                        _ => auto_tasks_per_block(warps, frames)?,
                    },
                };
                (frames, per_thread, PoolShape::per_worker(warps, n, 2, n))
            }
        } else if wf {
            let shape = PoolShape {
                workers: warps,
                pool_warps: warps,
                n: WF_INITIAL_SLOTS,
                queues: self.config.queues,
                queue_entries: self.config.tasks_per_warp,
                wf,
                multi: part.gpus > 1,
                record_bytes: part.record_bytes,
            };
            (stride, 0, shape)
        } else {
            let n = self.config.tasks_per_warp;
            (
                stride,
                0,
                PoolShape::per_worker(warps, n, self.config.queues, n),
            )
        };
        self.pools(stride, shape)?;
        let pools = self.pools.as_ref().ok_or(Error::Protocol {
            task: T::NAME,
            detail: "no pools",
        })?;
        let w = warps as usize;
        let root_slot = pools.pool_warps * pools.n;
        let stats_dev = pools.stats;
        let profile = ProfileRegion::new(w, self.config.profile_records)?;
        // Sequential clones (`gpu/worker/clone.rs`): the stack left to them below the
        // kernel's own frame and a reserve for the frames of what a body calls besides
        // clones; none when that is too little to be worth it, or where the kernel runs none.
        let clone_stack = if k.clones && pools.cells != 0 {
            let left = self
                .config
                .stack_bytes
                .saturating_sub(k.local_bytes + CLONE_STACK_RESERVE);
            if left >= CLONE_STACK_RESERVE {
                left
            } else {
                0
            }
        } else {
            0
        };
        let params = Params {
            slots: pools.slots,
            slot_bytes: pools.slot_bytes,
            tasks_per_warp: pools.n,
            free_rings: pools.free_rings,
            free_pos: pools.free_pos,
            ring_cap: pools.ring_cap,
            queues: pools.queues,
            deques: pools.deques,
            deque_rings: pools.deque_rings,
            queue_cap: pools.queue_cap,
            num_warps: warps,
            progress: pools.progress,
            stats: pools.stats,
            control: self.control,
            error: self.error_dev,
            root_slot,
            max_children: self.config.max_children,
            profile: profile.records,
            profile_counts: profile.counts,
            profile_cap: self.config.profile_records,
            single_claims: u32::from(!self.config.batched_claims),
            block_frame_stride: block_frame_stride as u32,
            gq_cap: pools.gq_cap,
            scratch: pools.scratch,
            gq_headers: pools.gq_headers,
            gq_rings: pools.gq_rings,
            free_stacks: pools.free_stacks,
            spill: pools.spill,
            spill_ring: pools.spill_ring,
            stack_cap: WF_STACK_CAP,
            spill_cap: pools.spill_cap,
            total_slots: pools.total_slots,
            chunk: pools.n,
            release_below: self.config.release_below,
            release_other_below: self.config.release_other_below,
            // Validated: at most 4 s.
            spread_after_ns: self.config.spread_after.as_nanos() as u32,
            release_size: layout::release_size(
                self.config.release_shift,
                self.config.release_all_below,
            ),
            inline_steps: self.config.inline_steps,
            inline_last_child: u32::from(self.config.inline_last_child),
            idle_max_ns: self.config.idle_max_ns,
            steal_tries: self.config.steal_tries,
            lane_frees: pools.lane_frees,
            // Thread-level programs only (see `Params::overflow_spills`).
            overflow_spills: u32::from(!P::HAS_BLOCK),
            gpus: part.gpus,
            gpu: part.gpu,
            replica_offset: self.replica_offset,
            peers: self.peers,
            imports: pools.imports,
            parks: pools.parks,
            block_base: 0,
            resume: 0,
            run: self.params,
            clones: u32::from(clone_stack > 0),
            clone_depth: self.config.clone_depth_for(warps * 32),
            clone_stack,
            hand_offs: u32::from(self.config.gpu_hand_offs),
            wanted: pools.wanted,
            cells: pools.cells,
        };
        self.run_params = params;
        let control = Control {
            live: 1,
            // A run of a program without joins on several GPUs counts the root on the first.
            live_here: u64::from(part.gpu == 0),
            // The first GPU of a run on several starts with a standing request for work, so
            // that the root's children go to the other GPUs before local thieves take them
            // (`layout::SPLIT_START_REQUEST`). Not between partitions of one GPU, which
            // share its SMs: the split adds no SMs there.
            hungry: if part.gpus > 1
                && part.gpu == 0
                && self.share == 1
                && self.config.split_start
                && self.config.spread_after.is_zero()
            {
                layout::SPLIT_START_REQUEST
            } else {
                0
            },
            ..Control::default()
        };
        let spill = SpillHeader {
            arena_next: root_slot + 1,
            ..SpillHeader::default()
        };
        // The root's record: its header, then the arguments at the frame's offset 0. The rest
        // of the frame is not written: a frame is never assumed zeroed (slots are reused
        // without it), and its task data is written before it is read.
        let root_bytes = (HEADER_BYTES as usize + size_of::<T::Args>()).next_multiple_of(16);
        let header = Header {
            kind: T::ID,
            parent: NONE,
            result_dst: self.root_result,
            ..Header::default()
        };
        let root_addr = pools.slots + u64::from(root_slot) * u64::from(pools.slot_bytes);
        let s = self.stream;
        if self.setup_pending {
            // A setup queued before (a run stopped before its launch, a failed prepare) may
            // still be copying from the staging region.
            // SAFETY: a valid stream.
            check("cuStreamSynchronize", unsafe {
                sys::cuStreamSynchronize(s)
            })?;
            self.setup_pending = false;
        }
        let staged = self.setup.staged(root_bytes)?;
        let upload_params = self.params_on_device.as_ref() != Some(&params);
        // SAFETY: `staged` is pinned memory of `Staged::ROOT + root_bytes` bytes that no queued
        // copy reads (`setup_pending` above); `root_bytes` >= HEADER_BYTES + size_of::<Args>()
        // and the record's start is 16-byte aligned; plain `Copy` data.
        unsafe {
            let headers = addr_of_mut!((*staged).headers);
            addr_of_mut!((*headers).control).write(control);
            addr_of_mut!((*headers).spill).write(spill);
            addr_of_mut!((*headers).queues).write(Default::default());
            addr_of_mut!((*headers).inbox).write(GlobalQueueHeader::default());
            addr_of_mut!((*staged).params).write(params);
            let root = staged.cast::<u8>().add(readback::Staged::ROOT);
            root.write_bytes(0, root_bytes);
            root.cast::<Header>().write(header);
            root.add(HEADER_BYTES as usize)
                .cast::<T::Args>()
                .write_unaligned(args);
            self.error_host.write_volatile(ErrorRecord::default());
        }
        // The setup's work, queued by `queue_setup` or replayed with the rest of the run
        // (`replay.rs`). Every region was allocated with these sizes; the staged sources are
        // pinned and are not written again before the stream passes these copies
        // (`setup_pending`).
        let mut setup = Ops::new();
        let memset = |dst, value, words| Op::Memset { dst, value, words };
        if pools.inbox != 0 {
            let entries = if pools.inbox_dirty {
                pools.inbox_cap as usize
            } else {
                0
            };
            let header = size_of::<GlobalQueueHeader>() / 4;
            setup.push(memset(pools.inbox, 0, header + entries));
            setup.push(memset(
                pools.imports,
                0,
                imports_bytes(pools.import_entries) / 4,
            ));
        }
        if pools.parks_dirty {
            setup.push(memset(pools.parks, 0, w * PARK_WORDS as usize));
        }
        if pools.wf {
            if pools.spill_dirty {
                setup.push(memset(pools.spill_ring, 0, pools.spill_cap as usize));
            }
        } else {
            setup.push(memset(pools.free_rings, 0, w * pools.ring_cap as usize));
            setup.push(memset(pools.free_pos, pools.n, w));
        }
        // The ablation's rings every run (as before); the overflow queues' when the last run
        // left entries.
        if pools.gq_rings != 0 && (!pools.wf || pools.gq_dirty) {
            let q = gq_rings(pools.queues, pools.inbox != 0) as usize;
            setup.push(memset(pools.gq_rings, 0, q * pools.gq_cap as usize));
        }
        // The deque headers, progress counters and statistics (one allocation).
        setup.push(memset(pools.deques, 0, pools.zeroed_words));
        // The control block, the spill header and the queue headers (the run block).
        // SAFETY: field addresses within the staged region (reserved above), nothing read.
        let (headers_src, params_src, root_src) = unsafe {
            (
                addr_of_mut!((*staged).headers).cast::<c_void>(),
                addr_of_mut!((*staged).params).cast::<c_void>(),
                staged
                    .cast::<u8>()
                    .add(readback::Staged::ROOT)
                    .cast::<c_void>(),
            )
        };
        setup.push(Op::Upload {
            dst: self.run_block,
            src: headers_src,
            bytes: readback::SETUP_BYTES,
        });
        if upload_params {
            setup.push(Op::Upload {
                dst: self.params,
                src: params_src,
                bytes: size_of::<Params>(),
            });
            self.params_on_device = Some(params);
        }
        if part.gpu == 0 {
            setup.push(Op::Upload {
                dst: root_addr,
                src: root_src,
                bytes: root_bytes,
            });
        }
        Ok(Launch {
            kernel: k,
            warps,
            stats_dev,
            profile,
            setup,
            readback_queued: false,
        })
    }

    /// What this GPU tells the others of a multi-GPU run (after [`Inner::prepare`]).
    pub(super) fn peer_info(&self) -> PeerInfo {
        let p = self.pools.as_ref();
        PeerInfo {
            control: self.control,
            slots: p.map_or(0, |p| p.slots),
            gq_headers: p.map_or(0, |p| p.gq_headers),
            gq_rings: p.map_or(0, |p| p.gq_rings),
            inbox: p.map_or(0, |p| p.inbox),
            gq_cap: p.map_or(0, |p| p.gq_cap),
            inbox_cap: p.map_or(0, |p| p.inbox_cap),
        }
    }

    /// Queues the peer table of a multi-GPU run on the run stream (before the launch).
    pub(super) fn write_peers(&self, table: &[PeerInfo]) -> Result<()> {
        self.bind()?;
        // SAFETY: the table region holds MAX_GPUS entries (table.len() <= MAX_GPUS); the
        // pageable source is staged before the call returns.
        check("cuMemcpyHtoDAsync", unsafe {
            sys::cuMemcpyHtoDAsync_v2(
                self.peers,
                table.as_ptr().cast(),
                size_of_val(table),
                self.stream,
            )
        })
    }

    /// After the kernel exited: what it left. `output` is the root's result (GPU 0 of a run,
    /// when the root finished); the error is the one this GPU recorded.
    pub(super) fn finish<P: Program, T: TaskFn>(
        &mut self,
        mut l: Launch,
    ) -> Result<Finished<T::Output>> {
        self.queue_readback::<T>(&mut l)?;
        let Launch {
            kernel: k,
            warps,
            profile,
            ..
        } = l;
        let w = warps as usize;
        let s = self.stream;
        // Reserved by `queue_readback` at these sizes: the same regions.
        let hp = self.readback.headers()?;
        let sp = self.readback_stats.stats(w)?;
        let wf = self.pools.as_ref().filter(|p| p.wf);
        let queues = wf.map_or(0, |p| gq_rings(p.queues, p.inbox != 0) as usize);
        let mut kernel_ms = 0f32;
        // SAFETY: a valid stream and the run's timing events.
        unsafe {
            check("cuStreamSynchronize", sys::cuStreamSynchronize(s))?;
            check(
                "cuEventElapsedTime",
                sys::cuEventElapsedTime_v2(&raw mut kernel_ms, self.start, self.end),
            )?;
        }
        // The setup's copies ran before the kernel.
        self.setup_pending = false;
        // SAFETY: written by the copies above, complete after the synchronization.
        let h = unsafe { &*hp };
        let ctl = h.control;
        if let Some(p) = self.pools.as_mut().filter(|p| p.wf) {
            // Entries in [pop_pos, push_pos) were left in the ring by this run.
            p.spill_dirty = ctl.error != 0 || h.spill.push_pos != h.spill.pop_pos;
            // Positions reserved past the last claim hold (or will hold) entries; an error
            // may have stopped a pusher or a claimer half way.
            p.gq_dirty = ctl.error != 0 || h.queues[..queues].iter().any(|g| g.alloc != g.head);
            if p.inbox != 0 {
                p.inbox_dirty = ctl.error != 0 || h.inbox.alloc != h.inbox.head;
            }
        }
        if ctl.error != 0 {
            return Err(self.device_error::<P>());
        }
        let root_here = ctl.done != 0 && self.gpu_index == 0;
        // SAFETY: the root wrote its output (a `T::Output`) to root_result, copied above; the
        // stats region holds `w` entries.
        let (output, stats) = unsafe {
            let output = root_here.then(|| h.root.as_ptr().cast::<T::Output>().read_unaligned());
            (output, std::slice::from_raw_parts(sp, w))
        };
        let (mut steps, mut spawned, mut steals) = (0u64, 0u64, 0u64);
        for st in stats {
            steps += u64::from(st.steps);
            spawned += u64::from(st.spawned);
            steals += u64::from(st.steals);
        }
        let profile = profile.download(k.block, P::HAS_BLOCK, s)?;
        let stats = RunStats {
            backend: "gpu",
            workers: w,
            tasks: spawned + u64::from(self.gpu_index == 0),
            steps,
            steals,
            kernel_time: Some(Duration::from_secs_f64(f64::from(kernel_ms) / 1e3)),
            profile,
            gpus: 1,
            cross_steals: u64::from(ctl.import_claims),
            cross_tasks: u64::from(ctl.imported),
            cross_bytes: u64::from(ctl.imported)
                * (u64::from(self.pools.as_ref().map_or(0, |p| p.slot_bytes)) + 8),
            ..RunStats::default()
        };
        Ok(Finished {
            output,
            stats,
            control: ctl,
        })
    }
}
