#!/usr/bin/env bash
# Random task programs against plain Rust (docs/frontend.md, "Random programs"):
#   scripts/random-programs.sh N [SEED]
# generates N programs from seed SEED on (default 1), in batches of BATCH (default 200, one
# build each), runs each on the CPU executor with 1, 2 and all workers, children as calls on
# and off, and compares every outcome with the plain-Rust reference. A batch that fails
# prints what failed; each failing seed is then shrunk (`random-program --minimize`) and the
# smallest program that fails the same way is printed. Ends with the coverage report of all N.
# Exits non-zero if anything failed.
set -uo pipefail
cd "$(dirname "$0")/.."
N=${1:?usage: scripts/random-programs.sh N [SEED]}
SEED=${2:-1}
BATCH=${BATCH:-200}
rustup component add rust-src llvm-tools llvm-bitcode-linker >/dev/null 2>&1 || true
cargo build -q --release -p gtap-random-gen || exit 1
GEN=target/release/random-program
logs=$(mktemp -d "${TMPDIR:-/tmp}/random-programs.XXXXXX")
failed_seeds=()
done_n=0
start=$(date +%s)
while [ "$done_n" -lt "$N" ]; do
  n=$(( N - done_n < BATCH ? N - done_n : BATCH ))
  s=$(( SEED + done_n ))
  filled=$(( 40 * done_n / N ))
  printf '\r[%-40s] %d/%d programs, %d s ' "$(printf '#%.0s' $(seq 1 $filled) 2>/dev/null)" \
    "$done_n" "$N" "$(( $(date +%s) - start ))"
  log=$logs/batch-$s.log
  if ! GTAP_RANDOM_COUNT=$n GTAP_RANDOM_SEED=$s \
      cargo test -q --release -p gtap-random-programs --test ci_set -- generated_programs >"$log" 2>&1; then
    echo
    echo "=== seeds $s..$(( s + n - 1 )) failed:"
    grep -E "^seed [0-9]+:|^error|mismatches" "$log" | head -40
    # Mismatches name their seeds; a program rustc rejects names its module `t<i>`.
    seeds=$(grep -oE "^seed [0-9]+" "$log" | awk '{print $2}' | sort -un)
    for m in $(grep -oE "out/programs.rs:[0-9]+" "$log" | sort -u); do
      line=${m##*:}
      i=$(GTAP_RANDOM_COUNT=$n GTAP_RANDOM_SEED=$s $GEN "$s" "$n" | head -n "$line" |
          grep -oE "^pub mod t[0-9]+" | tail -1 | grep -oE "[0-9]+")
      [ -n "$i" ] && seeds="$seeds $(( s + i ))"
    done
    [ -z "$seeds" ] && { tail -30 "$log"; failed_seeds+=("$s..(build)"); }
    for f in $(echo $seeds | tr ' ' '\n' | sort -un); do
      failed_seeds+=("$f")
      expect=$(grep -m1 -oE "^error\[E[0-9]+\]|mismatches" "$log")
      echo "=== seed $f, shrinking (the variant fails with \"$expect\" too):"
      variant=$logs/variant-$f.rs
      $GEN --minimize "$f" "$variant" "$expect" \
        env GTAP_RANDOM_FILE="$variant" cargo test -q --release -p gtap-random-programs --test ci_set -- generated_programs
    done
  fi
  done_n=$(( done_n + n ))
done
printf '\r[%-40s] %d/%d programs, %d s\n' "########################################" "$N" "$N" \
  "$(( $(date +%s) - start ))"
$GEN --coverage "$SEED" "$N"
if [ ${#failed_seeds[@]} -gt 0 ]; then
  echo "FAILED seeds: ${failed_seeds[*]} (logs in $logs)"
  exit 1
fi
echo "random programs: $N of $N match plain Rust on every configuration"
