//! `random-program SEED [COUNT]`: prints the programs of seeds `SEED..SEED+COUNT` as one Rust
//! file (both builds, the shared definitions and the entry table `gtap-random-programs`
//! reads), for reading a program or compiling it alone.
//!
//! `random-program --coverage SEED COUNT`: the coverage report of those programs.
//!
//! `random-program --minimize SEED FILE EXPECT CMD..`: shrinks the program of `SEED` (see
//! `shrink.rs`) while it still fails the same way: each variant is written to `FILE`, `CMD`
//! runs, and the variant is kept when `CMD` exits non-zero with `EXPECT` in its output (the
//! first line of the original failure, say). Prints the smallest program found.

use std::process::{exit, Command};

use gtap_random_gen::{gen, programs_module, render, shrink, Build, Coverage, Program};

fn number(a: &str) -> u64 {
    a.parse().unwrap_or_else(|_| {
        eprintln!("`{a}` is not a number\n{USAGE}");
        exit(2)
    })
}

const USAGE: &str =
    "usage: random-program SEED [COUNT]\n       random-program --coverage SEED COUNT\n       random-program --minimize SEED FILE EXPECT CMD..";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.first().map(String::as_str) == Some("--minimize") {
        if args.len() < 5 {
            eprintln!("{USAGE}");
            exit(2);
        }
        let p = gen::program(number(&args[1]), &mut Coverage::default());
        let small = minimize(p, &args[2], &args[3], &args[4..]);
        println!("// {} statements", shrink::size(&small));
        print!("{}", render::module(&small, Build::Tasks, "program"));
        return;
    }
    if args.first().map(String::as_str) == Some("--coverage") {
        let (seed, count) = match &args[1..] {
            [s, c] => (number(s), number(c)),
            _ => {
                eprintln!("{USAGE}");
                exit(2);
            }
        };
        let mut cov = Coverage::default();
        for s in seed..seed + count {
            gen::program(s, &mut cov);
        }
        print!("{}", cov.report());
        return;
    }
    let (seed, count) = match &args[..] {
        [s] => (number(s), 1),
        [s, c] => (number(s), number(c)),
        _ => {
            eprintln!("{USAGE}");
            exit(2);
        }
    };
    let mut cov = Coverage::default();
    let progs: Vec<_> = (seed..seed + count)
        .map(|s| gen::program(s, &mut cov))
        .collect();
    print!("{}", programs_module(&progs));
}

/// Whether `p`, written to `file`, still makes `cmd` fail with `expect` in its output.
fn fails(p: &Program, file: &str, expect: &str, cmd: &[String]) -> bool {
    std::fs::write(file, programs_module(std::slice::from_ref(p))).expect("writes the variant");
    let out = Command::new(&cmd[0])
        .args(&cmd[1..])
        .output()
        .expect("runs the check");
    let text = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
    !out.status.success() && text.contains(expect)
}

/// Greedy delta debugging: the first smaller variant that still fails replaces the program,
/// until none does.
fn minimize(mut p: Program, file: &str, expect: &str, cmd: &[String]) -> Program {
    if !fails(&p, file, expect, cmd) {
        eprintln!("the program of seed {} does not fail that way", p.seed);
        exit(1);
    }
    let mut tries = 0;
    'shrink: loop {
        for c in shrink::candidates(&p) {
            tries += 1;
            if fails(&c, file, expect, cmd) {
                eprintln!("{} statements ({tries} tries)", shrink::size(&c));
                p = c;
                continue 'shrink;
            }
        }
        break;
    }
    std::fs::write(file, programs_module(std::slice::from_ref(&p))).expect("writes the result");
    p
}
