//! Task functions that fail on request, for the soak (`soak`): each computes a checked answer
//! when asked to run normally, and fails in one way a user's program can when asked to
//! (a `Slice` or `Table` read out of bounds, an explicit `panic!` with a formatted message, an `unwrap`
//! on `None`, more children than `Config::max_children` before a join, a task that runs
//! longer than the watchdog).

use gtap::{Slice, Table};

/// The sum of `data[lo..hi]` by halves, a task per half down to 16 elements. Called with
/// `hi` past the slice's end, the leaf that reaches it reads out of bounds and panics.
#[gtap::function]
pub fn slice_sum(data: Slice<u64>, lo: u32, hi: u32) -> u64 {
    if hi - lo <= 16 {
        let mut sum = 0;
        for i in lo..hi {
            sum += data.get(i as usize);
        }
        return sum;
    }
    let mid = lo + (hi - lo) / 2;
    let a = task!(slice_sum(data, lo, mid));
    let b = task!(slice_sum(data, mid, hi));
    taskwait!();
    a + b
}

/// [`slice_sum`] over a replicated table (`Runtime::replicate`): on several GPUs each task
/// reads its own GPU's copy. Past the table's end it panics the same way.
#[gtap::function]
pub fn table_sum(data: Table<u64>, lo: u32, hi: u32) -> u64 {
    if hi - lo <= 16 {
        let mut sum = 0;
        for i in lo..hi {
            sum += data.get(i as usize);
        }
        return sum;
    }
    let mid = lo + (hi - lo) / 2;
    let a = task!(table_sum(data, lo, mid));
    let b = task!(table_sum(data, mid, hi));
    taskwait!();
    a + b
}

/// fib(n) with a task per call; the task that reaches `n == fail_at` fails: with `how = 1`
/// it panics with a literal message, with `how = 3` with a formatted one, with `how = 2` it
/// unwraps a `None`.
#[gtap::function]
pub fn fib_failing(n: u32, fail_at: u32, how: u32) -> u64 {
    if n == fail_at {
        if how == 1 {
            panic!("fib_failing reached its failure point");
        }
        if how == 3 {
            panic!("fib_failing reached n = {n}");
        }
        let nothing: Option<u64> = if how == 2 { None } else { Some(0) };
        return nothing.unwrap();
    }
    if n < 2 {
        return n as u64;
    }
    let a = task!(fib_failing(n - 1, fail_at, how));
    let b = task!(fib_failing(n - 2, fail_at, how));
    taskwait!();
    a + b
}

/// `width` children before one join, each adding its index plus one to `out[0]` (which
/// ends at `width * (width + 1) / 2`). More children than `Config::max_children` stop the run
/// with `Error::PoolExhausted` naming that knob.
#[gtap::function]
pub fn fan(width: u32, out: Slice<u64>) {
    let mut i = 0;
    while i < width {
        task!(fan_leaf(i, out));
        i += 1;
    }
    taskwait!();
}

/// One child of [`fan`].
#[gtap::function]
pub fn fan_leaf(i: u32, out: Slice<u64>) {
    out.atomic_add(0, u64::from(i) + 1);
}

/// Busy-waits `ns` nanoseconds (no batch ends on its warp, so a watchdog shorter than that
/// sees no progress), then returns how many times it read the clock.
#[gtap::function]
pub fn spin(ns: u64) -> u64 {
    let start = gtap::clock::now_ns();
    let mut reads = 1;
    while gtap::clock::now_ns() - start < ns {
        reads += 1;
    }
    reads
}

/// Writes through `addr`: with an address no allocation holds, an illegal-address fault, which
/// no run can stop cleanly (GPU only: on the CPU it would be a segmentation fault).
#[gtap::function]
pub fn wild_write(addr: u64) {
    // SAFETY: none; this is the fault the GPU check provokes on purpose.
    unsafe { (addr as *mut u64).write_volatile(1) };
}

gtap::program!(
    /// `slice_sum` alone.
    pub SliceSum = [slice_sum]
);
gtap::program!(
    /// `table_sum` alone.
    pub TableSum = [table_sum]
);
gtap::program!(
    /// `fib_failing` alone.
    pub FibFailing = [fib_failing]
);
gtap::program!(
    /// `fan` and its children.
    pub Fan = [fan, fan_leaf]
);
gtap::program!(
    /// `wild_write` alone.
    pub WildWrite = [wild_write]
);
gtap::program!(
    /// `spin` alone.
    pub Spin = [spin]
);
