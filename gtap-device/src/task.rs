//! The contract between generated task code and the schedulers.
//!
//! `#[gtap::function] fn f(..) -> R { .. }` expands to a zero-sized marker value `f` of a marker
//! type that implements [`TaskFn`]. Its [`TaskFn::step`] is a resumable state machine: each call
//! runs the task from its current resume state to the next `taskwait!()` that has outstanding
//! children ([`Step::Suspended`]) or to its end ([`Step::Done`]). Both schedulers (the CPU
//! executor in `gtap-runtime`, the persistent kernel in [`crate::gpu`]) drive the same generated
//! code through the [`Context`] trait, and dispatch over a program's task kinds through the
//! `match` that [`program!`](crate::program) generates.
//!
//! # Task record
//!
//! A scheduler owns, per live task, a header (kind, resume state, queue after join, parent,
//! pending-children counter, result destination) and a *frame* of `stride` bytes, 16-aligned.
//! The frame is the generated task-data struct: `#[repr(C)]`, the argument tuple
//! [`TaskFn::Args`] at offset 0, then the locals that are live across some `taskwait!()` and
//! the child-result slots. Its size is known only inside the generated `step` (its field types
//! are inferred there), so a scheduler learns it by running each kind's `step` once with a
//! context whose [`Context::PROBE`] is `true`; the step then calls
//! [`Context::report_layout`] and returns [`Step::Done`] without touching the frame.
//!
//! # Protocol, as seen by a step
//!
//! 1. `state()` is 0 on first entry; after a suspension it is the `resume_state` the step passed
//!    to [`Context::wait`].
//! 2. [`Context::spawn_raw`] allocates a child and returns its frame; the step writes the
//!    arguments at offset 0 before it returns. A scheduler publishes children only after the
//!    step returns, so a child never runs before its arguments are written and the parent's
//!    bookkeeping is complete, and a result slot the step writes before suspending (a local
//!    saved at a wait that is pending on only some paths) is overwritten by the child after. A null return means a capacity was exceeded: the error is recorded
//!    and the step must return [`Step::Aborted`] at once.
//! 3. [`Context::wait`] joins the children spawned since the previous wait. With none it returns
//!    `false` and the step goes on; otherwise the step saves its live locals and returns
//!    [`Step::Suspended`]. The scheduler resumes it once every such child has finished.
//! 4. Before returning [`Step::Done`] the step writes its result to `result_dst()` unless that is
//!    null (a discarded result). Children spawned after the last wait are *detached*: the task's
//!    record stays alive until they finish, and its parent is told only then (so a join waits for
//!    whole subtrees and the root finishing means the whole run is over).
//!
//! # Memory ordering
//!
//! A child's writes (its result, and anything it wrote through user data handles) happen-before
//! the parent's continuation after the join: schedulers finish a child with a release RMW on the
//! parent's pending counter and resume the parent after an acquire.

/// Identifies a task kind: FNV-1a of the function's full path (see [`kind_id`]).
pub type KindId = u32;

/// The FNV-1a hash of `path`, used as a task function's [`KindId`].
///
/// [`program!`](crate::program) rejects a program whose kinds collide at compile time.
#[must_use]
pub const fn kind_id(path: &str) -> KindId {
    let bytes = path.as_bytes();
    let mut hash: u32 = 0x811c_9dc5;
    let mut i = 0;
    while i < bytes.len() {
        hash ^= bytes[i] as u32;
        hash = hash.wrapping_mul(0x0100_0193);
        i += 1;
    }
    hash
}

/// The [`KindId`] of one instantiation of a generic task function: FNV-1a of `base` (the
/// function's [`kind_id`]) continued over `parts`, the size and alignment of each type argument
/// and the value of each const argument. Two instantiations whose type arguments have the same
/// size and alignment (`f::<u64>`, `f::<i64>`) get the same id: [`program!`](crate::program)
/// rejects a program that lists both.
#[must_use]
pub const fn kind_id_mix(base: KindId, parts: &[u64]) -> KindId {
    let mut hash = base;
    let mut i = 0;
    while i < parts.len() {
        let bytes = parts[i].to_le_bytes();
        let mut j = 0;
        while j < bytes.len() {
            hash ^= bytes[j] as u32;
            hash = hash.wrapping_mul(0x0100_0193);
            j += 1;
        }
        i += 1;
    }
    hash
}

/// What one call of a task's state machine ended with.
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Step {
    /// The task returned; its result (if wanted) is written to `result_dst`.
    Done,
    /// The task is waiting at a `taskwait!()` for the children spawned before it.
    Suspended,
    /// A scheduler limit was hit (the context recorded which); the scheduler is draining.
    Aborted,
}

/// What [`Context::spawn_call`] did with a child.
#[must_use]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Called {
    /// It ran as a call; its result is written at the step's next wait.
    Ran,
    /// Not a call: spawn it as a task.
    Declined,
    /// A limit was exceeded (recorded): the step aborts.
    Refused,
}

/// Implemented by the marker type of every `#[gtap::function]`.
///
/// # Safety
///
/// Only `#[gtap::function]` implements this. `step` must follow the protocol in the module
/// docs, `Args` must be the argument tuple stored at offset 0 of the frame, and the frame must
/// fit the layout reported on the probe pass. A block-level kind with joins and
/// [`TaskFn::ARGS_READ_ONLY`] must never write its arguments after the spawn, must read them
/// through [`Context::args`], and must place every other field of its frame with
/// `glue::thread_field` and [`Context::copy`] (all threads get the same `frame`).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a gtap task function",
    label = "not a `#[gtap::function]`",
    note = "only functions marked `#[gtap::function]` can be spawned with `task!` or run as an entry; call ordinary functions directly"
)]
pub unsafe trait TaskFn: Copy + 'static {
    /// The argument tuple, in declaration order.
    type Args: Copy;
    /// The return type (`()` for unit tasks).
    type Output: Copy;
    /// This kind's identifier within any program.
    const ID: KindId;
    /// The function's name, for error messages.
    const NAME: &'static str;
    /// Whether the function contains a `taskwait!()`.
    const JOINS: bool;
    /// The kinds this function spawns (may contain duplicates).
    const CALLEES: &'static [KindId];
    /// Whether the task runs on a whole thread block (`#[gtap::function(block)]`) rather than
    /// on one thread. See [`crate::block`] for what a block-level body may do.
    const BLOCK: bool = false;
    /// Whether no step of the task writes its arguments (`args`) after the spawn: no `mut`
    /// parameter is kept across a `taskwait!()`. The threads of a joining block-level task
    /// then all read the arguments the spawner wrote ([`Context::args`]) instead of a copy
    /// each, and keep their other fields field by field ([`Context::copy`]; see the trait's
    /// safety section). `false` (a whole copy of the frame per thread) is always sound.
    const ARGS_READ_ONLY: bool = false;
    /// Where the function is written, for naming the task that panicked on the GPU (whose
    /// panic handler knows only the location).
    const SOURCE: Source = Source::UNKNOWN;

    /// Runs the task from its current resume state; see the module docs.
    ///
    /// # Safety
    ///
    /// `ctx.frame()` must point to a frame of this kind: at least as large and as aligned as the
    /// probe reported, holding `Args` at offset 0 on first entry and the state this step saved
    /// on later entries. `ctx.result_dst()` is null or valid for a write of `Output`.
    unsafe fn step<C: Context>(ctx: &mut C) -> Step;

    /// Whether [`TaskFn::seq`] is the function's sequential clone (thread-level functions,
    /// release builds).
    const HAS_SEQ: bool = false;

    /// The sequential clone: the function's body as a plain function, each `task!(f(..))` a
    /// call of [`crate::glue::seq_task`] (which runs `f`'s clone at once, or `f` as a task
    /// when the executor says so) and each `taskwait!()` a call of [`crate::glue::seq_wait`].
    /// The CPU executor runs it for a child that nobody is waiting to steal, the GPU's lanes
    /// for a child while their warp has enough ready work (`gpu/worker/clone.rs`). Only
    /// called when [`TaskFn::HAS_SEQ`].
    fn seq<S: SeqContext>(cx: &mut S, args: Self::Args) -> Self::Output {
        let _ = (cx, args);
        unreachable!("a task function without a sequential clone was run as one")
    }
}

/// What a sequential clone ([`TaskFn::seq`]) asks of the executor that runs it, at its
/// `task!`s and `taskwait!`s: the CPU executor's worker, or a GPU lane.
pub trait SeqContext {
    /// At a `task!(queue = queue, f(..))`, the `spawned`-th since the last join: checks the
    /// queue and the spawn count and adds the task to `spawned` (the executor counts tasks a
    /// join at a time, [`SeqContext::seq_wait`] and [`SeqContext::seq_end`]). Returns whether
    /// the child may run as its clone (`false`: [`SeqContext::run_task`] runs it as a task).
    /// Does not return when the run has failed or this spawn is refused (it unwinds to the
    /// executor).
    fn seq_spawn(&mut self, queue: u32, spawned: &mut u32) -> bool;

    /// Runs `T(args)` as a task (its state machine, whose children the executor may hand to
    /// idle workers) and returns its result once its whole subtree finished.
    fn run_task<T: TaskFn>(&mut self, queue: u32, args: T::Args) -> T::Output;

    /// At a `taskwait!(queue = queue)`: checks the queue, counts the `spawned` tasks since the
    /// last join and restarts the spawn count. Does not return when the run has failed (it
    /// unwinds to the executor).
    fn seq_wait(&mut self, queue: u32, spawned: &mut u32);

    /// After a clone's body returned: counts the `spawned` tasks it made after its last join
    /// (detached ones).
    fn seq_end(&mut self, spawned: u32);

    /// Runs `T`'s clone on `args` and returns its result: the executor's bookkeeping around
    /// the call (a panic is reported against the innermost kind that was running).
    fn seq_call<T: TaskFn>(&mut self, args: T::Args) -> T::Output;

    /// Whether `T`'s clone may be called directly, without [`SeqContext::seq_call`]'s
    /// bookkeeping: `T` is the function running now (a clone calling itself).
    fn seq_same_kind<T: TaskFn>(&self) -> bool;
}

/// The lines of a source file that a task function spans (`file!()` as the crate was
/// compiled, the first and last line of the function).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Source {
    /// The file, as `file!()` gives it.
    pub file: &'static str,
    /// The function's first line (its name).
    pub first_line: u32,
    /// The function's last line (the body's closing brace).
    pub last_line: u32,
}

impl Source {
    /// Not known (hand-written task functions).
    pub const UNKNOWN: Source = Source {
        file: "",
        first_line: 0,
        last_line: 0,
    };

    /// Whether `line` of `file` lies in this span; `file` may be a path's end (the GPU keeps
    /// the last bytes of a long path) or a longer form of the same path (`file!()` is
    /// relative or absolute depending on how the crate was compiled). A file a build script
    /// generated (`include!(concat!(env!("OUT_DIR"), ..))`) is the same file when the paths
    /// agree after the output directory: the device build (`gtap-build`, in a target
    /// directory of its own) gives it another `OUT_DIR` than the host build that reads the
    /// panic.
    #[must_use]
    pub fn contains(&self, file: &str, line: u32) -> bool {
        let same_generated = match (after_out_dir(self.file), after_out_dir(file)) {
            (Some(a), Some(b)) => a == b,
            _ => false,
        };
        !self.file.is_empty()
            && !file.is_empty()
            && (self.file.ends_with(file) || file.ends_with(self.file) || same_generated)
            && (self.first_line..=self.last_line).contains(&line)
    }
}

/// The part of `path` after a build script's output directory (`.../<package>-<hash>/out/`),
/// or `None` when it lies in none.
fn after_out_dir(path: &str) -> Option<&str> {
    let at = path.rfind("/out/").or_else(|| path.rfind("\\out\\"))?;
    Some(&path[at + "/out/".len()..])
}

/// The [`Source`] of the task function `f`.
#[must_use]
pub const fn source_of<T: TaskFn>(_: &T) -> Source {
    T::SOURCE
}

/// Implemented by a task function's marker type for its argument count `N`, so that a `task!`
/// with the wrong number of arguments is reported in these words.
#[diagnostic::on_unimplemented(
    message = "`{Self}` does not take {N} argument(s)",
    label = "wrong number of arguments for this task function",
    note = "`task!(f(..))` must pass exactly the parameters `f` declares"
)]
pub trait Arity<const N: usize>: TaskFn {}

/// The scheduler side of the contract, implemented by each scheduler for the task it is running.
///
/// # Safety
///
/// Implementations must uphold the protocol in the module docs: frames handed out are valid,
/// 16-aligned and at least as large as every kind's reported layout; a suspended task is resumed
/// exactly once, after all children it waits for have finished, with release/acquire ordering.
pub unsafe trait Context {
    /// `true` only on the layout probe pass (see the module docs).
    const PROBE: bool = false;

    /// The resume state of the running task: 0 on first entry.
    fn state(&self) -> u32;

    /// The running task's frame.
    fn frame(&self) -> *mut u8;

    /// The frame whose `args` the running task reads: [`Context::frame`], except on the
    /// threads of a block-level task whose kind has [`TaskFn::ARGS_READ_ONLY`], which all read
    /// the copy the spawner wrote. Only block-level steps call it.
    fn args(&self) -> *mut u8 {
        self.frame()
    }

    /// `(t, n)`: the running thread's copy and the number of copies of a joining block-level
    /// task's per-thread fields, laid out field by field (`glue::thread_field`). `(0, 1)`
    /// (one copy, the struct itself) everywhere else. Only block-level steps whose kind has
    /// [`TaskFn::ARGS_READ_ONLY`] call it.
    fn copy(&self) -> (u32, u32) {
        (0, 1)
    }

    /// Where the running task writes its result; null when the result is discarded.
    fn result_dst(&self) -> *mut u8;

    /// Allocates a child task of `kind` whose result goes to `result_dst` (null: discarded) and
    /// returns its frame, where the caller writes the arguments before the step returns. Null
    /// when a capacity or the queue index is exceeded; the error is recorded.
    ///
    /// # Safety
    ///
    /// `result_dst` is null or valid for a write of the child's output until the child finishes.
    unsafe fn spawn_raw(&mut self, kind: KindId, queue: u32, result_dst: *mut u8) -> *mut u8;

    /// Offers the child `T(args)` to run at once as a call of `T`'s sequential clone
    /// ([`TaskFn::seq`], which the caller checked `T` has): [`Called::Ran`] when it ran, its
    /// result kept until the step's next [`Context::wait`] writes it to `result_dst` (the
    /// step may write that slot itself before the wait, as it may before a child task
    /// finishes); [`Called::Declined`] to spawn it as a task instead; [`Called::Refused`]
    /// when a limit was exceeded (the error is recorded and the step must return
    /// [`Step::Aborted`]). The default declines: the CPU executor runs its children at the
    /// wait instead (`spawn_raw`), a block's threads never call.
    ///
    /// # Safety
    ///
    /// `result_dst` is null or valid for a write of `T::Output` until the step's next wait.
    #[inline(always)]
    unsafe fn spawn_call<T: TaskFn>(
        &mut self,
        queue: u32,
        result_dst: *mut T::Output,
        args: T::Args,
    ) -> Called {
        let _ = (queue, result_dst, args);
        Called::Declined
    }

    /// Joins the children spawned since the last wait: `false` when they are done (there were
    /// none, or the executor ran them before returning, as the CPU executor runs children as
    /// calls) and the step goes on at `resume_state` at once, reading back what it saved;
    /// `true` when the step must return [`Step::Suspended`]; it will be resumed in
    /// `resume_state`, on EPAQ queue `queue`. Whatever the step needs after the join is saved
    /// in its frame before the call.
    fn wait(&mut self, resume_state: u32, queue: u32) -> bool;

    /// Records that the running kind's frame needs `size` bytes aligned to `align` (probe only).
    fn report_layout(&mut self, size: usize, align: usize);

    /// Records that `kind` is not part of the running program; the scheduler aborts the run.
    fn unknown_kind(&mut self, kind: KindId) -> Step;
}

/// `$p::$table[i]` for the `i` with `$p::KINDS[i] == $kind`, else `$default`: one column of a
/// [`Program`]'s per-kind tables. A macro rather than a function so that every lookup compiles
/// to the loop it always was (a shared helper changed the block kernels' PTX).
macro_rules! per_kind {
    ($p:ident, $table:ident, $kind:expr, $default:expr) => {{
        let mut i = 0;
        while i < $p::KINDS.len() {
            if $p::KINDS[i] == $kind {
                return $p::$table[i];
            }
            i += 1;
        }
        $default
    }};
}

/// A set of task functions that can run together: generated by [`program!`](crate::program).
///
/// # Safety
///
/// `dispatch` must call the `step` of the kind whose [`TaskFn::ID`] is `kind`, and `KINDS`
/// must list exactly the kinds `dispatch` knows.
pub unsafe trait Program: Copy + 'static {
    /// The kinds of this program, in the order they were listed.
    const KINDS: &'static [KindId];
    /// Their names, in the same order.
    const NAMES: &'static [&'static str];
    /// Their sources, in the same order.
    const SOURCES: &'static [Source] = &[];
    /// Whether any function of the program contains a `taskwait!()`.
    const JOINS: bool;
    /// Per kind, in the order of [`Program::KINDS`]: whether it is block-level.
    const BLOCKS: &'static [bool];
    /// Per kind, in the order of [`Program::KINDS`]: whether it contains a `taskwait!()`.
    const KIND_JOINS: &'static [bool];
    /// Per kind, in the order of [`Program::KINDS`]: [`TaskFn::ARGS_READ_ONLY`].
    const KIND_ARGS_READ_ONLY: &'static [bool];
    /// Whether any kind of the program is block-level: such a program runs on block-level
    /// workers (which also run its thread-level kinds, one per thread).
    const HAS_BLOCK: bool;

    /// Runs one step of the running task, whose kind is `kind`.
    ///
    /// # Safety
    ///
    /// As for [`TaskFn::step`] of that kind.
    unsafe fn dispatch<C: Context>(ctx: &mut C, kind: KindId) -> Step;

    /// [`Program::dispatch`] with each kind's step out of line (one function per kind instead
    /// of every step inlined into the caller): for a loop that runs steps rarely, where a
    /// copy of every step would only cost compile time (the GPU lane's records past its
    /// clone's stack, `gpu/worker/solo.rs`).
    ///
    /// # Safety
    ///
    /// As for [`Program::dispatch`].
    unsafe fn dispatch_outlined<C: Context>(ctx: &mut C, kind: KindId) -> Step;

    /// Runs the sequential clone of `kind` with the arguments at `args` and writes its result
    /// to `result_dst` (unless null); `false`, without running anything, when `kind` has no
    /// clone ([`TaskFn::HAS_SEQ`]) or is not in the program.
    ///
    /// # Safety
    ///
    /// `args` points to `kind`'s argument tuple (a frame's offset 0); `result_dst` is null or
    /// valid for a write of `kind`'s output.
    unsafe fn dispatch_seq<S: SeqContext>(
        cx: &mut S,
        kind: KindId,
        args: *const u8,
        result_dst: *mut u8,
    ) -> bool;

    /// Whether `kind` is block-level (`false` for kinds not in the program).
    #[must_use]
    #[inline(always)]
    fn is_block(kind: KindId) -> bool {
        per_kind!(Self, BLOCKS, kind, false)
    }

    /// Whether `kind` contains a `taskwait!()` (`false` for kinds not in the program).
    #[must_use]
    #[inline(always)]
    fn kind_joins(kind: KindId) -> bool {
        per_kind!(Self, KIND_JOINS, kind, false)
    }

    /// Whether `kind`'s steps never write its arguments after the spawn (`false` for kinds not
    /// in the program).
    #[must_use]
    #[inline(always)]
    fn args_read_only(kind: KindId) -> bool {
        per_kind!(Self, KIND_ARGS_READ_ONLY, kind, false)
    }

    /// The name of `kind`, for error messages.
    #[must_use]
    fn name_of(kind: KindId) -> &'static str {
        per_kind!(Self, NAMES, kind, "<unknown task kind>")
    }

    /// The name of the task function of this program written at `line` of `file` (see
    /// [`Source::contains`]), if one is: names the task of a panic on the GPU.
    #[must_use]
    fn task_at(file: &str, line: u32) -> Option<&'static str> {
        Self::SOURCES
            .iter()
            .position(|s| s.contains(file, line))
            .map(|i| Self::NAMES[i])
    }
}

/// `const` helpers that take the marker *value*, so that `program!` and generated code never
/// name a marker type (an ordinary function in its place then gets our diagnostic, not
/// "cannot find type").
#[must_use]
pub const fn kind_of<T: TaskFn>(_: &T) -> KindId {
    T::ID
}

/// The name of the task function `f`.
#[must_use]
pub const fn name_of<T: TaskFn>(_: &T) -> &'static str {
    T::NAME
}

/// Whether the task function `f` contains a `taskwait!()`.
#[must_use]
pub const fn joins_of<T: TaskFn>(_: &T) -> bool {
    T::JOINS
}

/// Whether the task function `f` never writes its arguments after the spawn.
#[must_use]
pub const fn args_read_only_of<T: TaskFn>(_: &T) -> bool {
    T::ARGS_READ_ONLY
}

/// Whether the task function `f` is block-level (`#[gtap::function(block)]`).
#[must_use]
pub const fn block_of<T: TaskFn>(_: &T) -> bool {
    T::BLOCK
}

/// The kinds the task function `f` spawns.
#[must_use]
pub const fn callees_of<T: TaskFn>(_: &T) -> &'static [KindId] {
    T::CALLEES
}

/// Runs one step of `f`.
///
/// # Safety
///
/// As for [`TaskFn::step`].
#[inline(always)]
pub unsafe fn step_of<T: TaskFn, C: Context>(_: &T, ctx: &mut C) -> Step {
    // SAFETY: forwarded from the caller.
    unsafe { T::step(ctx) }
}

/// Runs one step of `f`, out of line (see [`Program::dispatch_outlined`]).
///
/// # Safety
///
/// As for [`TaskFn::step`].
#[inline(never)]
pub unsafe fn step_outlined<T: TaskFn, C: Context>(_: &T, ctx: &mut C) -> Step {
    // SAFETY: forwarded from the caller.
    unsafe { T::step(ctx) }
}

/// Runs `f`'s sequential clone on the arguments at `args`, writing the result to `result_dst`
/// unless it is null; `false` when `f` has none.
///
/// # Safety
///
/// `args` points to `f`'s argument tuple; `result_dst` is null or valid for a write of its
/// output.
#[inline(always)]
pub unsafe fn seq_of<T: TaskFn, S: SeqContext>(
    _: &T,
    cx: &mut S,
    args: *const u8,
    result_dst: *mut u8,
) -> bool {
    if !T::HAS_SEQ {
        return false;
    }
    // SAFETY: the caller's contract; the arguments are `Copy`.
    let args = unsafe { args.cast::<T::Args>().read() };
    let out = cx.seq_call::<T>(args);
    if !result_dst.is_null() {
        // SAFETY: the caller's contract.
        unsafe { result_dst.cast::<T::Output>().write(out) };
    }
    true
}

/// Compile-time checks of a program (called from a `const` item by `program!`): kinds are
/// distinct and every spawned kind is listed.
///
/// # Panics
///
/// At compile time, with a message naming the problem.
pub const fn check_program(kinds: &[KindId], callees: &[&[KindId]]) {
    let mut i = 0;
    while i < kinds.len() {
        let mut j = i + 1;
        while j < kinds.len() {
            assert!(
                kinds[i] != kinds[j],
                "gtap::program! lists the same task function twice (or two names hash alike)"
            );
            j += 1;
        }
        i += 1;
    }
    let mut f = 0;
    while f < callees.len() {
        let mut c = 0;
        while c < callees[f].len() {
            let mut found = false;
            let mut k = 0;
            while k < kinds.len() {
                found |= kinds[k] == callees[f][c];
                k += 1;
            }
            assert!(
                found,
                "a task function of this gtap::program! spawns a task function the program does not list: add it to the list"
            );
            c += 1;
        }
        f += 1;
    }
}

/// Declares a program: the task functions that may run in one launch, entry functions and
/// everything they spawn. The macro generates the dispatch `match` over their kinds.
///
/// ```ignore
/// gtap::program!(pub Fib = [fib]);
/// gtap::program!(pub Sort = [cilksort, cilkmerge]);
/// ```
#[macro_export]
macro_rules! program {
    ($(#[$meta:meta])* $vis:vis $name:ident = [$($f:path),+ $(,)?]) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default)]
        $vis struct $name;

        // SAFETY: `dispatch` calls exactly the listed kinds' steps and `KINDS` lists them.
        unsafe impl $crate::task::Program for $name {
            const KINDS: &'static [$crate::task::KindId] = &[$($crate::task::kind_of(&$f)),+];
            const NAMES: &'static [&'static str] = &[$($crate::task::name_of(&$f)),+];
            const SOURCES: &'static [$crate::task::Source] =
                &[$($crate::task::source_of(&$f)),+];
            const JOINS: bool = false $(|| $crate::task::joins_of(&$f))+;
            const BLOCKS: &'static [bool] = &[$($crate::task::block_of(&$f)),+];
            const KIND_JOINS: &'static [bool] = &[$($crate::task::joins_of(&$f)),+];
            const KIND_ARGS_READ_ONLY: &'static [bool] =
                &[$($crate::task::args_read_only_of(&$f)),+];
            const HAS_BLOCK: bool = false $(|| $crate::task::block_of(&$f))+;

            #[inline(always)]
            unsafe fn dispatch_seq<S: $crate::task::SeqContext>(
                cx: &mut S,
                kind: $crate::task::KindId,
                args: *const u8,
                result_dst: *mut u8,
            ) -> bool {
                $(
                    if kind == const { $crate::task::kind_of(&$f) } {
                        // SAFETY: forwarded from the caller; `kind` selects this function.
                        return unsafe { $crate::task::seq_of(&$f, cx, args, result_dst) };
                    }
                )+
                false
            }

            #[inline(always)]
            unsafe fn dispatch_outlined<C: $crate::task::Context>(
                ctx: &mut C,
                kind: $crate::task::KindId,
            ) -> $crate::task::Step {
                $(
                    if kind == const { $crate::task::kind_of(&$f) } {
                        // SAFETY: forwarded from the caller; `kind` selects this step.
                        return unsafe { $crate::task::step_outlined(&$f, ctx) };
                    }
                )+
                ctx.unknown_kind(kind)
            }

            #[inline(always)]
            unsafe fn dispatch<C: $crate::task::Context>(
                ctx: &mut C,
                kind: $crate::task::KindId,
            ) -> $crate::task::Step {
                $(
                    if kind == const { $crate::task::kind_of(&$f) } {
                        // SAFETY: forwarded from the caller; `kind` selects this step.
                        return unsafe { $crate::task::step_of(&$f, ctx) };
                    }
                )+
                ctx.unknown_kind(kind)
            }
        }

        const _: () = $crate::task::check_program(
            <$name as $crate::task::Program>::KINDS,
            &[$($crate::task::callees_of(&$f)),+],
        );
    };
}

#[cfg(test)]
mod tests {
    use super::Source;

    const GENERATED: Source = Source {
        file: "/w/target/release/build/gtap-random-gpu-1a98/out/programs.rs",
        first_line: 10,
        last_line: 20,
    };

    #[test]
    fn a_path_matches_its_end_and_its_longer_form() {
        let s = Source {
            file: "src/apps/fib.rs",
            first_line: 5,
            last_line: 9,
        };
        assert!(s.contains("src/apps/fib.rs", 5));
        assert!(s.contains("/home/u/p/src/apps/fib.rs", 9));
        assert!(s.contains("apps/fib.rs", 7));
        assert!(!s.contains("src/apps/fib.rs", 10));
        assert!(!s.contains("src/apps/nqueens.rs", 6));
        assert!(!Source::UNKNOWN.contains("src/apps/fib.rs", 0));
    }

    #[test]
    fn a_generated_file_matches_across_output_directories() {
        // The device build's output directory, as the GPU keeps the end of the path.
        let device = "/build/gtap-random-gpu-77ce/out/programs.rs";
        assert!(GENERATED.contains(device, 15));
        assert!(!GENERATED.contains(device, 21));
        assert!(!GENERATED.contains("/build/gtap-random-gpu-77ce/out/other.rs", 15));
        assert!(!GENERATED.contains("src/programs.rs", 15));
    }
}
