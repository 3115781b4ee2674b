//! N-Queens by bitmask backtracking: one task per partial board down to `cutoff` rows, then a
//! sequential count. Spawns are detached (no `taskwait!()`): each leaf adds its count to a
//! shared counter with an atomic, and the run ends when every task has finished.

use gtap::Slice;

/// Counts the completions of the board (`cols`/`diag1`/`diag2` occupied bitmasks at `row`)
/// into `count[0]`.
#[gtap::function]
pub fn nqueens(
    n: u32,
    row: u32,
    cols: u32,
    diag1: u32,
    diag2: u32,
    cutoff: u32,
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
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        task!(nqueens(
            n,
            row + 1,
            cols | bit,
            ((diag1 | bit) << 1) & all,
            (diag2 | bit) >> 1,
            cutoff,
            count
        ));
    }
}

/// [`nqueens`] with EPAQ queue hints (GTaP's 2-queue experiment, run with
/// `Config::queues = 2`): a child that will count its board sequentially (its row reaches the
/// cutoff) goes to queue 1, a child that spawns further to queue 0.
#[gtap::function]
pub fn nqueens_epaq(
    n: u32,
    row: u32,
    cols: u32,
    diag1: u32,
    diag2: u32,
    cutoff: u32,
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
    let queue = u32::from(row + 1 >= cutoff);
    while free != 0 {
        let bit = free & free.wrapping_neg();
        free ^= bit;
        task!(
            queue = queue,
            nqueens_epaq(
                n,
                row + 1,
                cols | bit,
                ((diag1 | bit) << 1) & all,
                (diag2 | bit) >> 1,
                cutoff,
                count
            )
        );
    }
}

gtap::program!(
    /// `nqueens` alone.
    pub NQueens = [nqueens]
);
gtap::program!(
    /// `nqueens_epaq` alone.
    pub NQueensEpaq = [nqueens_epaq]
);
