//! Top-down merge sort: two child sorts down to `cutoff` elements, then a sequential merge after
//! the join (GTaP's mergesort; its final merges are one thread's sequential work).

use gtap::Slice;

/// Sorts `data` using `tmp` (same length) as scratch.
#[gtap::function]
pub fn mergesort(data: Slice<u32>, tmp: Slice<u32>, cutoff: usize) {
    let n = data.len();
    if n <= cutoff {
        super::seq::sort(data);
        return;
    }
    let mid = n / 2;
    task!(mergesort(data.slice(0, mid), tmp.slice(0, mid), cutoff));
    task!(mergesort(data.slice(mid, n), tmp.slice(mid, n), cutoff));
    taskwait!();
    super::seq::merge(data.slice(0, mid), data.slice(mid, n), tmp);
    data.copy_from(0, tmp, 0, n);
}

gtap::program!(
    /// `mergesort` alone.
    pub MergeSort = [mergesort]
);
