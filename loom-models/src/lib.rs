//! Loom models of the work-first scheduler's release, steal, spill and join protocol
//! (`gtap-device/src/gpu/{deque,join,overflow}.rs`), checked on the host.
//!
//! The device code is PTX; these models restate it with Rust atomics so that
//! [loom](https://docs.rs/loom) can try every interleaving and every value a relaxed load may
//! return, and flag any plain access that is not ordered by happens-before. Two threads stand
//! for two warps: the *owner* (whose batch spawned the children) and a *thief*. One lane per
//! warp is modelled; the other lanes only widen the same fences.
//!
//! # Mapping to the PTX
//!
//! | device (PTX) | model |
//! |---|---|
//! | `fence.acq_rel.gpu` (`a::fence_acq_rel_gpu`) | `fence(AcqRel)` |
//! | `atom.relaxed.gpu.add` on `count` / `pending` | `fetch_add` / `fetch_sub`, `Relaxed` |
//! | `atom.relaxed.gpu.cas` on `count` (`pop_own`) | `compare_exchange`, `Relaxed` |
//! | `atom.acquire.gpu.cas` on `count` (`steal`) | the same `Relaxed` CAS (weaker, so covered) |
//! | task headers, frames, ring entries (plain `ld`/`st`) | `loom::cell::UnsafeCell` |
//! | `pending` before the mark (plain `ld`/`st`) | `AtomicU32`, `Relaxed` load and store |
//!
//! # Steps
//!
//! | step | device | model |
//! |---|---|---|
//! | spawn: frames, ring entry, `pending` | the batch's body and `reserve` (deque.rs) | `Join::spawn` |
//! | owner-only decrement | `complete_wf`, `shared == false` (join.rs) | `Join::complete_plain` |
//! | release: mark, fence, add | `Warp::release` + `mark_shared` (deque.rs) | `Join::release` |
//! | claim: CAS, fence | `steal` / `pop_own` (deque.rs), then the batch's fence | `Join::claim` |
//! | shared decrement: `is_shared`, fence, RMW | `join_wf` + `complete_wf`, `shared == true` | `Join::complete_shared` |
//! | last decrement: fence, resume | `complete_wf` (`acquired`), `reserve` | `Join::resume` |
//! | inline completion: mark and `pending == 1` test | `run_lane` + `waits_for_one` (worker/lane.rs, join.rs) | `Join::run_inline` |
//! | spill: mark, entry, fence, commit (`st.release` of `tail`) | `overflow::spill` + `GlobalQueues::commit` | `Join::spill` |
//! | refill: acquire `tail`, CAS `head`, fence, take | `overflow::overflow_refill` | `Join::refill` |
//!
//! The steal lock is left out (one thief), and so is `match.any` grouping (a leader's RMW of
//! `count` children is the same RMW as one child's).
//!
//! # Models (`cargo test -p gtap-loom-models --release`)
//!
//! - `owner_only_join`: both children private; `pending` and the results are plain data, no
//!   fence; a thief that finds `count == 0` touches nothing.
//! - `released_then_stolen`: one child kept, one released; the thief may claim it, or the
//!   owner takes it back from its own public part. Whoever completes the join reads both
//!   results. `last_child_on_thief` and `last_child_on_owner_after_thief` check that loom
//!   explored both orders of the two decrements (it counts, across executions, which side
//!   resumed the parent and which side ran the released child).
//! - `plain_then_shared`: the owner finishes one child through the plain path, then releases a
//!   sibling: the `Relaxed` load and store of `pending` (standing in for the plain phase) and
//!   the first child's result must reach whichever warp completes the join.
//! - `inline_owner_only`, `inline_rule_with_thief`: the inline rule of `worker/lane.rs`
//!   (`Warp::waits_for_one`): a finishing task completes an unmarked parent that waits for it
//!   alone in its own lane, with plain accesses; a marked one goes through the shared path.
//! - `spilled_then_refilled`: the owner spills a child to an overflow queue (`overflow.rs`);
//!   an idle warp or the owner itself refills it; whoever completes the join reads both
//!   results (all three outcomes are asserted to occur).
//! - `ring::ring_wraps_around`: the global queues' ring (the overflow queues) across a
//!   wrap-around: three tasks through a ring of two entries, each taken exactly once with its
//!   frame visible, or refused by the capacity check (the typed error); `no_stale_tail_check`
//!   is the `pop` before it read a `tail` older than its `head` as empty.
//! - `peer::exported_imported_completed`: the channels between GPUs (`peer`): an exported
//!   child imported by another GPU's courier and run by one of its workers, whose result and
//!   completion come back (worker to outbox, courier to the exporter's inbox) while the
//!   exporting GPU runs the sibling; the parent resumes once with both results.
//!   `no_outbox_release` and `no_inbox_release` leave out one hand-off's fence and release.
//! - `termination::moved_task_keeps_the_run_going`: the end of a run without joins on
//!   several GPUs (`peer`): a task moves between two GPUs three times while the first GPU's
//!   courier runs its two waves over their live counts; the run ends only after the task
//!   finished. `no_import_count`, `uncount_first` and `one_wave` leave out the import count in
//!   the words' high half, count a move at the importer after the exporter uncounted it, or
//!   end the run after one wave.
//! - `park::parked_stolen_rejoined`: leaving a run and taking it up again (`park.rs`): a warp
//!   parks with two private tasks (released, then its record saved and its flag released), a
//!   thief steals one, and the warp of the same index in a later launch acquires the flag,
//!   restores the tail and pops the rest; each task runs once with its record visible.
//!   `no_flag_release` stores the flag relaxed.
//! - `cpu_join::stolen_child_finishes_while_the_parent_helps`: the CPU executor's join of a
//!   call (`gtap-runtime/src/cpu/context.rs`): two promoted children joined on a cell, one
//!   stolen and finished by a thief while the joining worker pops and runs the other and waits
//!   for the count to reach zero; it reads both results and frees the cell. `relaxed_decrement`
//!   and `state_after_decrement` (a finishing child touching the cell after its decrement) must
//!   be rejected.
//! - `cpu_finish::last_child_known_from_the_count`: how a finishing record tells its suspended
//!   parent on the CPU executor (`worker.rs`, `finish`): a child whose Acquire load reads a
//!   count of 1 is the last without an RMW and leaves the count unwritten; two children (one
//!   stolen) finish in either order, the parent resumes once, reads both results and joins a
//!   third child whose finish must not see the stale count. `relaxed_load` must be rejected.
//! - `cpu_promote::promoted_onto_a_cell_whose_count_reached_zero`: promotion on request on the
//!   CPU executor (`gtap-runtime/src/cpu/join.rs`): a call's join has a record child on a cell
//!   and an inline child; a thief asks for work through the owner's flag and steals; the owner,
//!   seeing the flag, promotes the inline child onto the same cell, whose count the stolen
//!   child may have taken to zero already, then waits for zero, reads both results and frees
//!   the cell (the flag seen or not, both explored). `count_after_push` (the promoted record
//!   published before it is counted: a count below zero) and `relaxed_wait` must be rejected.
//! - `gpu_hand_off::handed_off_then_done_or_taken_back`: a sequential clone's hand-off on the
//!   GPU (`gtap-device/src/gpu/worker/clone.rs`): a lane writes a child task, marks its cell
//!   offered and commits the task to an overflow queue; a refilling warp claims it with a CAS
//!   and completes it (result, fence, *done* with release), or the lane takes it back with the
//!   same CAS and runs it itself; the child runs once and the lane reads its result (both
//!   outcomes explored). `relaxed_done` and `plain_claim` (a load and a store for the CAS)
//!   must be rejected.
//! - `no_*` (`#[should_panic]`): the same model with one fence left out (or, `no_mark_check`,
//!   the inline rule without its mark test); loom must report the race, so the models are known
//!   to be able to fail.

#[cfg(test)]
mod cell;
#[cfg(test)]
mod cpu_finish;
#[cfg(test)]
mod cpu_join;
#[cfg(test)]
mod cpu_promote;
#[cfg(test)]
mod deque_slot;
#[cfg(test)]
mod gpu_hand_off;
#[cfg(test)]
mod model;
#[cfg(test)]
mod park;
#[cfg(test)]
mod peer;
#[cfg(test)]
mod ring;
#[cfg(test)]
mod termination;
