//! The layout probe: how large a task frame must be for a program.
//!
//! A frame's type is known only inside the generated `step` (rustc infers its field types
//! there), so the scheduler runs every kind of the program once through
//! [`Program::dispatch`] with `gtap_device::glue::LayoutProbe`, whose `Context::PROBE` is
//! `true`: the step reports its frame's size and alignment and returns without touching the
//! (null) frame. The *stride*
//! of a run is the largest size rounded up to 16 bytes; every record of the run gets a frame of
//! that many bytes, 16-aligned (`gtap_device::task`, "Task record").

use gtap_device::glue::probe_kind;
use gtap_device::task::{KindId, Program};

use crate::error::{Error, Result};

/// Frames are 16-aligned and their stride is a multiple of this.
pub(crate) const FRAME_ALIGN: usize = 16;

/// The frame size of one kind of `P`.
fn layout_of<P: Program>(kind: KindId) -> Result<usize> {
    let task = P::name_of(kind);
    match probe_kind::<P>(kind) {
        Some((size, align)) if align <= FRAME_ALIGN => Ok(size),
        Some(_) => Err(Error::Protocol {
            task,
            detail: "its frame needs more than 16-byte alignment",
        }),
        None => Err(Error::Protocol {
            task,
            detail: "it reported no frame layout on the probe pass",
        }),
    }
}

/// The frame size of `kind`, rounded up to 16 bytes, checked against `limit`.
fn checked_layout_of<P: Program>(kind: KindId, limit: usize) -> Result<usize> {
    let size = layout_of::<P>(kind)?;
    if size > limit {
        return Err(Error::FrameTooLarge {
            task: P::name_of(kind),
            size,
            limit,
        });
    }
    Ok(size.next_multiple_of(FRAME_ALIGN))
}

/// The frame stride of program `P`: the largest frame of its kinds, rounded up to 16 bytes.
///
/// # Errors
///
/// [`Error::FrameTooLarge`] when a frame is larger than `limit` (`Config::task_data_limit`),
/// [`Error::Protocol`] when a step does not report its layout.
pub(crate) fn stride<P: Program>(limit: usize) -> Result<usize> {
    let mut stride = FRAME_ALIGN;
    for &kind in P::KINDS {
        stride = stride.max(checked_layout_of::<P>(kind, limit)?);
    }
    Ok(stride)
}

/// The frame sizes of a program with block-level kinds, for block-level workers: (the largest
/// frame of its thread-level and non-joining block-level kinds, the largest *per-thread* frame
/// of its joining block-level kinds, 0 if none), both rounded up to 16 bytes. A joining
/// block-level kind keeps one frame per thread of the block; the others one frame.
///
/// # Errors
///
/// As for [`stride`].
pub(crate) fn block_strides<P: Program>(limit: usize) -> Result<(usize, usize)> {
    let (mut shared, mut per_thread) = (FRAME_ALIGN, 0);
    for &kind in P::KINDS {
        let size = checked_layout_of::<P>(kind, limit)?;
        if P::is_block(kind) && P::kind_joins(kind) {
            per_thread = per_thread.max(size);
        } else {
            shared = shared.max(size);
        }
    }
    Ok((shared, per_thread))
}
