//! The profiled kernel's record region: allocated per run shape, read back into a
//! [`Profile`] after the run, freed with the runtime.

use super::*;

/// The profiled kernel's record regions for one run (nothing when profiling is off); freed on
/// drop, also when the run fails.
pub(super) struct ProfileRegion {
    pub(super) records: u64,
    pub(super) counts: u64,
    pub(super) warps: usize,
    pub(super) cap: u32,
}

impl ProfileRegion {
    pub(super) fn new(warps: usize, cap: u32) -> Result<Self> {
        let mut r = Self {
            records: 0,
            counts: 0,
            warps,
            cap,
        };
        if cap > 0 {
            // One scratch record per warp after its `cap` (see the kernel's `Prof`).
            r.records = dev_alloc(warps * (cap as usize + 1) * size_of::<BatchRecord>())?;
            r.counts = dev_alloc(warps * 4)?;
        }
        Ok(r)
    }

    /// The records the kernel wrote (it stored every warp's count at exit).
    pub(super) fn download(
        &self,
        block: u32,
        block_level: bool,
        s: sys::CUstream,
    ) -> Result<Option<Profile>> {
        if self.cap == 0 {
            return Ok(None);
        }
        let cap = self.cap as usize;
        let stride = cap + 1;
        let mut counts = vec![0u32; self.warps];
        let mut records = vec![BatchRecord::default(); self.warps * stride];
        // SAFETY: both regions were allocated with exactly these sizes in `new`.
        unsafe {
            check(
                "cuMemcpyDtoHAsync",
                sys::cuMemcpyDtoHAsync_v2(
                    counts.as_mut_ptr().cast(),
                    self.counts,
                    self.warps * 4,
                    s,
                ),
            )?;
            check(
                "cuMemcpyDtoHAsync",
                sys::cuMemcpyDtoHAsync_v2(
                    records.as_mut_ptr().cast(),
                    self.records,
                    records.len() * size_of::<BatchRecord>(),
                    s,
                ),
            )?;
            check("cuStreamSynchronize", sys::cuStreamSynchronize(s))?;
        }
        let warps = counts
            .iter()
            .enumerate()
            .map(|(w, &n)| {
                let kept = (n as usize).min(cap);
                WarpTrace {
                    batches: records[w * stride..w * stride + kept].to_vec(),
                    dropped: u64::from(n) - kept as u64,
                }
            })
            .collect();
        Ok(Some(Profile {
            warps,
            block,
            block_level,
        }))
    }
}

impl Drop for ProfileRegion {
    fn drop(&mut self) {
        for ptr in [self.records, self.counts] {
            if ptr != 0 {
                // SAFETY: allocated by `dev_alloc` in `new`, freed once.
                unsafe { sys::cuMemFree_v2(ptr) };
            }
        }
    }
}
