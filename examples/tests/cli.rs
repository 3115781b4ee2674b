//! The examples' shared options (`--scheduler`, `--profile`, `--reference`, the idle knobs) on
//! a machine without a GPU: accepted values run, bad ones are refused with clap's message
//! naming the possible values (exit status 2), and a profile that cannot exist is an error
//! rather than a silent no-op. The parser's own cases are unit tests in `src/cli.rs`.

use std::process::{Command, Output};

fn fib(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_fib"))
        .args(args)
        .output()
        .expect("the fib example runs")
}

fn text(o: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

#[test]
fn scheduler_values_run_and_are_checked() {
    for s in ["wf", "shared", "gq"] {
        let o = fib(&["12", "--cpu", "--scheduler", s]);
        assert!(o.status.success(), "--scheduler {s}: {}", text(&o));
        assert!(text(&o).contains("fib: OK"), "{}", text(&o));
    }
}

#[test]
fn a_bad_scheduler_names_the_choices() {
    let o = fib(&["12", "--cpu", "--scheduler", "fifo"]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("invalid value 'fifo' for '--scheduler"), "{t}");
    assert!(t.contains("[possible values: wf, shared, gq]"), "{t}");
}

#[test]
fn a_profile_of_a_cpu_run_is_an_error() {
    let dir = std::env::temp_dir().join("gtap-cli-test-profile");
    let o = fib(&["12", "--cpu", "--profile", dir.to_str().unwrap()]);
    assert!(!o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("has no profile"), "{}", text(&o));
}

#[test]
fn a_cancelled_run_stops_and_the_next_run_is_right() {
    // fib(46) takes minutes on the CPU: both stops (a token after 20 ms, a deadline of 20 ms)
    // must cut it short, and fib(25) after each must be right (the binary checks both).
    let o = Command::new(env!("CARGO_BIN_EXE_cancel"))
        .args(["46", "20", "--cpu", "--workers", "2", "--reps", "2"])
        .output()
        .expect("runs");
    let t = text(&o);
    assert!(o.status.success(), "{t}");
    assert!(t.contains("token -> Cancelled in"), "{t}");
    assert!(t.contains("cancel: OK"), "{t}");
}

fn run(bin: &str, args: &[&str]) -> Output {
    Command::new(bin)
        .args(args)
        .output()
        .expect("the example runs")
}

#[test]
fn either_reference_checks_the_answer_and_names_itself() {
    for (bin, args) in [
        (env!("CARGO_BIN_EXE_nqueens"), &["9", "3"][..]),
        (env!("CARGO_BIN_EXE_binary_tree"), &["8", "8", "8"][..]),
        (env!("CARGO_BIN_EXE_cilksort"), &["20000"][..]),
    ] {
        for (value, name) in [("seq", "sequential"), ("rayon", "rayon")] {
            let mut a = args.to_vec();
            a.extend(["--cpu", "--reference", value]);
            let o = run(bin, &a);
            let t = text(&o);
            assert!(o.status.success(), "{bin} --reference {value}: {t}");
            assert!(t.contains(": OK"), "{t}");
            assert!(t.contains(&format!("; {name} ")), "{t}");
        }
    }
}

#[test]
fn a_bad_reference_names_the_choices() {
    let o = run(
        env!("CARGO_BIN_EXE_nqueens"),
        &["8", "3", "--cpu", "--reference", "gpu"],
    );
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("invalid value 'gpu' for '--reference"), "{t}");
    assert!(t.contains("[possible values: seq, rayon]"), "{t}");
}

#[test]
fn idle_knobs_in_range_run_and_out_of_range_name_the_field() {
    let o = fib(&["12", "--cpu", "--idle-max-ns", "8192", "--steal-tries", "2"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("fib: OK"), "{}", text(&o));
    for (flag, value, field) in [
        ("--idle-max-ns", "255", "idle_max_ns"),
        ("--idle-max-ns", "1000001", "idle_max_ns"),
        ("--steal-tries", "0", "steal_tries"),
        ("--steal-tries", "65", "steal_tries"),
    ] {
        let o = fib(&["12", "--cpu", flag, value]);
        assert!(!o.status.success(), "{flag} {value}: {}", text(&o));
        let t = text(&o);
        assert!(
            t.contains(field) && t.contains(value),
            "{flag} {value}: {t}"
        );
    }
}

#[test]
fn release_other_below_in_range_runs_and_zero_names_the_field() {
    let o = fib(&["12", "3", "epaq", "--cpu", "--release-other-below", "64"]);
    assert!(o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("fib: OK"), "{}", text(&o));
    let o = fib(&["12", "--cpu", "--release-other-below", "0"]);
    assert!(!o.status.success(), "{}", text(&o));
    let t = text(&o);
    assert!(t.contains("release_other_below"), "{t}");
}
