#!/usr/bin/env bash
# Runs on the GPU machine (after gpu-bundle.sh): the work-first scheduler's release-policy
# sweep. For each policy (release_below, release_shift, release_all_below), the medians (ms
# as printed) of fib(40), nqueens(15, 7), UTS 1e7 and the pruned tree D=28 (or the examples
# in WORKLOADS, `;`-separated; each also runs its sequential reference, so the sizes are ones
# whose reference is quick), next to the shared-deque ablation. POLICIES lists the policies
# as `below,shift,all` triples (space-separated). Prints one CSV row per run:
# workload,scheduler,below,shift,all_below,ms.
set -uo pipefail
cd "$(dirname "$0")/.."
B=.carry
. scripts/carry-unpack.sh
# The timed line's first figure ("... on gpu in X ms"; a reference's time may come first).
ms() { sed -n 's/.* on gpu in \([0-9.]*\) ms.*/\1/p' | head -1; }
row() { # row WORKLOAD SCHED BELOW SHIFT ALL CMD...
  local w=$1 s=$2 b=$3 sh=$4 all=$5; shift 5
  local t
  t=$(timeout 120 "$@" --gpu --reps "${REPS:-3}" 2>&1 | ms)
  echo "$w,$s,$b,$sh,$all,${t:-FAILED}"
}
echo "workload,scheduler,release_below,release_shift,release_all_below,ms"
IFS=';' read -ra workloads <<< "${WORKLOADS:-fib 40;nqueens 15 7;uts 1e7;pruned_tree 28}"
for w in "${workloads[@]}"; do
  name=${w%% *}
  row "$name" shared - - - $B/$w --scheduler shared
  for policy in ${POLICIES:-1,0,0 1,1,0 1,2,0 8,0,0 8,1,0 1,2,64 1,1,64}; do
    IFS=, read -r below shift all <<< "$policy"
    row "$name" wf "$below" "$shift" "$all" $B/$w \
      --release-below "$below" --release-shift "$shift" --release-all-below "$all"
  done
done
