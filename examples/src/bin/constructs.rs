//! `constructs [--cpu|--gpu]`: runs each construct of `apps::constructs` (task results into
//! places, generic task functions, `?`, range `for` loops, loops and blocks with values after a
//! join) through `Runtime` on a few inputs, checks it against sequential code, and prints one
//! `OK` line per construct; exits non-zero on any mismatch or error.

use std::process::ExitCode;

use gtap::{Runtime, TaskFn};
use gtap_examples::{
    apps::constructs::{self as c, Constructs, Odd},
    host::{self, Opts},
};

const USAGE: &str = "constructs [--cpu|--gpu] [--workers N]";

const INPUTS: [u64; 6] = [0, 1, 2, 5, 9, 30];

/// Runs `f` on every input and compares with `want`; `Err` names the first mismatch.
fn check<T: TaskFn<Args = (u64,)>>(
    rt: &mut Runtime,
    f: T,
    want: impl Fn(u64) -> T::Output,
) -> Result<(), String>
where
    T::Output: PartialEq + std::fmt::Debug,
{
    for x in INPUTS {
        let got = rt
            .run::<Constructs, _>(f, (x,))
            .map_err(|e| e.to_string())?;
        let expected = want(x);
        if got != expected {
            return Err(format!("{}({x}) = {got:?}, expected {expected:?}", T::NAME));
        }
    }
    Ok(())
}

fn seq_break_value(x: u64) -> u64 {
    let mut k = x;
    while k * k <= 50 {
        k += 1;
    }
    (k * k + k) * 2
}

fn seq_tail_loop(x: u64) -> u64 {
    let mut k = x;
    while !(k * k).is_multiple_of(3) {
        k += 1;
    }
    k * k
}

fn seq_nested_breaks(x: u64) -> u64 {
    let mut row = 0;
    loop {
        for j in 0..4 {
            let a = (row + j) * (row + j);
            if a > x {
                return a;
            }
            if a == 4 {
                break;
            }
        }
        row += 1;
    }
}

fn seq_res_chain(x: u64) -> Result<u64, Odd> {
    let half = |v: u64| {
        if v % 2 == 1 {
            Err(Odd::At(v))
        } else {
            Ok(v / 2)
        }
    };
    Ok(half(half(x)?)? + 1)
}

fn main() -> ExitCode {
    let opts = Opts::from_env(USAGE);
    let mut rt = match opts.runtime() {
        Ok(rt) => rt,
        Err(e) => return host::fail("constructs", &e),
    };
    let sq = |v: u64| v * v;
    let sum_sq = |lo: u64, hi: u64| (lo..hi).map(sq).sum::<u64>();
    let cases: Vec<(&str, Result<(), String>)> = vec![
        (
            "counts[i] = task!(..) in a loop",
            check(&mut rt, c::into_array, |n| sum_sq(n, n + 8)),
        ),
        (
            "p.x / t.1 = task!(..)",
            check(&mut rt, c::into_fields, |n| {
                n * n * 1000 + (n + 1) * 10 + 7 + sq(n + 1)
            }),
        ),
        (
            "ps[i].x = task!(..)",
            check(&mut rt, c::into_element_fields, |n| {
                (0..4).map(|i| sq(n + i) * i).sum()
            }),
        ),
        ("generic fn gsum::<u64>", {
            let mut r = Ok(());
            for (lo, hi) in [(0u32, 1u32), (0, 10), (3, 40)] {
                let want: u64 = (lo..hi).map(|k| 3 * u64::from(k)).sum();
                match rt.run::<Constructs, _>(c::gsum::<u64>, (lo, hi, 3)) {
                    Ok(got) if got == want => {}
                    Ok(got) => r = Err(format!("gsum({lo}, {hi}) = {got}, expected {want}")),
                    Err(e) => r = Err(e.to_string()),
                }
            }
            r
        }),
        (
            "associated functions (#[gtap::tasks])",
            check(&mut rt, c::Range::squares, |n| sum_sq(n, n + 8)),
        ),
        (
            "const generic fan::<4>",
            check(&mut rt, c::fan::<4>, |x| sum_sq(x, x + 4)),
        ),
        (
            "const generic fan::<7>",
            check(&mut rt, c::fan::<7>, |x| sum_sq(x, x + 7)),
        ),
        (
            "? on Option",
            check(&mut rt, c::opt_chain, |x| {
                x.checked_sub(1).map(|a| a * a + 1)
            }),
        ),
        ("? on Result", check(&mut rt, c::res_chain, seq_res_chain)),
        (
            "for i in 0..x with x: u64",
            check(&mut rt, c::for_u64, |x| sum_sq(0, x)),
        ),
        (
            "for i in 1..=x",
            check(&mut rt, c::for_inclusive, |x| {
                (1..=x).map(|i| i * i * i).sum()
            }),
        ),
        (
            "break 'l value after a join",
            check(&mut rt, c::break_value, seq_break_value),
        ),
        (
            "loop value as the result",
            check(&mut rt, c::tail_loop, seq_tail_loop),
        ),
        (
            "let x = { .. join .. x .. }",
            check(&mut rt, c::shadow, |x| x * x * x + 1),
        ),
        (
            "labelled block value",
            check(&mut rt, c::block_value, |x| {
                if x * x > 10 {
                    x * x - 10
                } else {
                    x * x + 100
                }
            }),
        ),
        (
            "let v = 'outer: loop { while .. }",
            check(&mut rt, c::nested_breaks, seq_nested_breaks),
        ),
    ];
    let mut failed = 0;
    for (name, result) in &cases {
        match result {
            Ok(()) => println!("OK {name} ({})", rt.backend_name()),
            Err(e) => {
                failed += 1;
                println!("FAILED {name}: {e}");
            }
        }
    }
    if failed == 0 {
        println!(
            "constructs: OK ({} constructs on {})",
            cases.len(),
            rt.backend_name()
        );
        ExitCode::SUCCESS
    } else {
        println!("constructs: {failed} of {} constructs FAILED", cases.len());
        ExitCode::FAILURE
    }
}
