//! The soak example on the CPU executor (fewer runs than on the GPU): small runs' fixed cost,
//! mixed runs with an error injected every 250 (panics, `PoolExhausted`, a cancel, a
//! deadline), every answer and error checked, memory flat; and its argument check.

use std::process::Command;

#[test]
fn soak_on_the_cpu_executor() {
    let o = Command::new(env!("CARGO_BIN_EXE_soak"))
        .args(["20000", "--cpu", "--workers", "2"])
        .output()
        .expect("the soak example runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "{text}");
    assert!(text.contains("soak: OK"), "{text}");
    assert!(text.contains("0 failures"), "{text}");
    assert!(text.contains("errors injected"), "{text}");
}

#[test]
fn soak_refuses_a_bad_mode() {
    let o = Command::new(env!("CARGO_BIN_EXE_soak"))
        .args(["100", "maybe", "--cpu"])
        .output()
        .expect("the soak example runs");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("expected `lose` or `keep`"));
}
