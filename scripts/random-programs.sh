#!/usr/bin/env bash
# Random task programs against plain Rust (docs/frontend.md, "Random programs"):
#   scripts/random-programs.sh N [SEED]
# generates N programs from seed SEED on (default 1), in batches of BATCH (default 200, one
# build each; JOBS of them at once, default the cores up to 4), runs each on the CPU executor
# with 1, 2 and all workers, children as calls on and off, and compares every outcome with the plain-Rust reference. A batch that fails
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
target_base=${CARGO_TARGET_DIR:-target}
GEN=$target_base/release/random-program
logs=$(mktemp -d "${TMPDIR:-/tmp}/random-programs.XXXXXX")
failed_seeds=()
failed_batches=()
# A batch is one crate whose compile is mostly rustc's front end, one core's work: JOBS batches
# (default: the cores, at most 4) build side by side, each in a target directory of its own
# (job 0 in the workspace's), since cargo builds one thing at a time in a directory.
JOBS=${JOBS:-$(nproc 2>/dev/null || echo 1)}
[ "$JOBS" -gt 4 ] && JOBS=4
batch() { # batch SEED COUNT JOB: runs one batch, its log in $logs/batch-SEED.log
  local dir=$target_base
  [ "$3" -gt 0 ] && dir=$target_base/random-programs-job$3
  CARGO_TARGET_DIR=$dir GTAP_RANDOM_COUNT=$2 GTAP_RANDOM_SEED=$1 \
    cargo test -q --release -p gtap-random-programs --test ci_set -- generated_programs \
    >"$logs/batch-$1.log" 2>&1
  echo $? >"$logs/batch-$1.rc"
}
progress() {
  local filled=$(( 40 * $1 / N ))
  printf '\r[%-40s] %d/%d programs, %d s ' "$(printf '#%.0s' $(seq 1 $filled) 2>/dev/null)" \
    "$1" "$N" "$(( $(date +%s) - start ))"
}
start=$(date +%s)
declare -A job_of_seed=() count_of_seed=()
free_jobs=$(seq -s ' ' 0 $(( JOBS - 1 )))
next=0 done_n=0
progress 0
while [ "$done_n" -lt "$N" ]; do
  # Start batches while a job is free.
  while [ "$next" -lt "$N" ] && [ -n "$free_jobs" ]; do
    j=${free_jobs%% *}; [ "$j" = "$free_jobs" ] && free_jobs="" || free_jobs=${free_jobs#* }
    n=$(( N - next < BATCH ? N - next : BATCH ))
    s=$(( SEED + next ))
    job_of_seed[$s]=$j count_of_seed[$s]=$n
    batch "$s" "$n" "$j" &
    next=$(( next + n ))
  done
  wait -n
  # Collect every batch that ended.
  for s in "${!job_of_seed[@]}"; do
    [ -f "$logs/batch-$s.rc" ] || continue
    free_jobs="$free_jobs ${job_of_seed[$s]}"; free_jobs=${free_jobs# }
    n=${count_of_seed[$s]}
    unset "job_of_seed[$s]"
    done_n=$(( done_n + n ))
    if [ "$(cat "$logs/batch-$s.rc")" != 0 ]; then
      echo
      echo "=== seeds $s..$(( s + n - 1 )) failed:"
      grep -E "^seed [0-9]+:|^error|mismatches" "$logs/batch-$s.log" | head -40
      failed_batches+=("$s")
    fi
    progress "$done_n"
  done
done
# Each failing batch's seeds, each shrunk (in the workspace's target directory).
for s in "${failed_batches[@]}"; do
  log=$logs/batch-$s.log
  n=${count_of_seed[$s]}
  # Mismatches name their seeds; a program rustc rejects names its module `t<i>`.
  seeds=$(grep -oE "^seed [0-9]+" "$log" | awk '{print $2}' | sort -un)
  for m in $(grep -oE "out/programs.rs:[0-9]+" "$log" | sort -u); do
    line=${m##*:}
    i=$($GEN "$s" "$n" | head -n "$line" | grep -oE "^pub mod t[0-9]+" | tail -1 | grep -oE "[0-9]+")
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
done
printf '\r[%-40s] %d/%d programs, %d s\n' "########################################" "$N" "$N" \
  "$(( $(date +%s) - start ))"
$GEN --coverage "$SEED" "$N"
if [ ${#failed_seeds[@]} -gt 0 ]; then
  echo "FAILED seeds: ${failed_seeds[*]} (logs in $logs)"
  exit 1
fi
echo "random programs: $N of $N match plain Rust on every configuration"
