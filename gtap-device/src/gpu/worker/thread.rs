//! The thread-level persistent worker: one task per lane, a warp as the unit of scheduling.
//!
//! The protocol (deques, pools, joins, termination, errors) is described with its invariants in
//! `docs/gpu-runtime.md`; this loop follows it step by step:
//!
//! 1. **Acquire.** A warp holds up to 32 tasks (one per lane): the tasks its last batch kept,
//!    topped up from its own deque (work first: the private part, no atomic; then its public
//!    part, one CAS on `count`), or, holding nothing, half of a random victim's public part.
//! 2. **Run.** Every lane runs its task's step, and (work first) what that step leads to
//!    inline (`lane.rs`).
//! 3. **Settle.** The lanes free the finished tasks' slots (`pool.rs`) and tell their parents
//!    (`join.rs`): warp-local bookkeeping for a join that never left the warp, the
//!    device-scope protocol for a shared one.
//! 4. **Publish.** The warp keeps the newest 32 new tasks to run next; the rest stay private
//!    (work first) until the release policy makes some public (`deque.rs`), or spills them
//!    (`overflow.rs`). The ablations publish every batch: `SHARED` (GTaP's protocol: a fence
//!    and an add to `count`) and `GLOBAL` (one FIFO queue per EPAQ index).
//!
//! Programs without joins free a task as soon as its body returns and count live tasks in one
//! device word. Errors are recorded once (first writer wins) and make every warp leave its
//! loop; a parked warp (`park.rs`) leaves it between batches with its state saved.

use core::ptr::addr_of_mut;

use super::lane::{run_lane, INLINE_MAX_TASKS};
use super::{next_idle_ns, push_staged, STOP_CHECK_EVERY};
use crate::arch::nvptx as a;
use crate::gpu::global_queue::GlobalQueues;
use crate::gpu::layout::{Params, WarpStats, NONE};
use crate::gpu::overflow::{OVERFLOW_IDLE_NS, SERVED};
use crate::gpu::park::{LEAVE_PARK, LEAVE_STOP};
use crate::gpu::profile::WarpProf;
use crate::gpu::warp::{Warp, FULL};
use crate::task::Program;

/// The body of `gtap_thread_worker_<Program>` (`PROFILE = false`) and
/// `gtap_thread_worker_profiled_<Program>` (`PROFILE = true`, writes a [`BatchRecord`] per batch
/// to `params.profile`): runs the task tree rooted at `params.root_slot`. Profiling is a
/// compile-time switch, so the unprofiled kernel contains none of its code.
///
/// # Safety
///
/// Launched by the host runtime with `params` pointing to a [`Params`] whose regions are
/// allocated and reset as `layout.rs` describes, a block size that is a multiple of 32,
/// `smem_per_warp_of(queues, PROFILE)` bytes of dynamic shared memory per warp, and every block
/// resident.
#[inline(always)]
pub unsafe fn thread_worker<
    P: Program,
    const PROFILE: bool,
    const GLOBAL: bool,
    const SHARED: bool,
    const MULTI: bool,
>(
    params: *const Params,
) {
    // SAFETY: forwarded.
    unsafe { worker::<P, PROFILE, GLOBAL, SHARED, MULTI, false>(params) }
}

/// The body of `gtap_thread_worker_clones_<Program>`: the work-first loop whose lanes may run
/// children as calls of their sequential clones (`clone.rs`; `Config::gpu_clones`). A kernel
/// of its own: the call of clone code in its loop costs registers (fib's kernel 242 against
/// 128), which the kernels of runs without clones must not pay.
///
/// # Safety
///
/// As for [`thread_worker`], with the params' clone fields set (`Params::clones`).
#[inline(always)]
pub unsafe fn thread_worker_clones<P: Program>(params: *const Params) {
    // SAFETY: forwarded.
    unsafe { worker::<P, false, false, false, false, true>(params) }
}

/// [`thread_worker`] and [`thread_worker_clones`]: `CLONES` compiles the calls of clones in.
#[inline(always)]
unsafe fn worker<
    P: Program,
    const PROFILE: bool,
    const GLOBAL: bool,
    const SHARED: bool,
    const MULTI: bool,
    const CLONES: bool,
>(
    params: *const Params,
) {
    // The work-first scheduler (private deque parts, warp-local joins and pools) unless one of
    // the ablations is asked for.
    let wf = !SHARED && !GLOBAL;
    // Whether warps may leave the run and take it up again (`park.rs`). The park and rejoin
    // paths raise fib's registers from 106 to 124 at the same 16 warps per SM, and made fib,
    // nqueens and UTS 2-4% faster, not slower (`docs/benchmarks.md`), so the plain kernel
    // carries them.
    let parkable = wf && !MULTI && !PROFILE;
    // Whether lanes may run children as calls of their clones (`clone.rs`; the run's
    // `Params::clones` decides): the work-first kernel on one GPU, programs with joins.
    let clones = CLONES && wf && !MULTI && P::JOINS;
    if P::HAS_BLOCK {
        // Programs with a block-level kind run on `block_worker`; never launched for them.
        return;
    }
    // SAFETY: the caller passes valid params.
    let p = unsafe { &*params };
    let lane = a::lane_id();
    let warp_in_block = a::thread_idx_x() / 32;
    // Blocks that rejoin a running run stand for blocks `block_base..` (`park.rs`).
    let block = a::block_idx_x() + if parkable { p.block_base } else { 0 };
    let warp = block * (a::block_dim_x() / 32) + warp_in_block;
    if warp >= p.num_warps {
        return;
    }
    // The run's own params (the same region in every launch of the run: `Params::run`).
    crate::gpu::set_params(if parkable {
        p.run as *const Params
    } else {
        params
    });
    let smem = a::dynamic_smem_word(
        warp_in_block * crate::gpu::layout::smem_per_warp_of(p.queues, PROFILE),
    );
    let resume = parkable && p.resume != 0;
    // Work first: slots in this lane's free array (kept across batches; see `pool.rs`).
    let mut lane_free: u32 = 0;
    if resume {
        // Out of line, before the warp view exists: a call made while the view's registers
        // are live raised fib's kernel from 106 to 122 registers.
        // SAFETY: this warp's shared words; nothing of the warp ran yet.
        match unsafe { crate::gpu::park::rejoin(p, warp, lane, smem) } {
            Some(n) => lane_free = n,
            None => return,
        }
    }
    let w = Warp::new(p, warp, lane, smem);
    if !resume && lane == 0 {
        // SAFETY: this warp's shared words (smem_per_warp(queues) bytes).
        unsafe {
            // Ordering: relaxed, scope .cta; published to the lanes by the warp barrier below.
            if wf {
                w.init_pool_wf();
            } else {
                a::st_shared_u32(smem, 0);
                a::st_shared_u32(smem.add(1), p.tasks_per_warp);
            }
            for q in 0..p.queues {
                let sq = w.sm_queue(q);
                a::st_shared_u32(sq, 0);
                a::st_shared_u32(sq.add(1), 0);
                a::st_shared_u32(sq.add(2), 0);
                a::st_shared_u32(sq.add(3), 0);
                a::st_shared_u32(w.sm_private(q), 0);
            }
        }
    }
    a::bar_warp_sync(FULL);
    if MULTI && warp == p.num_warps - 1 && p.gpus > 1 {
        // The last warp of each GPU of a multi-GPU run is its courier: it runs no tasks and
        // is the only warp that touches other GPUs' channels (`peer`).
        // SAFETY: every lane of this warp, converged; its shared words are initialized.
        unsafe { crate::gpu::peer::courier(warp, smem, P::JOINS) };
        return;
    }

    // Warp-uniform state (every lane computes the same value, or gets it from lane 0).
    let mut kept: u32 = 0;
    let mut cur_q: u32 = 0;
    // Per-lane state.
    let mut task = NONE;
    // The root starts on GPU 0 (of a multi-GPU run; `peer`).
    if warp == 0 && p.gpu == 0 && !resume {
        kept = 1;
        if lane == 0 {
            task = p.root_slot;
        }
    }
    let mut rng: u32 = (warp.wrapping_mul(2_654_435_761) ^ a::globaltimer() as u32) | 1;
    let mut idle_ns: u32 = 0;
    let mut batches: u32 = 0;
    let mut steals: u32 = 0;
    let mut steps: u32 = 0;
    let mut spawned_total: u32 = 0;
    // Work-first, programs without joins (lane 0): tasks finished minus spawned by this warp
    // and not yet subtracted from `Control::live` (never positive: see the publish step).
    let mut live_debt: i32 = 0;
    // Multi-GPU kernel, lane 0: the last request of another GPU this warp saw (`peer`).
    let mut served: u32 = 0;
    // With clones, lane 0: this warp's request word as the last batch read it (`clone.rs`).
    let mut asked: u32 = 0;
    // Why the loop ended: `LEAVE_STOP` (the run is over) or `LEAVE_PARK` (`park.rs`).
    let mut leave = LEAVE_STOP;
    // Profiler state (dead code when !PROFILE).
    let mut prof = WarpProf { written: 0 };
    if PROFILE && lane == 0 {
        // SAFETY: lane 0, once, profiled kernel.
        unsafe { WarpProf::init(&w, p, a::globaltimer()) };
    }

    // The heartbeat word the host watchdog samples, computed once (reading `p.progress` in
    // the loop put a dependent parameter load on the deque thread's path every batch).
    let heartbeat = (p.progress as *mut u32).wrapping_add(warp as usize);
    loop {
        let kept_before = kept;
        // ---- 1. Acquire: top up from the own deque, steal when holding nothing. ----
        if kept < 32 {
            let (mut base, mut got, mut q) = (0u32, 0u32, cur_q);
            if lane == 0 {
                // SAFETY: lane 0 owns the warp's deque operations.
                unsafe {
                    if wf {
                        (base, got, q) = w.pop_wf(cur_q, kept);
                    } else if kept > 0 {
                        // Top up the batch from the queue its kept tasks came from.
                        (base, got) = if GLOBAL {
                            GlobalQueues::of_run().pop(cur_q, 32 - kept)
                        } else {
                            w.pop_own(cur_q, 32 - kept)
                        };
                    } else {
                        for i in 0..w.queues {
                            q = (cur_q + i) % w.queues;
                            (base, got) = if GLOBAL {
                                GlobalQueues::of_run().pop(q, 32)
                            } else {
                                w.pop_own(q, 32)
                            };
                            if got > 0 {
                                break;
                            }
                        }
                    }
                }
            }
            got = a::shfl_sync_idx_b32(FULL, got, 0);
            base = a::shfl_sync_idx_b32(FULL, base, 0);
            q = a::shfl_sync_idx_b32(FULL, q, 0);
            let mut src_warp = warp;
            let mut stolen = false;
            if !GLOBAL && got == 0 && kept == 0 {
                let (mut v, mut sq, mut head, mut sg) = (0u32, 0u32, 0u32, 0u32);
                if lane == 0 {
                    // Work first, idle for a few rounds: the steal also refills the private
                    // part from the overflow queues when no victim had work (`overflow.rs`).
                    let refill = wf && idle_ns >= OVERFLOW_IDLE_NS;
                    // SAFETY: lane 0 owns the warp's deque operations.
                    (v, sq, head, sg) = unsafe { w.steal(&mut rng, cur_q, refill, MULTI) };
                }
                if PROFILE && lane == 0 {
                    // SAFETY: lane 0 owns this warp's profile region.
                    unsafe { (*WarpProf::rec(&w)).steal_attempts += 1 };
                }
                sg = a::shfl_sync_idx_b32(FULL, sg, 0);
                if sg > 0 {
                    v = a::shfl_sync_idx_b32(FULL, v, 0);
                    sq = a::shfl_sync_idx_b32(FULL, sq, 0);
                    head = a::shfl_sync_idx_b32(FULL, head, 0);
                    src_warp = v;
                    q = sq;
                    base = head;
                    got = sg;
                    stolen = true;
                }
            }
            if got > 0 {
                if stolen || GLOBAL {
                    // Acquire side of the victim's (or pusher's) publication: every lane,
                    // converged.
                    a::fence_acq_rel_gpu();
                }
                if lane >= kept && lane < kept + got {
                    if GLOBAL {
                        // SAFETY: a claimed position of global queue q.
                        task = unsafe {
                            GlobalQueues::of_run().take(q, base.wrapping_add(lane - kept))
                        };
                    } else {
                        let pos = base.wrapping_add(lane - kept) & (w.queue_cap - 1);
                        // SAFETY: the claimed entries [base, base + got) of that ring.
                        task = unsafe { *w.ring(src_warp, q).add(pos as usize) };
                    }
                }
                if stolen {
                    // Every lane has read its entry: release the victim's steal end.
                    a::bar_warp_sync(FULL);
                    if lane == 0 {
                        // SAFETY: we hold the victim's lock for this deque.
                        unsafe { w.unlock_victim(src_warp, q, base.wrapping_add(got)) };
                    }
                    steals += 1;
                    if PROFILE && lane == 0 {
                        // SAFETY: lane 0 owns this warp's profile region.
                        unsafe { (*WarpProf::rec(&w)).stolen = got };
                    }
                }
                cur_q = q;
                kept += got;
            }
        }

        if kept == 0 {
            // ---- Idle: stop if the run is over, otherwise back off and retry. ----
            if wf && !P::JOINS && lane == 0 && live_debt != 0 {
                // SAFETY: the control block is valid.
                unsafe { w.flush_live::<MULTI>(live_debt) };
                live_debt = 0;
            }
            let code = w.warp_leave_code(parkable);
            if code != 0 {
                leave = code;
                break;
            }
            if clones && lane == 0 {
                // SAFETY: the run's request words.
                unsafe { w.ask_for_work(&mut rng) };
            }
            a::nanosleep(idle_ns);
            idle_ns = next_idle_ns(idle_ns);
            continue;
        }
        idle_ns = 0;
        // Work-first: the public count of the queue this batch came from, for the release
        // decision after the bodies (loaded now so its latency hides behind them).
        let cur_q_hint = cur_q;
        let mut count_hint = 0;
        if wf && lane == 0 {
            // SAFETY: lane 0 owns the warp's deque operations.
            count_hint = unsafe { w.count_hint(cur_q) };
        }
        // Children as calls this batch (`clone.rs`): those of tasks at this depth or deeper,
        // unless somebody asked this warp for work.
        let mut call_depth = u32::MAX;
        if clones && lane == 0 {
            // SAFETY: lane 0 owns the warp's deque words; the run's request words.
            call_depth = unsafe { w.batch_call_depth(cur_q, &mut asked) };
        }
        let call_depth = if clones {
            a::shfl_sync_idx_b32(FULL, call_depth, 0)
        } else {
            u32::MAX
        };
        // Multi-GPU kernel: another GPU's request for work (`peer`), loaded now so that
        // its latency hides behind the bodies; the release decision exports.
        let mut request = 0u32;
        if MULTI && lane == 0 {
            // SAFETY: the control block is valid for the run.
            // Ordering: relaxed, scope .sys; a request stored by another GPU's courier (a
            // hint: the export queue's commit publishes what the export brings).
            request = unsafe { a::ld_relaxed_sys_u32(addr_of_mut!((*w.control).hungry)) };
        }
        if PROFILE && lane == 0 {
            // SAFETY: lane 0 owns this warp's profile region.
            unsafe {
                let r = WarpProf::rec(&w);
                (*r).run_from = a::globaltimer();
                (*r).tasks = kept;
                (*r).kept = kept_before;
            }
        }
        // Lane 0's writes to the warp's shared words (this acquire's pops and refills, the last
        // batch's publication and pool refill) before the bodies' `alloc_wf` and `reserve`
        // read them: the shuffles order the lanes' execution, not their memory accesses
        // (racecheck reported the pool's fresh range, written by `refill_wf`, without it).
        a::bar_warp_sync(FULL);
        // No acquire fence for kept or own popped tasks: they were written by this warp, and a
        // parent this warp re-enqueued through a shared join was acquired by the lane whose
        // RMW on its pending counter was the last (an acquire RMW, `join.rs`); the barrier
        // above orders that for every lane.

        // ---- 2. Run the lane's task, and (work first) what it leads to inline. ----
        let mut spawned: u32 = 0;
        let mut finished: u32 = 0;
        let mut aborted = false;
        // The lane's finished batch task (freed after the bodies) and, with joins, its parent.
        let mut to_free = NONE;
        let mut notify = false;
        let mut notify_parent = NONE;
        let mut notify_shared = false;
        // Steps run inline after the batch task's first (the profiler's count).
        let mut inlined: u32 = 0;
        if task != NONE {
            let budget = if wf && kept <= INLINE_MAX_TASKS {
                w.inline_steps
            } else {
                0
            };
            // SAFETY: a published (or kept) task's header and frame, acquired above; inline
            // tasks were made by this lane in this batch (see `run_lane`).
            let out = unsafe {
                run_lane::<P>(
                    &w,
                    task,
                    cur_q,
                    wf,
                    clones,
                    call_depth,
                    budget,
                    &mut lane_free,
                )
            };
            spawned = out.spawned;
            finished = out.finished;
            aborted = out.aborted;
            to_free = out.to_free;
            notify = out.notify;
            notify_parent = out.notify_parent;
            notify_shared = out.notify_shared;
            inlined = out.steps - 1;
            // Clone calls count as steps and spawns in the run's statistics.
            steps += out.steps + out.calls;
            spawned_total = spawned_total.wrapping_add(out.calls);
        }
        spawned_total = spawned_total.wrapping_add(spawned);
        // Release side: every lane's frame, header and ring writes, before lane 0 publishes.
        a::bar_warp_sync(FULL);
        if PROFILE {
            let batch_spawned = a::redux_sync_add_u32(FULL, spawned);
            let batch_inlined = a::redux_sync_add_u32(FULL, inlined);
            if lane == 0 {
                // SAFETY: lane 0 owns this warp's profile region.
                unsafe {
                    let r = WarpProf::rec(&w);
                    (*r).run_to = a::globaltimer();
                    (*r).spawned = batch_spawned;
                    (*r).tasks += batch_inlined;
                }
            }
        }
        if !wf {
            a::fence_acq_rel_gpu();
        }
        // A lane that aborted (an error is recorded), or that panicked and exited (the panic
        // handler, `gpu/mod.rs`: it is missing from the ballot), ends the warp's run.
        if a::vote_sync_ballot_b32(FULL, !aborted) != FULL {
            break;
        }
        let mut joins = 0;
        if wf {
            // Work-first: no fence unless a join is shared (see `join.rs`).
            // SAFETY: finished tasks' slots and parents; this lane's free array.
            unsafe {
                w.free_batch_wf(to_free);
                lane_free = w.drain_lane_frees(lane_free);
            }
            if P::JOINS {
                // SAFETY: as above.
                joins = unsafe { w.join_wf(notify, notify_parent, notify_shared) }.count_ones();
            }
        } else {
            // SAFETY: finished tasks' slots and parents (see `free_warp` and `complete`).
            unsafe { w.free_warp(to_free) };
        }
        if P::JOINS && !wf {
            // SAFETY: as above.
            let reenqueued = notify && unsafe { w.complete(notify_parent) };
            let resumed = a::vote_sync_ballot_b32(FULL, reenqueued);
            joins = resumed.count_ones();
            if resumed != 0 {
                // Re-enqueued parents' ring entries, before lane 0 publishes them.
                a::fence_acq_rel_gpu();
            }
        }

        // ---- 3. Publish: keep up to 32 new tasks, make the rest stealable. ----
        let (mut kq, mut keep, mut new_tail) = (0u32, 0u32, 0u32);
        let (mut rq, mut release) = (0u32, 0u32);
        if !P::JOINS {
            let s = a::redux_sync_add_u32(FULL, spawned);
            let f = a::redux_sync_add_u32(FULL, finished);
            if wf && lane == 0 {
                // Work-first: a warp adds what it spawned at once (before any of it can be
                // released) but lets what it finished wait (until it idles), so `live` is
                // never below the true count and reaches 0 only when every task is done.
                live_debt = live_debt.wrapping_add(s.wrapping_sub(f) as i32);
                if live_debt > 0 {
                    // SAFETY: the control block is valid.
                    unsafe { w.flush_live::<MULTI>(live_debt) };
                    live_debt = 0;
                }
            } else if lane == 0 && s != f {
                // The ablations: raised before the new tasks are published, so the count
                // reaches 0 only when no task is left.
                // SAFETY: the control block is valid.
                unsafe { w.flush_live::<MULTI>(s.wrapping_sub(f) as i32) };
            }
        }
        if lane == 0 {
            // A request of a new epoch that this warp's share serves: the release decision
            // exports (once per epoch: at the first batch that has something to give).
            let hungry = MULTI && request != served && crate::gpu::peer::serves(request, warp);
            // SAFETY: lane 0 owns the warp's shared words and deque headers.
            unsafe {
                if w.queues == 1 {
                    // One queue (every program run without EPAQ queues): the steps below
                    // without their loops over the queues, whose back edges were a measurable
                    // share of lane 0's path on fib.
                    // Ordering: relaxed, scope .cta; written by lanes before the warp barrier.
                    let g = a::ld_shared_u32(w.sm_queue(0).add(2));
                    keep = g.min(32);
                    if g > 0 {
                        new_tail = w.publish_new::<GLOBAL>(0, g, true, keep, wf);
                    }
                    if wf {
                        release = w.release_amount(0, true, cur_q_hint, count_hint, hungry);
                    }
                } else {
                    let mut best = 0u32;
                    for q in 0..w.queues {
                        // Ordering: relaxed, scope .cta; written by lanes before the warp barrier.
                        let g = a::ld_shared_u32(w.sm_queue(q).add(2));
                        if g > best {
                            best = g;
                            kq = q;
                        }
                    }
                    keep = best.min(32);
                    for q in 0..w.queues {
                        // Ordering: relaxed, scope .cta; written by lanes before the warp barrier.
                        let g = a::ld_shared_u32(w.sm_queue(q).add(2));
                        if g == 0 {
                            continue;
                        }
                        let kept_from = w.publish_new::<GLOBAL>(q, g, q == kq, keep, wf);
                        if q == kq {
                            new_tail = kept_from;
                        }
                    }
                    if wf {
                        // A ring at least half full spills instead (`overflow.rs`): the decision
                        // comes back as a release with `SPILL` set.
                        for q in 0..w.queues {
                            // Whether the next batch comes from `q`: the kept tasks' queue, else
                            // this batch's (`pop_wf` starts there).
                            let runs_next = q == if keep > 0 { kq } else { cur_q };
                            release =
                                w.release_amount(q, runs_next, cur_q_hint, count_hint, hungry);
                            if release > 0 {
                                rq = q;
                                break;
                            }
                        }
                    }
                }
                if MULTI {
                    if !hungry || release & SERVED != 0 {
                        served = request;
                    }
                    release &= !SERVED;
                }
                if wf {
                    w.refill_wf();
                }
                batches += 1;
                // Ordering: relaxed, scope .gpu; a heartbeat the host watchdog samples.
                a::st_relaxed_gpu_u32(heartbeat, batches);
            }
        }
        if GLOBAL {
            // SAFETY: the staged entries lane 0 counted above. (A warp broadcasts through a
            // shuffle: the scratch word is not touched.)
            unsafe { push_staged::<false>(&w, lane, 32, w.smem) };
        }
        if wf {
            release = a::shfl_sync_idx_b32(FULL, release, 0);
            if release > 0 {
                rq = a::shfl_sync_idx_b32(FULL, rq, 0);
                // SAFETY: `release` private entries of queue `rq`, or a spill of it (lane 0's
                // decision above).
                unsafe { w.release(rq, release) };
            }
        }
        keep = a::shfl_sync_idx_b32(FULL, keep, 0);
        task = NONE;
        if keep > 0 {
            kq = a::shfl_sync_idx_b32(FULL, kq, 0);
            new_tail = a::shfl_sync_idx_b32(FULL, new_tail, 0);
            if lane < keep {
                let pos = new_tail.wrapping_add(lane) & (w.queue_cap - 1);
                // SAFETY: entries written by this warp's lanes during the batch.
                task = unsafe { *w.ring(warp, kq).add(pos as usize) };
            }
            cur_q = kq;
        }
        if PROFILE && lane == 0 {
            // SAFETY: lane 0 owns this warp's profile region.
            unsafe {
                (*WarpProf::rec(&w)).joins = joins;
                prof.finish(&w, a::globaltimer());
            }
        }
        kept = keep;

        let check = batches % STOP_CHECK_EVERY == 0;
        if a::shfl_sync_idx_b32(FULL, u32::from(check), 0) != 0 {
            let code = w.warp_leave_code(parkable);
            if code != 0 {
                leave = code;
                break;
            }
        }
    }

    if PROFILE && lane == 0 {
        // SAFETY: lane 0 owns this warp's profile region and count.
        unsafe { prof.close(&w, p) };
    }

    // ---- Exit: per-warp counters for the host (added: a warp index may run in several
    // launches of one run, `park.rs`). ----
    let steps = a::redux_sync_add_u32(FULL, steps);
    let spawned = a::redux_sync_add_u32(FULL, spawned_total);
    if lane == 0 {
        let st = (p.stats as *mut WarpStats).wrapping_add(warp as usize);
        // SAFETY: this warp's stats entry; an earlier launch's warp of this index wrote it
        // before its park's release, which this warp's rejoin acquired.
        unsafe {
            let old = st.read();
            st.write(WarpStats {
                steps: old.steps.wrapping_add(steps),
                spawned: old.spawned.wrapping_add(spawned),
                steals: old.steals.wrapping_add(steals),
                batches: old.batches.wrapping_add(batches),
            })
        };
    }
    if parkable && leave == LEAVE_PARK {
        if !P::JOINS && lane == 0 && live_debt != 0 {
            // SAFETY: the control block is valid.
            unsafe { w.flush_live::<MULTI>(live_debt) };
        }
        // SAFETY: between batches (the loop's stop checks), converged; `kept` tasks of
        // `cur_q` are the publish step's keep.
        unsafe { w.park(kept, cur_q, lane_free) };
    }
}
