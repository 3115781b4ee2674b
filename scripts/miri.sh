#!/usr/bin/env bash
# The host's unsafe code under Miri (docs/cpu-executor.md, "Under Miri"): the task programs of
# tests/miri.rs on the CPU executor (1-3 workers, inline children on and off), and the unit
# tests of the CPU executor (arena, frames, joins) and of the host buffers.
#
# Tree Borrows, not Miri's default Stacked Borrows: crossbeam-epoch (behind crossbeam-deque's
# stealers) breaks Stacked Borrows in its intrusive list of participants, upstream
# crossbeam-rs/crossbeam#545 and #878; crossbeam's own CI runs Miri with Tree Borrows
# (crossbeam-rs/crossbeam#996). Leak checks stay on: crossbeam-epoch's global collector is
# never freed, so the script accepts a run whose every leak report names crossbeam-epoch, and
# fails on any other leak (one of gtap's).
#
# Needs network the first time (rustup installs nightly with its miri component).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! cargo +nightly miri --version >/dev/null 2>&1; then
  rustup toolchain install nightly --profile minimal --component miri,rust-src
fi
export MIRIFLAGS="-Zmiri-tree-borrows ${MIRIFLAGS:-}"
status=0
log=$(mktemp)
run() { # run LABEL CARGO-ARGS...
  local label=$1; shift
  echo "=== miri: $label"
  local rc=0
  cargo +nightly miri test --release "$@" >"$log" 2>&1 || rc=$?
  grep -E "^test |test result|^error|^warning: " "$log" | grep -v "^warning: unused" || true
  local ok=1
  if ! python3 - "$log" "$rc" <<'PY'; then ok=0; fi
import re, sys
text = open(sys.argv[1]).read()
rc = int(sys.argv[2])
if "test result: ok" not in text or "test result: FAILED" in text:
    sys.exit(1)
# Every report after the tests ran: leaks are allowed when crossbeam-epoch allocated them.
reports = re.split(r"\n(?=error: )", text)
bad = []
leaks = 0
for r in reports:
    if not r.startswith("error: "):
        continue
    if r.startswith("error: memory leaked"):
        leaks += 1
        if "crossbeam-epoch" not in r and "crossbeam_epoch" not in r:
            bad.append(r)
    elif r.startswith(("error: the evaluated program leaked memory", "error: aborting due to",
                       "error: test failed, to rerun")):
        continue
    else:
        bad.append(r)
for r in bad:
    print("not crossbeam-epoch's:\n" + r[:3000])
if not bad:
    print(f"leak reports: {leaks}, each naming crossbeam-epoch (its global collector)")
sys.exit(1 if bad else 0)
PY
  if [ $ok = 1 ]; then
    echo "--- ok: $label"
  else
    status=1
    echo "--- FAILED: $label"
    tail -60 "$log"
  fi
}
run "task programs on the CPU executor (tests/miri.rs)" -p gtap --test miri
run "CPU executor and buffer unit tests" -p gtap-runtime --lib -- cpu:: buffer
rm -f "$log"
exit $status
