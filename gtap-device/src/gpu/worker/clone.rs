//! Children as calls on a lane: a step's `task!` runs as a call of the child's sequential
//! clone ([`TaskFn::seq`], the body as written, each `task!` a call) when its warp has enough
//! ready work, and the clone's own `task!`s call clones again. A subtree run so is a
//! recursion on the lane's stack: no record, no deque entry, no join count, no batch.
//!
//! # When a child is a call
//!
//! By depth in the tree, as the CPU executor keeps its top levels as tasks: the children of
//! a task at depth [`Params::clone_depth`] or deeper (the root is at 0) are calls, unless its
//! warp was asked for work (lane 0 decides that for the batch, `thread.rs`). The kernel with
//! clones keeps each task's depth in its header's flags (`FLAG_DEPTH_SHIFT`, written by the
//! spawn, kept by the task's joins); the host picks the depth from the grid's lanes
//! (`Config::gpu_clone_depth`), so that the tree has spread over every lane, a few times
//! over, before lanes go sequential. A chain goes sequential at the same depth: its steps are
//! calls from there to the stack's floor, then lane-private records. A step queues its calls
//! ([`CallQueue`], at most 4, arguments of at most 32 bytes) and [`run_calls`] runs them when
//! the step returns: the worker loop's one call site of clone code, in the kernel
//! `gtap_thread_worker_clones_<P>` only (`gtap::kernel!(P, clones)`).
//!
//! # Inside a clone ([`LaneSeq`], this lane's [`SeqContext`])
//!
//! - Every `task!` checks its queue hint and the join's child count as a spawn would, and
//!   every [`LOOK_EVERY`] of them the lane looks at the run: a stop (a recorded error, the
//!   host's cancel, deadline or watchdog) makes the lane leave at once, as a panicking lane
//!   does (`gpu/mod.rs`: its warp leaves the loop at the batch's end), and the warp's
//!   heartbeat is raised so that the watchdog sees a long clone as progress.
//! - **Stack.** Before each call the lane compares its stack pointer with the floor
//!   [`Params::clone_stack`] bytes below where its outermost clone started (the host sizes it
//!   from `Config::stack_bytes`, less the kernel's own frame and a reserve). A child that
//!   would go below runs as lane-private records instead (`solo.rs`): never a stack fault,
//!   whatever the depth.
//! - **Requests.** An idle warp whose steals failed asks a random warp for work by setting
//!   its word in [`Params::wanted`]. At its next look, a lane in a clone of that warp takes the
//!   request (a CAS back to 0; one lane per request) and answers it with its next `task!` at
//!   nesting [`LaneSeq::answer_depth`] or less, which starts at the clone's outermost calls
//!   (the largest pieces it holds) and deepens by one each time the looks since the request
//!   double, until one comes: that child is *handed off* (unless `Config::gpu_hand_offs` is
//!   off, [`Params::hand_offs`]).
//!
//! # Hand-off ([`LaneSeq::hand_off`])
//!
//! The lane writes the child as a task (header, arguments) whose parent is its own cell
//! (`CELL_BASE + lane`, [`Cell`]), with the hand-off's generation in the header's `reserved`
//! word, marks the cell *offered*, and pushes the task on the overflow queue of its queue
//! hint, which idle warps refill from. Then it waits:
//!
//! - A warp that refills the task claims it first (`claim_handed_off`, a CAS of the cell
//!   from *offered* to *taken* with the task's generation) and runs it as any task: its
//!   children are tasks or calls by the same rule, and its header puts it
//!   [`HAND_OFF_LEVELS`] above the calls' depth, so the piece spreads over a warp's lanes
//!   before they go sequential again. When
//!   its subtree is done, its completion reaches the cell through the non-slot parent's path
//!   (`peer::finish_root` → [`finish_cell`]): the result is in the cell, then *done* with a
//!   release. The lane acquires *done* and returns the result.
//! - If nobody claimed it within [`RECLAIM_NS`], the lane takes it back (a CAS from
//!   *offered* to idle) and runs it as a call itself. The queue entry stays behind: a warp
//!   that refills it later finds the cell's generation or state changed and frees the slot.
//!
//! So a lane waits only for a child that another warp runs. A warp with a waiting lane takes
//! no work (its batch has not ended), so the warps that run handed-off children are never
//! waiting ones at the time they take them, and no cycle of waits can form. While hand-offs are
//! out, warps do not park (`park.rs`), and clones hand nothing off once a park is asked.
//!
//! # Memory model (the argument is in `docs/gpu-runtime.md`, "Children as calls")
//!
//! - Hand-off: the lane's header, frame and cell stores, then `fence.acq_rel.gpu` and the
//!   overflow queue's commit (a release of its `tail`); the refilling warp acquires the tail
//!   and fences (`overflow.rs`), so it reads the task as written, and its claim is an RMW on
//!   the cell, which the owner's reclaim, also an RMW, races with: exactly one succeeds.
//! - Completion: whoever completes the child wrote its result into the cell (program order)
//!   or acquired the writes of the subtree (the joins' acquire RMWs); it runs
//!   `fence.acq_rel.gpu` and stores *done* with release. The owner's acquire load that reads
//!   *done* synchronizes with it: the result and everything the subtree wrote happen before
//!   the clone goes on.
//! - A cell is reused only by its own lane, after it read *done* or won the reclaim; stale
//!   queue entries are told apart by the generation.

use core::marker::PhantomData;
use core::mem::{align_of, size_of, MaybeUninit};
use core::ptr::addr_of_mut;

use super::solo;
use crate::arch::nvptx as a;
use crate::gpu::global_queue::GlobalQueues;
use crate::gpu::layout::{
    depth_flags, Cell, Header, Params, CELL_BASE, CELL_DONE, CELL_IDLE, CELL_OFFERED,
    CELL_RESULT_BYTES, CELL_TAKEN, ERR_INVALID_QUEUE, ERR_TOO_MANY_CHILDREN, NONE,
};
use crate::gpu::park::park_asked_any;
use crate::gpu::warp::{stop_requested, Warp};
use crate::task::{KindId, Program, SeqContext, TaskFn};

/// Spawns inside a clone between two looks at the run and at the warp's request word.
pub(crate) const LOOK_EVERY: u32 = 64;

/// Levels of a handed-off child's subtree that run as tasks (its depth is this much less
/// than [`Params::clone_depth`]): a binary tree's five levels fill a warp's 32 lanes.
const HAND_OFF_LEVELS: u32 = 5;

/// How long a handed-off child may wait in its queue before its lane takes it back.
const RECLAIM_NS: u64 = 20_000;

/// The longest sleep between two looks at a waited-for cell.
const WAIT_MAX_NS: u32 = 1_000;

/// A lane's [`SeqContext`]: what its clones ask at each `task!` and `taskwait!`.
pub(crate) struct LaneSeq<'w, P> {
    w: &'w Warp,
    /// The lowest stack pointer at which a clone may still call another.
    stack_floor: usize,
    /// `task!`s until the next look ([`LaneSeq::look`]).
    countdown: u32,
    /// The kind whose clone runs now (errors name it).
    kind: KindId,
    /// Clone calls nested now (1 in the outermost).
    depth: u32,
    /// This lane took a request: its next `task!` at nesting `answer_depth` or less is
    /// handed off.
    answering: bool,
    answer_depth: u32,
    /// Looks since the request was taken.
    answer_looks: u32,
    /// Clone calls made (the run's task count counts them).
    calls: u32,
    /// This lane's free-array count, copied in from the lane's register and back.
    lane_free: u32,
    _program: PhantomData<P>,
}

/// Arguments of a [`CallQueue`] entry: a child whose arguments take more runs as a task.
const CALL_ARGS_WORDS: usize = 4;
/// Calls a step may queue: a step that spawns more children runs the others as tasks.
const CALL_QUEUE: usize = 4;

/// The children of one step that run as calls (`lane.rs`): queued at the `task!` with
/// copies of their arguments, called by [`run_calls`] when the step returns, before anything
/// reads their results (the step's join, or its end). The count of queued calls is the
/// lane's (`Lane::queued`, a register): nothing here is written unless a step queues a call.
pub(crate) struct CallQueue {
    kind: [MaybeUninit<KindId>; CALL_QUEUE],
    dst: [MaybeUninit<*mut u8>; CALL_QUEUE],
    args: [MaybeUninit<[u64; CALL_ARGS_WORDS]>; CALL_QUEUE],
}

impl CallQueue {
    pub(crate) const EMPTY: Self = Self {
        kind: [MaybeUninit::uninit(); CALL_QUEUE],
        dst: [MaybeUninit::uninit(); CALL_QUEUE],
        args: [MaybeUninit::uninit(); CALL_QUEUE],
    };

    /// Whether `T`'s arguments fit an entry.
    #[inline(always)]
    pub(crate) const fn fits<T: TaskFn>() -> bool {
        size_of::<T::Args>() <= size_of::<[u64; CALL_ARGS_WORDS]>()
            && align_of::<T::Args>() <= align_of::<u64>()
    }

    /// Whether a queue of `n` calls has no entry left.
    #[inline(always)]
    pub(crate) const fn full(n: u32) -> bool {
        n as usize >= CALL_QUEUE
    }

    /// Queues the call `T(args)` as entry `n`, its result for `dst` (null: discarded).
    ///
    /// # Safety
    ///
    /// Not [`CallQueue::full`]`(n)`; [`CallQueue::fits`] `T`.
    #[inline(always)]
    pub(crate) unsafe fn push<T: TaskFn>(&mut self, n: u32, dst: *mut T::Output, args: T::Args) {
        let i = n as usize;
        // SAFETY: `i` is in bounds; the entry holds `T::Args` (the caller's promise).
        unsafe { self.args[i].as_mut_ptr().cast::<T::Args>().write(args) };
        self.kind[i] = MaybeUninit::new(T::ID);
        self.dst[i] = MaybeUninit::new(dst.cast());
    }
}

/// What [`run_calls`] gives back: the lane's free-array count after the calls, and the clone
/// calls made.
pub(crate) struct CallsOut {
    pub(crate) lane_free: u32,
    pub(crate) calls: u32,
}

/// Runs the `n` calls a step queued (see [`CallQueue`]) on this lane of warp `warp` (whose
/// shared words start at `smem`), each writing its result to its destination; `lane_free` is
/// the lane's free-array count. Out of line, and the only call of a clone in the worker loop:
/// one call site keeps the loop's registers as they were (a call at every `task!` took
/// cilksort's kernel from 154 registers to 255). It takes scalars and builds its own view of
/// the warp from the run's params: a reference to the loop's view would make the loop keep
/// that view in memory, and fib's kernel went from 128 registers to 242 with one.
///
/// # Safety
///
/// The warp runs bodies (work-first kernel, one GPU, a program with joins, clones on); `n`
/// entries of `queue` were pushed, and their destinations are valid for their writes.
#[inline(never)]
pub(crate) unsafe fn run_calls<P: Program>(
    warp: u32,
    lane: u32,
    smem: a::SharedWord,
    queue: *const CallQueue,
    n: u32,
    lane_free: u32,
) -> CallsOut {
    // SAFETY: the run's params, set at the worker's start; `queue` is the caller's.
    let (p, queue) = unsafe { (&*crate::gpu::params(), &*queue) };
    let w = Warp::new(p, warp, lane, smem);
    let clone_stack = p.clone_stack as usize;
    let mut cx = LaneSeq::<P> {
        w: &w,
        stack_floor: a::stack_pointer().saturating_sub(clone_stack),
        countdown: LOOK_EVERY,
        kind: 0,
        depth: 0,
        answering: false,
        answer_depth: 0,
        answer_looks: 0,
        calls: n,
        lane_free,
        _program: PhantomData,
    };
    for i in 0..n as usize {
        // SAFETY: entries below `n` were written by `push` of a kind of `P` with a clone
        // (`spawn_task` offers only those), arguments of that kind.
        unsafe {
            let kind = queue.kind[i].assume_init();
            cx.kind = kind;
            let _ = P::dispatch_seq(
                &mut cx,
                kind,
                queue.args[i].as_ptr().cast(),
                queue.dst[i].assume_init(),
            );
        }
    }
    CallsOut {
        lane_free: cx.lane_free,
        calls: cx.calls,
    }
}

impl<P: Program> LaneSeq<'_, P> {
    /// A `task!` or `taskwait!` broke a limit: the error is recorded (the run stops) and the
    /// lane leaves, as a panicking lane does.
    #[cold]
    fn refuse(&self, code: u32, limit: u32, value: u32) -> ! {
        self.w.record_error(code, self.kind, limit, value);
        a::exit()
    }

    /// Every [`LOOK_EVERY`] `task!`s: leaves on a stop, raises the warp's heartbeat, and takes
    /// a request for work addressed to the warp, or deepens the one being answered.
    #[cold]
    #[inline(never)]
    fn look(&mut self) {
        self.countdown = LOOK_EVERY;
        let w = self.w;
        if stop_requested(w.control) {
            a::exit();
        }
        // SAFETY: the run's params, its progress words and request words.
        unsafe {
            let p = &*crate::gpu::params();
            // Ordering: relaxed, scope .gpu; a heartbeat the host watchdog samples (any
            // change counts as progress; lane 0 stores its batch count over it).
            a::atom_relaxed_gpu_add_u32((p.progress as *mut u32).add(w.warp as usize), 1);
            if self.answering {
                // Deeper by one each time the looks since the request double: the answer is
                // the first child reached at nesting `answer_depth` or less, and a lane deep
                // in a recursion reaches shallow nestings rarely; a step per look handed off
                // pieces of a few hundred calls, each worth less than its hand-off.
                self.answer_looks += 1;
                if self.answer_looks.is_power_of_two() {
                    self.answer_depth += 1;
                }
                return;
            }
            if p.hand_offs == 0 {
                return;
            }
            let word = (p.wanted as *mut u32).add(w.warp as usize);
            // Ordering: relaxed, scope .gpu; a hint from an idle warp, carrying no data (the
            // handed-off task travels through the overflow queue's release and acquire).
            let v = a::ld_relaxed_gpu_u32(word);
            if v != 0 && !park_asked_any(w.control) {
                // Ordering: relaxed, scope .gpu; one lane takes the request.
                if a::atom_relaxed_gpu_cas_u32(word, v, 0) == v {
                    self.answering = true;
                    self.answer_depth = 1;
                    self.answer_looks = 0;
                }
            }
        }
    }

    /// Whether the next `task!` is this lane's answer to a request.
    #[inline(always)]
    fn answers_here(&self) -> bool {
        self.answering && self.depth <= self.answer_depth
    }

    /// Hands `T(args)` to a hungry warp and waits for its result (see the module doc);
    /// `None` when it cannot (a result larger than a cell) or when the lane took it back.
    #[inline(never)]
    fn hand_off<T: TaskFn>(&mut self, queue: u32, args: T::Args) -> Option<T::Output> {
        if size_of::<T::Output>() > CELL_RESULT_BYTES || align_of::<T::Output>() > 8 {
            return None;
        }
        let w = self.w;
        // SAFETY: the run's params: this lane's cell, the slots, the overflow queues.
        unsafe {
            let p: &Params = &*crate::gpu::params();
            let lane_index = w.warp * 32 + w.lane;
            let cell = (p.cells as *mut Cell).add(lane_index as usize);
            let word = addr_of_mut!((*cell).word);
            let slot = w.alloc_in_body(T::ID, &mut self.lane_free);
            if slot == NONE {
                a::exit();
            }
            // Ordering: relaxed, scope .gpu; only this lane starts a hand-off on its cell, and
            // others change only its state bits, so the generation read is this lane's own.
            let generation = (a::ld_relaxed_gpu_u32(word) >> 2).wrapping_add(1) & (u32::MAX >> 2);
            let offered = generation << 2 | CELL_OFFERED;
            w.store_header(
                w.header(slot),
                Header {
                    kind: T::ID,
                    state: 0,
                    pending: 0,
                    queue: queue as u16,
                    // A depth that makes the piece's top levels tasks again: it spreads
                    // over about a warp's lanes before its children are calls.
                    flags: depth_flags(p.clone_depth.saturating_sub(HAND_OFF_LEVELS)),
                    parent: CELL_BASE + lane_index,
                    reserved: generation,
                    result_dst: addr_of_mut!((*cell).result) as u64,
                },
            );
            w.frame(slot).cast::<T::Args>().write(args);
            // Ordering: relaxed, scope .gpu; published with the task by the fence and the
            // queue's commit below.
            a::st_relaxed_gpu_u32(word, offered);
            // Ordering: relaxed, scope .gpu; a count the park path reads (`park.rs`), raised
            // before the task is published.
            a::atom_relaxed_gpu_add_u32(hand_off_count(p), 1);
            let gq = GlobalQueues::of_run();
            let pos = gq.reserve(queue, 1, w.warp, w.lane);
            if pos == NONE {
                a::exit();
            }
            gq.write(queue, pos, slot);
            // Release: the header, the frame and the cell's state before the entry's commit.
            gq.fence();
            gq.commit(queue, pos, 1);
            let started = a::globaltimer();
            let mut sleep = 32u32;
            let mut looks = 0u32;
            let out = loop {
                // Ordering: acquire, scope .gpu; pairs with `finish_cell`'s release store:
                // reading *done* makes the result and the subtree's writes visible.
                let v = a::ld_acquire_gpu_u32(word);
                if v == generation << 2 | CELL_DONE {
                    break Some(addr_of_mut!((*cell).result).cast::<T::Output>().read());
                }
                if v == offered
                    && a::globaltimer().wrapping_sub(started) > RECLAIM_NS
                    // Ordering: relaxed, scope .gpu; races with a taker's claim, one wins.
                    && a::atom_relaxed_gpu_cas_u32(word, offered, generation << 2 | CELL_IDLE)
                        == offered
                {
                    break None;
                }
                looks += 1;
                if looks % 16 == 0 {
                    if stop_requested(w.control) {
                        a::exit();
                    }
                    // Ordering: relaxed, scope .gpu; a heartbeat (see `look`).
                    a::atom_relaxed_gpu_add_u32((p.progress as *mut u32).add(w.warp as usize), 1);
                }
                a::nanosleep(sleep);
                sleep = (sleep * 2).min(WAIT_MAX_NS);
            };
            // Ordering: relaxed, scope .gpu; a count (see above).
            a::atom_relaxed_gpu_add_u32(hand_off_count(p), u32::MAX);
            out
        }
    }
}

impl<P: Program> SeqContext for LaneSeq<'_, P> {
    #[inline(always)]
    fn seq_spawn(&mut self, queue: u32, spawned: &mut u32) -> bool {
        let w = self.w;
        if queue >= w.queues {
            self.refuse(ERR_INVALID_QUEUE, w.queues, queue);
        }
        if *spawned >= w.max_children {
            self.refuse(ERR_TOO_MANY_CHILDREN, w.max_children, *spawned);
        }
        *spawned += 1;
        self.calls += 1;
        self.countdown -= 1;
        if self.countdown == 0 {
            self.look();
        }
        !self.answers_here() && a::stack_pointer() > self.stack_floor
    }

    #[inline(never)]
    fn run_task<T: TaskFn>(&mut self, queue: u32, args: T::Args) -> T::Output {
        if self.answers_here() {
            self.answering = false;
            if let Some(out) = self.hand_off::<T>(queue, args) {
                return out;
            }
            if a::stack_pointer() > self.stack_floor {
                return self.seq_call::<T>(args);
            }
        }
        // Past the stack's floor: the child and its subtree as records of this lane.
        // SAFETY: the warp runs bodies; `lane_free` is this lane's count.
        unsafe { solo::run::<P, T>(self.w, queue, args, &mut self.lane_free, &mut self.calls) }
    }

    #[inline(always)]
    fn seq_wait(&mut self, queue: u32, spawned: &mut u32) {
        if queue >= self.w.queues {
            self.refuse(ERR_INVALID_QUEUE, self.w.queues, queue);
        }
        *spawned = 0;
    }

    #[inline(always)]
    fn seq_end(&mut self, _spawned: u32) {}

    #[inline(always)]
    fn seq_call<T: TaskFn>(&mut self, args: T::Args) -> T::Output {
        let kind = self.kind;
        self.kind = T::ID;
        self.depth += 1;
        let out = T::seq(self, args);
        self.depth -= 1;
        self.kind = kind;
        out
    }

    #[inline(always)]
    fn seq_same_kind<T: TaskFn>(&self) -> bool {
        T::ID == self.kind
    }
}

impl Warp {
    /// Lane 0, at a batch's start, with clones possible: the depth from which the batch's
    /// tasks run their children as calls, `u32::MAX` for none. [`Params::clone_depth`] when
    /// the run has clones on and the warp's request word was clear when the last batch read
    /// it (`asked`). A request the private part of queue `q` can answer (its tasks are
    /// released to thieves at the batch's end, `deque.rs`) is cleared; one it cannot stays
    /// for the warp's clones. Reads the word for the next batch, so that the load's latency
    /// hides behind this batch's bodies.
    ///
    /// # Safety
    ///
    /// Lane 0 between batches; the run's params are set.
    #[inline(always)]
    pub(crate) unsafe fn batch_call_depth(&self, q: u32, asked: &mut u32) -> u32 {
        // SAFETY: the run's params and this warp's request word; lane 0's own shared words.
        unsafe {
            let p = &*crate::gpu::params();
            if p.clones == 0 {
                return u32::MAX;
            }
            // Ordering: relaxed, scope .cta; lane 0's own word.
            let ready = a::ld_shared_u32(self.sm_private(q));
            let calls = if *asked == 0 { p.clone_depth } else { u32::MAX };
            let word = (p.wanted as *mut u32).add(self.warp as usize);
            if *asked != 0 && ready > 0 {
                // Ordering: relaxed, scope .gpu; a hint (see `LaneSeq::look`).
                a::st_relaxed_gpu_u32(word, 0);
            }
            // Ordering: relaxed, scope .gpu; a hint, read a batch ahead.
            *asked = a::ld_relaxed_gpu_u32(word);
            calls
        }
    }

    /// Lane 0 of an idle warp whose steals failed, with clones possible: asks a random other
    /// warp for work by setting its request word (unless it is set already), which a lane in
    /// one of its clones answers with a hand-off (see the module doc).
    ///
    /// # Safety
    ///
    /// Lane 0; the run's params are set.
    #[inline(never)]
    pub(crate) unsafe fn ask_for_work(&self, rng: &mut u32) {
        // SAFETY: the run's params and request words.
        unsafe {
            let p = &*crate::gpu::params();
            if p.clones == 0 || p.num_warps < 2 {
                return;
            }
            *rng ^= *rng << 13;
            *rng ^= *rng >> 17;
            *rng ^= *rng << 5;
            let mut v = *rng % (p.num_warps - 1);
            if v >= self.warp {
                v += 1;
            }
            let word = (p.wanted as *mut u32).add(v as usize);
            // Ordering: relaxed, scope .gpu; a hint carrying no data (see `LaneSeq::look`);
            // read first so that an asked warp's line is not written again and again.
            if a::ld_relaxed_gpu_u32(word) == 0 {
                a::st_relaxed_gpu_u32(word, 1);
            }
        }
    }
}

/// The word that counts the hand-offs whose lanes wait: after the warps' request words.
#[inline(always)]
fn hand_off_count(p: &Params) -> *mut u32 {
    (p.wanted as *mut u32).wrapping_add(p.num_warps as usize)
}

/// Whether a lane waits for a child it handed off: warps do not park then (`park.rs`).
#[inline(always)]
pub(crate) fn hand_offs_out() -> bool {
    // SAFETY: the run's params and its hand-off count (when the run has clones).
    unsafe {
        let p = &*crate::gpu::params();
        // Ordering: relaxed, scope .gpu; a count of waits, raised before a hand-off is
        // published and lowered after its result was read; a stale value only delays a park.
        p.clones != 0 && a::ld_relaxed_gpu_u32(hand_off_count(p)) != 0
    }
}

/// The warp that refills `slot` from an overflow queue (`overflow.rs`): whether to keep it.
/// A handed-off child (its parent a cell) is kept if this claim moved its cell from
/// *offered* to *taken*, or if it was claimed before (a task that a warp spilled again);
/// one its lane took back is dropped, its slot freed.
///
/// # Safety
///
/// The refilling thread acquired the task (the queue's tail, then a fence).
#[inline(always)]
pub(crate) unsafe fn claim_handed_off(slot: u32) -> bool {
    // SAFETY: the run's params; the task's header as its pusher wrote it.
    unsafe {
        let p = &*crate::gpu::params();
        let h = (p.slots as *mut u8)
            .add(slot as usize * p.slot_bytes as usize)
            .cast::<Header>();
        let parent = (*h).parent;
        if !crate::gpu::layout::is_cell(parent) {
            return true;
        }
        claim_cell(p, slot, parent, (*h).reserved)
    }
}

/// [`claim_handed_off`] for a child whose parent is a cell.
#[cold]
#[inline(never)]
unsafe fn claim_cell(p: &Params, slot: u32, parent: u32, generation: u32) -> bool {
    // SAFETY: the cell of a lane of the grid (`parent - CELL_BASE` is below the lanes).
    unsafe {
        let word = addr_of_mut!((*(p.cells as *mut Cell).add((parent - CELL_BASE) as usize)).word);
        let offered = generation << 2 | CELL_OFFERED;
        let taken = generation << 2 | CELL_TAKEN;
        // Ordering: relaxed, scope .gpu; races with the owner's reclaim, one wins (the task
        // itself was acquired through the queue).
        let v = a::atom_relaxed_gpu_cas_u32(word, offered, taken);
        if v == offered || v == taken {
            return true;
        }
        crate::gpu::pool::spill_slot(slot);
        false
    }
}

/// A handed-off child finished with its subtree (`peer::finish_root`, for a parent that is
/// a cell): its result is in the cell; *done* tells the waiting lane.
///
/// # Safety
///
/// Called once per hand-off, by the thread that completed the child, after its result was
/// written (program order) and the subtree's writes acquired (the joins' protocol).
#[cold]
pub(crate) unsafe fn finish_cell(p: &Params, parent: u32) {
    // SAFETY: the cell of a lane of the grid.
    unsafe {
        let word = addr_of_mut!((*(p.cells as *mut Cell).add((parent - CELL_BASE) as usize)).word);
        // Release side: this thread's writes and what it acquired (cumulativity), before
        // *done*.
        a::fence_acq_rel_gpu();
        // Ordering: relaxed, scope .gpu; the cell is *taken*: only its owner reads it now.
        let v = a::ld_relaxed_gpu_u32(word);
        // Ordering: release, scope .gpu; pairs with the owner's acquire load in `hand_off`.
        a::st_release_gpu_u32(word, (v & !3) | CELL_DONE);
    }
}
