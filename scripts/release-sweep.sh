#!/usr/bin/env bash
# Runs on the GPU machine (after gpu-bundle.sh): the work-first scheduler's release-policy
# sweep. For each (release_below, release_shift), the kernel medians of fib(40),
# nqueens(16, 7), the thread-level binary tree D=22 and cilksort 10^8, next to the
# shared-deque ablation. Prints one CSV row per run: workload,scheduler,below,shift,ms.
set -uo pipefail
cd "$(dirname "$0")/.."
B=.carry
. scripts/carry-unpack.sh
ms() { sed -n 's/.* in \([0-9.]*\) ms.*/\1/p' | head -1; }
row() { # row WORKLOAD SCHED BELOW SHIFT CMD...
  local w=$1 s=$2 b=$3 sh=$4; shift 4
  local t
  t=$(timeout 120 "$@" --gpu --reps "${REPS:-3}" 2>&1 | ms)
  echo "$w,$s,$b,$sh,${t:-FAILED}"
}
echo "workload,scheduler,release_below,release_shift,kernel_ms"
for w in "fib 40" "nqueens 16 7" "binary_tree 22 256 256"; do
  name=${w%% *}
  row "$name" shared - - $B/$w --scheduler shared
  for below in ${BELOW:-1 8 64}; do
    for shift in ${SHIFT:-0 1 3}; do
      row "$name" wf "$below" "$shift" $B/$w --release-below "$below" --release-shift "$shift"
    done
  done
done
