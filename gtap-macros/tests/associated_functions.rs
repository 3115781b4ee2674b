//! Task functions as associated functions of a type (`#[gtap::tasks]` on the `impl`), on the
//! CPU executor against plain Rust twins: `Self::f` and `Type::f` spawns, two task functions
//! of one type spawning each other, a plain method beside them, a data argument, and the
//! names the runtime reports.

mod common;

use common::check;
use gtap::{program, Slice};

/// A type with task functions and an ordinary associated function.
pub struct Tree;

#[gtap::tasks]
impl Tree {
    /// The sum of `lo..hi`, halving.
    #[gtap::function]
    pub fn sum(lo: u64, hi: u64) -> u64 {
        if hi - lo <= 1 {
            return if hi > lo { lo } else { 0 };
        }
        let mid = Self::mid(lo, hi);
        let a = task!(Self::sum(lo, mid));
        let b = task!(Tree::sum(mid, hi));
        taskwait!();
        a + b
    }

    /// Not a task: stays an associated function.
    pub fn mid(lo: u64, hi: u64) -> u64 {
        lo + (hi - lo) / 2
    }

    /// Mutual recursion between two task functions of the type, one of them private.
    #[gtap::function]
    pub fn even_odd(n: u64) -> u64 {
        if n == 0 {
            return 0;
        }
        let x = task!(Self::odd_step(n - 1));
        taskwait!();
        x + 1
    }

    #[gtap::function]
    fn odd_step(n: u64) -> u64 {
        if n == 0 {
            return 100;
        }
        let x = task!(Self::even_odd(n - 1));
        taskwait!();
        x * 2
    }

    /// Writes `i * i` into `out[i]` for `i` in `lo..hi`; detached children, no join.
    #[gtap::function]
    pub fn fill(out: Slice<u64>, lo: usize, hi: usize) {
        if hi - lo <= 4 {
            for i in lo..hi {
                out.set(i, (i * i) as u64);
            }
            return;
        }
        let mid = lo + (hi - lo) / 2;
        task!(Self::fill(out, lo, mid));
        task!(Self::fill(out, mid, hi));
    }
}

program!(Sums = [Tree::sum]);
program!(EvenOdd = [Tree::even_odd, Tree::odd_step]);
program!(Fill = [Tree::fill]);

fn seq_even_odd(n: u64) -> u64 {
    if n == 0 {
        return 0;
    }
    let n = n - 1;
    let x = if n == 0 { 100 } else { seq_even_odd(n - 1) * 2 };
    x + 1
}

#[test]
fn spawned_as_self_and_as_the_type() {
    for hi in [0u64, 1, 2, 7, 1000] {
        check::<Sums, _>(Tree::sum, (0, hi), (0..hi).sum());
    }
}

#[test]
fn two_task_functions_of_one_type_spawn_each_other() {
    for n in [0u64, 1, 2, 9, 30] {
        check::<EvenOdd, _>(Tree::even_odd, (n,), seq_even_odd(n));
    }
}

#[test]
fn data_arguments_and_detached_children() {
    let mut rt = gtap::Runtime::new(gtap::Config {
        backend: gtap::Backend::Cpu,
        ..gtap::Config::default()
    })
    .expect("a CPU runtime");
    let out = rt.alloc_zeroed::<u64>(100).expect("a buffer");
    rt.run::<Fill, _>(Tree::fill, (out.slice(), 0, 100))
        .expect("runs");
    let got = rt.download(&out).expect("download");
    let want: Vec<u64> = (0..100u64).map(|i| i * i).collect();
    assert_eq!(got, want);
}

#[test]
fn the_runtime_names_them_type_and_function() {
    use gtap::TaskFn;
    assert_eq!(<__gtap_Tree_sum as TaskFn>::NAME, "Tree::sum");
    assert_eq!(gtap::task::name_of(&Tree::odd_step), "Tree::odd_step");
    assert_ne!(
        gtap::task::kind_of(&Tree::even_odd),
        gtap::task::kind_of(&Tree::odd_step)
    );
    assert_eq!(Tree::mid(2, 10), 6);
}
