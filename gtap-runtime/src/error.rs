//! The errors of the host runtime: one enum, [`Error`], for both backends.
//!
//! Every message is lowercase, without a trailing period, and names the offending value and,
//! where a limit was hit, the [`Config`](crate::Config) field to raise (thiserror style, written
//! by hand to keep the dependency list short).

use core::fmt;
use std::time::Duration;

use gtap_device::task::KindId;

/// Everything that can go wrong when configuring a runtime, moving data, or running a program.
#[non_exhaustive]
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// A [`Config`](crate::Config) field has a value outside its range.
    InvalidConfig {
        /// The field, e.g. `"queues"`.
        field: &'static str,
        /// The value it had, formatted.
        value: String,
        /// What it must be, e.g. `"1..=8"`.
        expected: &'static str,
    },
    /// A task panicked; the run was drained and abandoned.
    TaskPanicked {
        /// The task function that panicked.
        task: &'static str,
        /// The panic message.
        message: String,
    },
    /// A pool of task records or child slots is full.
    PoolExhausted {
        /// The knob to raise, e.g. `"Config::tasks_per_warp"`.
        limit: &'static str,
        /// Its value in this run.
        capacity: u64,
    },
    /// A work queue is full.
    QueueOverflow {
        /// The knob to raise.
        limit: &'static str,
        /// Its value in this run.
        capacity: u64,
    },
    /// A spawn or a `taskwait!` named an EPAQ queue the configuration does not have.
    InvalidQueue {
        /// The task that asked for it.
        task: &'static str,
        /// The queue index asked for (`u32::MAX` for a negative or huge hint).
        queue: u32,
        /// `Config::queues` of this run.
        queues: u32,
    },
    /// A task's frame (its task-data struct) is larger than `Config::task_data_limit`.
    FrameTooLarge {
        /// The task function.
        task: &'static str,
        /// Its frame size in bytes, as reported by the probe pass.
        size: usize,
        /// `Config::task_data_limit`.
        limit: usize,
    },
    /// A task kind that the program does not list was run or spawned.
    UnknownKind {
        /// The task's name (`"<unknown task kind>"` when only its id is known).
        task: &'static str,
        /// Its [`KindId`].
        kind: KindId,
        /// The program's type name.
        program: &'static str,
    },
    /// Generated code broke the scheduler contract of `gtap_device::task` (a gtap bug).
    Protocol {
        /// The task function.
        task: &'static str,
        /// What went wrong.
        detail: &'static str,
    },
    /// The GPU was asked for but cannot be used.
    NoGpu {
        /// Why: no driver, no device, no PTX module, ...
        reason: String,
    },
    /// An allocation of user data failed.
    OutOfMemory {
        /// Bytes asked for.
        bytes: usize,
        /// `"host"` or `"device"`.
        memory: &'static str,
    },
    /// A buffer of one backend was handed to a runtime of another.
    ForeignBuffer {
        /// Where the buffer lives.
        buffer: &'static str,
        /// The runtime's backend.
        runtime: &'static str,
    },
    /// A host slice and a buffer of different lengths were paired
    /// ([`Runtime::download_into`](crate::Runtime::download_into)).
    LengthMismatch {
        /// What was being copied.
        what: &'static str,
        /// The buffer's length.
        buffer: usize,
        /// The slice's length.
        slice: usize,
    },
    /// The CUDA driver reported an error.
    Driver(String),
    /// The device trapped (a bounds check, an illegal address, an internal assertion).
    DeviceFault {
        /// The trap code or `CUresult`.
        code: u32,
        /// What is known about it.
        detail: String,
    },
    /// No task made progress for `Config::watchdog`.
    Hang {
        /// How long nothing progressed.
        after: Duration,
    },
    /// The GPU's CUDA context is unusable after a fault that a run could not stop (an illegal
    /// address in a task's `unsafe` code, a kernel that never exits), seen by this runtime or
    /// another on the same GPU. Drop every `Runtime` that uses the GPU (its buffers go with
    /// it); the next `Runtime` created resets the context. Where the driver keeps the fault
    /// for the rest of the process (CUDA's drivers do after an illegal address: the reset
    /// succeeds and the context is refused after it), that `Runtime` gets this error too, and
    /// only a new process uses the GPU again: run GPU work in a process that a supervisor can
    /// restart.
    ContextLost,
    /// The run was stopped from outside ([`Runtime::run_with`](crate::Runtime::run_with)): its
    /// token was cancelled or its deadline passed.
    Cancelled {
        /// Which.
        reason: crate::CancelReason,
        /// How long the run had taken when it stopped.
        after: Duration,
    },
    /// A run on several GPUs ([`Config::devices`](crate::Config::devices)) failed on one of
    /// them: `error` is what that GPU reported (the others were stopped).
    OnGpu {
        /// The GPU's index in the run (0 holds the root), with its CUDA device ordinal.
        gpu: u32,
        /// Its CUDA device ordinal (partitions of one GPU share it).
        device: u32,
        /// What went wrong there.
        error: Box<Error>,
    },
    /// A feature was asked of a run that cannot give it (what, and what to do instead).
    Unsupported {
        /// The feature, e.g. `"RunOptions::pause"`.
        what: &'static str,
        /// Why not here, and the alternative.
        reason: &'static str,
    },
}

impl Error {
    /// The error itself, without the [`Error::OnGpu`] wrapper of a multi-GPU run.
    #[must_use]
    pub fn innermost(&self) -> &Error {
        match self {
            Self::OnGpu { error, .. } => error.innermost(),
            e => e,
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::InvalidConfig { field, value, expected } => {
                write!(f, "invalid Config::{field} = {value}: expected {expected}")
            }
            Self::TaskPanicked { task, message } => {
                write!(f, "task `{task}` panicked: {message}")
            }
            Self::PoolExhausted { limit, capacity } => write!(
                f,
                "task pool exhausted: {limit} = {capacity} is too small for this run; raise {limit}"
            ),
            Self::QueueOverflow { limit, capacity } => write!(
                f,
                "work queue overflow: {limit} = {capacity} is too small for this run; raise {limit}"
            ),
            Self::InvalidQueue { task, queue, queues } => {
                if *queue == u32::MAX {
                    write!(
                        f,
                        "task `{task}` used a negative or out-of-range queue hint; hints must be 0..Config::queues (= {queues})"
                    )
                } else {
                    write!(
                        f,
                        "task `{task}` used queue {queue} but Config::queues = {queues}; raise Config::queues above {queue} or use a smaller hint"
                    )
                }
            }
            Self::FrameTooLarge { task, size, limit } => write!(
                f,
                "the task data of `{task}` takes {size} bytes, more than Config::task_data_limit = {limit}; raise Config::task_data_limit to at least {size} or keep fewer locals live across taskwait!()"
            ),
            Self::UnknownKind { task, kind, program } => write!(
                f,
                "task `{task}` (kind {kind:#010x}) is not part of program `{program}`; add it to the program's gtap::program! list"
            ),
            Self::Protocol { task, detail } => write!(
                f,
                "task `{task}` broke the scheduler contract ({detail}); this is a bug in gtap's generated code, please report it"
            ),
            Self::NoGpu { reason } => write!(f, "no usable GPU: {reason}"),
            Self::OutOfMemory { bytes, memory } => {
                write!(f, "could not allocate {bytes} bytes of {memory} memory for a buffer")
            }
            Self::ForeignBuffer { buffer, runtime } => write!(
                f,
                "a buffer in {buffer} memory was given to a runtime on the {runtime} backend; create buffers with the runtime that uses them"
            ),
            Self::LengthMismatch { what, buffer, slice } => write!(
                f,
                "{what}: the buffer holds {buffer} but the slice {slice}; pass a slice of the buffer's length (Buffer::len)"
            ),
            Self::Driver(message) => write!(f, "CUDA driver error: {message}"),
            Self::DeviceFault { code, detail } => {
                write!(f, "device fault (code {code}): {detail}")
            }
            Self::Hang { after } => write!(
                f,
                "no task made progress for {after:?}; raise Config::watchdog if tasks legitimately run that long"
            ),
            Self::ContextLost => write!(
                f,
                "the GPU's CUDA context was lost by a fault in an earlier run (of this or another Runtime on the GPU): drop every Runtime that uses the GPU, and a new Runtime resets the context; if that new Runtime gets this error too, the CUDA driver keeps the fault for the rest of the process and only a new process can use this GPU"
            ),
            Self::Cancelled { reason, after } => match reason {
                crate::CancelReason::Token => write!(f, "the run was cancelled after {after:?}"),
                crate::CancelReason::Deadline => {
                    write!(f, "the run passed its deadline and was stopped after {after:?}")
                }
            },
            Self::OnGpu { gpu, device, error } => {
                write!(f, "on GPU {gpu} of the run (CUDA device {device}): {error}")
            }
            Self::Unsupported { what, reason } => write!(f, "{what} is not supported here: {reason}"),
        }
    }
}

impl std::error::Error for Error {}

/// The result type of the runtime.
pub type Result<T> = core::result::Result<T, Error>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_name_the_knob() {
        let e = Error::InvalidConfig {
            field: "queues",
            value: "0".into(),
            expected: "1..=8",
        };
        assert_eq!(e.to_string(), "invalid Config::queues = 0: expected 1..=8");
        let e = Error::InvalidQueue {
            task: "fib",
            queue: 3,
            queues: 2,
        };
        assert!(e.to_string().contains("Config::queues = 2"), "{e}");
        let e = Error::FrameTooLarge {
            task: "big",
            size: 512,
            limit: 256,
        };
        assert!(
            e.to_string()
                .contains("raise Config::task_data_limit to at least 512"),
            "{e}"
        );
        let e = Error::PoolExhausted {
            limit: "Config::max_children",
            capacity: 4,
        };
        assert!(e.to_string().contains("raise Config::max_children"), "{e}");
        let e = Error::LengthMismatch {
            what: "Runtime::download_into",
            buffer: 4,
            slice: 3,
        };
        assert_eq!(
            e.to_string(),
            "Runtime::download_into: the buffer holds 4 but the slice 3; pass a slice of the buffer's length (Buffer::len)"
        );
    }
}
