//! The staged copy's logic, without the driver: how a transfer is split into lanes and chunks
//! ([`Plan`]), and the double-buffered loop one lane runs ([`upload`], [`download`]) over any
//! [`Lane`] (the GPU's in `staging.rs`; a simulated one in the tests).
//!
//! # The pipeline of one lane
//!
//! A lane has [`SLOTS`] pinned staging chunks. Upload: copy chunk `i` of the host range into
//! slot `i % SLOTS`, start its DMA, go on with chunk `i + 1` in the other slot; before a slot is
//! written again, wait for the DMA that last read it. Download: start the DMAs of the first
//! `SLOTS` chunks; then for each chunk, wait for its DMA, copy the slot out to the host range,
//! and start the DMA of chunk `i + SLOTS` into the freed slot. Either way the host `memcpy` of
//! one chunk overlaps the DMA of the next, and a slot is never touched by the host while a DMA
//! uses it (the simulated lane of the tests checks exactly that).
//!
//! Lanes get disjoint byte ranges of the transfer and run on their own threads
//! ([`for_each_lane`]); their range boundaries are multiples of [`LANE_ALIGN`], so no two
//! threads write the same host page.

use std::ops::Range;

use crate::error::Result;

/// Staging chunks per lane: two, the least that overlaps a host copy with a DMA.
pub(crate) const SLOTS: usize = 2;

/// Lane boundaries and chunk sizes are multiples of this (a host page).
pub(crate) const LANE_ALIGN: usize = 4096;

/// A transfer gets one more lane per `SLOTS` chunks of this size: a chunk much smaller would
/// spend as long in the driver calls that start and wait for its DMA (a few µs) as in the DMA
/// itself (1 MiB: about 20 µs at 50 GB/s).
pub(crate) const MIN_CHUNK: usize = 1 << 20;

/// How one transfer of `bytes` bytes is split: `lanes` contiguous ranges, each cut into chunks
/// of `chunk` bytes (the last of a lane shorter).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    bytes: usize,
    chunk: usize,
    lanes: usize,
}

impl Plan {
    /// The plan for `bytes` bytes on at most `max_lanes` lanes with slots of `max_chunk`
    /// bytes: one lane per [`SLOTS`] chunks of [`MIN_CHUNK`] (at least one), and chunks just
    /// large enough to give each lane [`SLOTS`] of them, at most `max_chunk`. So a medium
    /// transfer still spreads over every lane and overlaps within each.
    pub(crate) fn new(bytes: usize, max_chunk: usize, max_lanes: usize) -> Self {
        let lanes = (bytes / (SLOTS * MIN_CHUNK)).clamp(1, max_lanes.max(1));
        let chunk = bytes
            .div_ceil(lanes * SLOTS)
            .next_multiple_of(LANE_ALIGN)
            .min(max_chunk)
            .max(1);
        Self {
            bytes,
            chunk,
            lanes,
        }
    }

    /// Bytes per chunk: at most the `max_chunk` the plan was made with.
    pub(crate) fn chunk(&self) -> usize {
        self.chunk
    }

    /// Lanes this transfer uses.
    pub(crate) fn lanes(&self) -> usize {
        self.lanes
    }

    /// The byte range of lane `i` (empty for a lane past the data).
    pub(crate) fn lane(&self, i: usize) -> Chunks {
        let per = self.bytes.div_ceil(self.lanes).next_multiple_of(LANE_ALIGN);
        let start = (i * per).min(self.bytes);
        let end = if i + 1 == self.lanes {
            self.bytes
        } else {
            ((i + 1) * per).min(self.bytes)
        };
        Chunks {
            range: start..end,
            chunk: self.chunk,
        }
    }
}

/// A lane's byte range, cut into chunks of at most `chunk` bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Chunks {
    range: Range<usize>,
    chunk: usize,
}

impl Chunks {
    /// Number of chunks.
    pub(crate) fn len(&self) -> usize {
        self.range.len().div_ceil(self.chunk)
    }

    /// Chunk `i`'s byte range (offsets into the whole transfer).
    pub(crate) fn get(&self, i: usize) -> Range<usize> {
        let start = self.range.start + i * self.chunk;
        start..(start + self.chunk).min(self.range.end)
    }
}

/// One lane's device side: [`SLOTS`] pinned host chunks and asynchronous copies between them
/// and device memory.
pub(crate) trait Lane {
    /// The host address of staging slot `slot`, valid for a chunk's bytes.
    fn slot(&mut self, slot: usize) -> *mut u8;
    /// Starts copying `len` bytes from slot `slot` to device address `dev`.
    fn start_to_device(&mut self, slot: usize, dev: u64, len: usize) -> Result<()>;
    /// Starts copying `len` bytes from device address `dev` into slot `slot`.
    fn start_to_host(&mut self, slot: usize, dev: u64, len: usize) -> Result<()>;
    /// Waits until the copy last started on `slot` is done.
    fn wait(&mut self, slot: usize) -> Result<()>;
}

/// Waits for every slot still in use; after an error, so that no DMA outlives the call (its
/// device or host memory may be freed next). Their own errors are dropped: the first error is
/// the one reported.
fn drain<L: Lane>(lane: &mut L, busy: &[bool; SLOTS]) {
    for (s, &b) in busy.iter().enumerate() {
        if b {
            let _ = lane.wait(s);
        }
    }
}

/// Copies the host bytes of `chunks` (offsets from `src`) to the same offsets from device
/// address `dst`, double-buffered through `lane`'s slots; returns when every copy is done.
///
/// # Safety
///
/// `src` is valid for reads, and `dst` for device writes, at every offset of `chunks`; each
/// chunk fits in one of `lane`'s slots.
pub(crate) unsafe fn upload<L: Lane>(
    lane: &mut L,
    src: *const u8,
    dst: u64,
    chunks: &Chunks,
) -> Result<()> {
    let mut busy = [false; SLOTS];
    let r = (|| {
        for i in 0..chunks.len() {
            let (s, c) = (i % SLOTS, chunks.get(i));
            if busy[s] {
                busy[s] = false;
                lane.wait(s)?;
            }
            // SAFETY: the caller guarantees `src` over the chunk and that it fits the slot; the
            // slot is idle (its last DMA was waited for), and pinned memory never overlaps the
            // caller's.
            unsafe { core::ptr::copy_nonoverlapping(src.add(c.start), lane.slot(s), c.len()) };
            lane.start_to_device(s, dst + c.start as u64, c.len())?;
            busy[s] = true;
        }
        for (s, b) in busy.iter_mut().enumerate() {
            if *b {
                *b = false;
                lane.wait(s)?;
            }
        }
        Ok(())
    })();
    if r.is_err() {
        drain(lane, &busy);
    }
    r
}

/// Copies device bytes at the offsets of `chunks` from device address `src` to the same
/// offsets from host address `dst`, double-buffered through `lane`'s slots; returns when every
/// byte is in `dst`.
///
/// # Safety
///
/// `dst` is valid for writes, and `src` for device reads, at every offset of `chunks`; each
/// chunk fits in one of `lane`'s slots.
pub(crate) unsafe fn download<L: Lane>(
    lane: &mut L,
    src: u64,
    dst: *mut u8,
    chunks: &Chunks,
) -> Result<()> {
    let n = chunks.len();
    let mut busy = [false; SLOTS];
    let r = (|| {
        for (i, b) in busy.iter_mut().enumerate().take(n) {
            let c = chunks.get(i);
            lane.start_to_host(i, src + c.start as u64, c.len())?;
            *b = true;
        }
        for i in 0..n {
            let (s, c) = (i % SLOTS, chunks.get(i));
            busy[s] = false;
            lane.wait(s)?;
            // SAFETY: the slot's DMA is done, so it holds chunk `i`; the caller guarantees
            // `dst` over the chunk; pinned memory never overlaps the caller's.
            unsafe { core::ptr::copy_nonoverlapping(lane.slot(s), dst.add(c.start), c.len()) };
            if i + SLOTS < n {
                let next = chunks.get(i + SLOTS);
                lane.start_to_host(s, src + next.start as u64, next.len())?;
                busy[s] = true;
            }
        }
        Ok(())
    })();
    if r.is_err() {
        drain(lane, &busy);
    }
    r
}

/// Runs `f(i, lane)` for the first `n` lanes, lane 0 on the calling thread and every other on
/// a scoped thread of its own; returns the first error (after every lane has finished).
pub(crate) fn for_each_lane<L, F>(lanes: &mut [L], n: usize, f: F) -> Result<()>
where
    L: Send,
    F: Fn(usize, &mut L) -> Result<()> + Sync,
{
    let n = n.min(lanes.len());
    let lanes = &mut lanes[..n];
    let Some((first, rest)) = lanes.split_first_mut() else {
        return Ok(());
    };
    if rest.is_empty() {
        return f(0, first);
    }
    std::thread::scope(|scope| {
        let f = &f;
        let handles: Vec<_> = rest
            .iter_mut()
            .enumerate()
            .map(|(i, lane)| scope.spawn(move || f(i + 1, lane)))
            .collect();
        let mut result = f(0, first);
        for h in handles {
            let r = h.join().unwrap_or_else(|p| std::panic::resume_unwind(p));
            if result.is_ok() {
                result = r;
            }
        }
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;

    #[test]
    fn plan_covers_every_byte_once_in_order() {
        for chunk in [64 << 10, 4 << 20] {
            for bytes in [
                0,
                1,
                4095,
                chunk - 1,
                chunk,
                chunk + 1,
                2 * chunk,
                4 * chunk + 17,
                33 * chunk + 4099,
                3 * MIN_CHUNK + 5,
                40_000_000,
                400_000_000,
            ] {
                for max_lanes in [1, 2, 3, 8] {
                    check_plan(bytes, chunk, max_lanes);
                }
            }
        }
    }

    fn check_plan(bytes: usize, chunk: usize, max_lanes: usize) {
        {
            {
                let plan = Plan::new(bytes, chunk, max_lanes);
                assert!((1..=max_lanes).contains(&plan.lanes()));
                assert!(plan.chunk() <= chunk, "a chunk must fit a slot");
                let mut next = 0;
                for l in 0..plan.lanes() {
                    let c = plan.lane(l);
                    if l > 0 && next < bytes {
                        assert_eq!(next % LANE_ALIGN, 0, "lane {l} of {bytes} starts unaligned");
                    }
                    for i in 0..c.len() {
                        let r = c.get(i);
                        assert_eq!(r.start, next, "{bytes} bytes, lane {l}, chunk {i}");
                        assert!(!r.is_empty() && r.len() <= chunk);
                        next = r.end;
                    }
                }
                assert_eq!(next, bytes, "{bytes} bytes on {max_lanes} lanes");
            }
        }
    }

    #[test]
    fn plan_spreads_medium_transfers_over_every_lane() {
        let slot = 4 << 20;
        let p = |bytes| {
            let p = Plan::new(bytes, slot, 8);
            (p.lanes(), p.chunk())
        };
        assert_eq!(p(4096), (1, 4096), "a small transfer: one lane, one chunk");
        assert_eq!(p(2 * SLOTS * MIN_CHUNK - 1).0, 1);
        assert_eq!(p(2 * SLOTS * MIN_CHUNK), (2, MIN_CHUNK));
        // Mixed mergesort's 40 MB: all 8 lanes, two chunks of 2.5 MB each.
        assert_eq!(p(40_000_000), (8, 2_502_656));
        // Cilksort's 400 MB: all 8 lanes, full slots.
        assert_eq!(p(400_000_000), (8, slot));
        assert_eq!(Plan::new(400_000_000, slot, 3).lanes(), 3);
    }

    /// A lane whose "DMA" completes only when waited for, and which fails the test if the host
    /// touches a slot while its copy is in flight or waits on an idle slot.
    struct SimLane {
        device: Vec<u8>,
        slots: [Vec<u8>; SLOTS],
        /// The copy in flight on each slot: (to the device?, device offset, len).
        pending: [Option<(bool, usize, usize)>; SLOTS],
        /// Fail the `n`th start with a driver error.
        fail_at: Option<usize>,
        starts: usize,
        max_in_flight: usize,
    }

    impl SimLane {
        fn new(device_bytes: usize, chunk: usize) -> Self {
            Self {
                device: vec![0; device_bytes],
                slots: [vec![0; chunk], vec![0; chunk]],
                pending: [None; SLOTS],
                fail_at: None,
                starts: 0,
                max_in_flight: 0,
            }
        }

        fn start(&mut self, slot: usize, to_device: bool, dev: u64, len: usize) -> Result<()> {
            assert!(
                self.pending[slot].is_none(),
                "slot {slot} reused while in flight"
            );
            assert!(len <= self.slots[slot].len());
            self.starts += 1;
            if self.fail_at == Some(self.starts) {
                return Err(Error::Driver("simulated".into()));
            }
            self.pending[slot] = Some((to_device, dev as usize, len));
            let n = self.pending.iter().flatten().count();
            self.max_in_flight = self.max_in_flight.max(n);
            Ok(())
        }
    }

    impl Lane for SimLane {
        fn slot(&mut self, slot: usize) -> *mut u8 {
            assert!(
                self.pending[slot].is_none(),
                "host touched slot {slot} while a copy used it"
            );
            self.slots[slot].as_mut_ptr()
        }
        fn start_to_device(&mut self, slot: usize, dev: u64, len: usize) -> Result<()> {
            self.start(slot, true, dev, len)
        }
        fn start_to_host(&mut self, slot: usize, dev: u64, len: usize) -> Result<()> {
            self.start(slot, false, dev, len)
        }
        fn wait(&mut self, slot: usize) -> Result<()> {
            let (to_device, off, len) = self.pending[slot]
                .take()
                .unwrap_or_else(|| panic!("waited on idle slot {slot}"));
            if to_device {
                self.device[off..off + len].copy_from_slice(&self.slots[slot][..len]);
            } else {
                self.slots[slot][..len].copy_from_slice(&self.device[off..off + len]);
            }
            Ok(())
        }
    }

    fn pattern(n: usize, seed: u8) -> Vec<u8> {
        (0..n)
            .map(|i| (i as u8).wrapping_mul(31).wrapping_add(seed))
            .collect()
    }

    #[test]
    fn upload_and_download_round_trip_through_two_slots() {
        let chunk = 64 << 10;
        for bytes in [0, 5, chunk, chunk + 1, 7 * chunk + 100] {
            let src = pattern(bytes, 3);
            let mut lane = SimLane::new(bytes, chunk);
            let all = Plan::new(bytes, chunk, 1).lane(0);
            // SAFETY: `src` and the simulated device hold `bytes` bytes.
            unsafe { upload(&mut lane, src.as_ptr(), 0, &all) }.unwrap();
            assert_eq!(lane.device, src, "upload of {bytes} bytes");
            assert!(lane.pending.iter().all(Option::is_none));
            if all.len() >= 2 {
                assert_eq!(
                    lane.max_in_flight, SLOTS,
                    "upload overlaps: both slots in flight"
                );
            }
            let mut back = vec![0u8; bytes];
            lane.max_in_flight = 0;
            // SAFETY: as above.
            unsafe { download(&mut lane, 0, back.as_mut_ptr(), &all) }.unwrap();
            assert_eq!(back, src, "download of {bytes} bytes");
            if all.len() >= 2 {
                assert_eq!(lane.max_in_flight, SLOTS, "download keeps both slots busy");
            }
        }
    }

    #[test]
    fn an_error_drains_the_copies_in_flight() {
        let chunk = 64 << 10;
        let bytes = 6 * chunk;
        let src = pattern(bytes, 1);
        let all = Plan::new(bytes, chunk, 1).lane(0);
        for fail_at in 1..=6 {
            let mut lane = SimLane::new(bytes, chunk);
            lane.fail_at = Some(fail_at);
            // SAFETY: `src` and the simulated device hold `bytes` bytes.
            let r = unsafe { upload(&mut lane, src.as_ptr(), 0, &all) };
            assert!(r.is_err());
            assert!(
                lane.pending.iter().all(Option::is_none),
                "upload, fail at {fail_at}"
            );
            let mut lane = SimLane::new(bytes, chunk);
            lane.fail_at = Some(fail_at);
            let mut back = vec![0u8; bytes];
            // SAFETY: as above.
            let r = unsafe { download(&mut lane, 0, back.as_mut_ptr(), &all) };
            assert!(r.is_err());
            assert!(
                lane.pending.iter().all(Option::is_none),
                "download, fail at {fail_at}"
            );
        }
    }

    #[test]
    fn lanes_in_parallel_move_every_byte() {
        let chunk = 64 << 10;
        let bytes = 9 * MIN_CHUNK + 1234;
        let src = pattern(bytes, 9);
        let plan = Plan::new(bytes, chunk, 4);
        assert_eq!(plan.lanes(), 4);
        // Each simulated lane has its own device copy; the test merges them by range.
        let mut lanes: Vec<SimLane> = (0..4).map(|_| SimLane::new(bytes, chunk)).collect();
        let src_addr = src.as_ptr() as usize;
        for_each_lane(&mut lanes, plan.lanes(), |i, lane| {
            // SAFETY: `src` and each lane's device hold `bytes` bytes; lanes read disjoint
            // ranges of `src`.
            unsafe { upload(lane, src_addr as *const u8, 0, &plan.lane(i)) }
        })
        .unwrap();
        let mut device = vec![0u8; bytes];
        for (i, lane) in lanes.iter().enumerate() {
            let c = plan.lane(i);
            let r = c.get(0).start..c.get(c.len() - 1).end;
            device[r.clone()].copy_from_slice(&lane.device[r]);
        }
        assert_eq!(device, src);
        let mut back = vec![0u8; bytes];
        let back_addr = back.as_mut_ptr() as usize;
        for_each_lane(&mut lanes, plan.lanes(), |i, lane| {
            // SAFETY: lanes write disjoint ranges of `back`, which holds `bytes` bytes.
            unsafe { download(lane, 0, back_addr as *mut u8, &plan.lane(i)) }
        })
        .unwrap();
        assert_eq!(back, src);
    }

    #[test]
    fn the_first_lane_error_is_reported() {
        let mut lanes = vec![0u32; 3];
        let r = for_each_lane(&mut lanes, 3, |i, x| {
            *x = i as u32 + 1;
            if i == 2 {
                Err(Error::Driver(format!("lane {i}")))
            } else {
                Ok(())
            }
        });
        assert_eq!(r, Err(Error::Driver("lane 2".into())));
        assert_eq!(lanes, [1, 2, 3], "every lane ran");
    }
}
