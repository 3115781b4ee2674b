//! The per-worker region that the frames of inline children come from.
//!
//! A child that runs as a call on its parent's worker has no record: its frame comes from the
//! worker's [`FrameStack`], a region that steps on the worker's native stack allocate and
//! release in LIFO order (a step's children's frames are released when its join ends, and a
//! run that ends or aborts resets the region). Frames are the run's stride (the largest frame
//! the probe reported, rounded up to 16 bytes) and 16-aligned, like a record's frame.

use core::ptr::NonNull;
use std::alloc::Layout;

/// The per-worker region that the frames of inline children come from (see the module docs).
pub(crate) struct FrameStack {
    base: NonNull<u8>,
    /// Bytes in use, from `base`.
    top: usize,
    /// Bytes of one frame: the run's frame stride, at least 16 and a multiple of 16.
    stride: usize,
}

// SAFETY: the region is plain memory owned by one worker's slot; it is only touched by the
// worker that holds the slot's lock.
unsafe impl Send for FrameStack {}

impl FrameStack {
    /// Size of the region: 1,024 frames at the default frame limit (256 bytes). A step whose
    /// child finds it full spawns that child as a record instead.
    pub(crate) const BYTES: usize = 256 * 1024;
    const ALIGN: usize = 64;

    pub(crate) fn new() -> Self {
        let layout = Self::layout();
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc(layout) };
        let Some(base) = NonNull::new(ptr) else {
            std::alloc::handle_alloc_error(layout)
        };
        Self {
            base,
            top: 0,
            stride: 16,
        }
    }

    fn layout() -> Layout {
        Layout::from_size_align(Self::BYTES, Self::ALIGN).expect("frame stack layout")
    }

    /// Empties the region and sets the frame size for a run whose frames have `stride` bytes.
    pub(crate) fn reset(&mut self, stride: usize) {
        self.top = 0;
        self.stride = stride.next_multiple_of(16).max(16);
    }

    /// A fresh frame of the run's stride, 16-aligned; `None` when the region is full.
    #[inline]
    pub(crate) fn alloc(&mut self) -> Option<*mut u8> {
        if self.top + self.stride > Self::BYTES {
            return None;
        }
        // SAFETY: `top + stride <= BYTES`: the frame lies inside the region.
        let frame = unsafe { self.base.as_ptr().add(self.top) };
        self.top += self.stride;
        Some(frame)
    }

    /// The current top, to [`FrameStack::release`] to later.
    #[inline]
    pub(crate) fn mark(&self) -> usize {
        self.top
    }

    /// Frees every frame allocated since `mark` was taken.
    #[inline]
    pub(crate) fn release(&mut self, mark: usize) {
        debug_assert!(mark <= self.top, "frames are released in LIFO order");
        self.top = mark;
    }

    /// Bytes of one frame.
    #[inline]
    pub(crate) fn stride(&self) -> usize {
        self.stride
    }
}

impl Drop for FrameStack {
    fn drop(&mut self) {
        // SAFETY: allocated in `new` with the same layout.
        unsafe { std::alloc::dealloc(self.base.as_ptr(), Self::layout()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frames_are_aligned_lifo_and_bounded() {
        let mut frames = FrameStack::new();
        frames.reset(40);
        assert_eq!(frames.stride(), 48, "the stride is rounded to 16");
        let mark = frames.mark();
        let a = frames.alloc().unwrap();
        let b = frames.alloc().unwrap();
        assert_eq!(a as usize % 16, 0);
        assert_eq!(b as usize - a as usize, 48);
        frames.release(mark);
        assert_eq!(
            frames.alloc(),
            Some(a),
            "released frames are handed out again"
        );
        frames.reset(FrameStack::BYTES / 2);
        assert!(frames.alloc().is_some());
        assert!(frames.alloc().is_some());
        assert_eq!(frames.alloc(), None, "a full region refuses");
    }
}
