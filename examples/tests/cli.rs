//! The examples' shared GPU options (`--scheduler`, `--profile`) on a machine without a GPU:
//! accepted values run, bad ones are refused with a message naming what to write instead, and
//! a profile that cannot exist is an error rather than a silent no-op.

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
    assert!(t.contains("--scheduler must be wf"), "{t}");
    assert!(t.contains("got `fifo`"), "{t}");
}

#[test]
fn a_profile_of_a_cpu_run_is_an_error() {
    let dir = std::env::temp_dir().join("gtap-cli-test-profile");
    let o = fib(&["12", "--cpu", "--profile", dir.to_str().unwrap()]);
    assert!(!o.status.success(), "{}", text(&o));
    assert!(text(&o).contains("has no profile"), "{}", text(&o));
}
