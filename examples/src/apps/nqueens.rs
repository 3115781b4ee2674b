//! N-Queens by bitmask backtracking: one task per partial board down to `cutoff` rows, then a
//! sequential count. Spawns are detached (no `taskwait!()`): each leaf adds its count to a
//! shared counter with an atomic, and the run ends when every task has finished.

use gtap::Slice;

/// Counts the completions of the board (`cols`/`diag1`/`diag2` occupied bitmasks at `row`)
/// into `count[0]`. A child that will count its board sequentially (its row reaches the
/// cutoff) is spawned on EPAQ queue `leaf_queue`, any other on queue 0: `leaf_queue = 0` puts
/// everything on one queue; GTaP's 2-queue experiment is `leaf_queue = 1` with
/// `Config::queues = 2`.
#[gtap::function]
#[allow(clippy::too_many_arguments)]
pub fn nqueens(
    n: u32,
    row: u32,
    cols: u32,
    diag1: u32,
    diag2: u32,
    cutoff: u32,
    leaf_queue: u32,
    count: Slice<u64>,
) {
    if row >= cutoff || row == n {
        let found = super::seq::nqueens_count(n, row, cols, diag1, diag2);
        if found > 0 {
            count.atomic_add(0, found);
        }
        return;
    }
    let all = (1u32 << n) - 1;
    let mut free = all & !(cols | diag1 | diag2);
    let queue = if row + 1 >= cutoff { leaf_queue } else { 0 };
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        task!(
            queue = queue,
            nqueens(
                n,
                row + 1,
                cols | bit,
                ((diag1 | bit) << 1) & all,
                (diag2 | bit) >> 1,
                cutoff,
                leaf_queue,
                count
            )
        );
    }
}

gtap::program!(
    /// `nqueens` alone.
    pub NQueens = [nqueens]
);
