use gtap::Slice;

#[gtap::function]
fn fill(n: u32, buf: Slice<f64>) -> u32 {
    let mut i = 0;
    while i < n {
        buf.set(i as usize, f64::from(i));
        i += 1;
    }
    n
}

/// A block-level task: thread 0 spawns the child, every thread joins, the block sums.
#[gtap::function(block)]
fn block_sum(n: u32, buf: Slice<f64>) -> f64 {
    let mut filled = 0;
    if gtap::block::thread_index() == 0 {
        filled = task!(fill(n, buf));
    }
    taskwait!();
    let filled = gtap::block::broadcast(filled);
    let t = gtap::block::thread_index();
    let mut part = 0.0;
    let mut i = t;
    while i < filled {
        part += buf.get(i as usize);
        i += gtap::block::size();
    }
    gtap::block::sum_f64(part)
}

gtap::program!(BlockSum = [block_sum, fill]);

fn main() {
    const { assert!(<block_sum as gtap::TaskFn>::BLOCK) };
    const { assert!(!<fill as gtap::TaskFn>::BLOCK) };
    // On the CPU executor a block-level task runs on a block of one thread.
    let mut rt = gtap::Runtime::cpu(gtap::Config::default()).expect("a runtime");
    let buf = rt.alloc_zeroed::<f64>(10).expect("a buffer");
    let sum = rt.run::<BlockSum, _>(block_sum, (10, buf.slice())).expect("runs");
    assert_eq!(sum, 45.0);
}
