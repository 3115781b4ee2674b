#!/usr/bin/env bash
# Runs on the GPU machine (after gpu-bundle.sh): the work-first scheduler's inline-execution
# sweep. For each `--inline-steps` value (0 = off: the work-first scheduler of 2026-11-24),
# the kernel medians of fib(40), the chain of 10^6 dependent tasks, nqueens(16, 7), the
# thread-level binary tree D=22, UTS 1e7 and the pruned tree D=28, next to the shared-deque ablation.
# `policy` is lone (only a lone child runs inline, the default) or last (`--inline-last-child`).
# Prints one CSV row per run: workload,scheduler,inline_steps,policy,ms.
# W= the workloads ('|'-separated, e.g. W='cilksort 100000000|bfs rmat 22'); INLINE= the values
# swept; REPS= the repetitions (default 3).
set -uo pipefail
cd "$(dirname "$0")/.."
B=.carry
. scripts/carry-unpack.sh
ms() { sed -n 's/.* in \([0-9.]*\) ms.*/\1/p' | head -1; }
row() { # row WORKLOAD SCHED INLINE POLICY CMD...
  local w=$1 s=$2 i=$3 r=$4; shift 4
  local t
  t=$(timeout 120 "$@" --gpu --reps "${REPS:-3}" 2>&1 | ms)
  echo "$w,$s,$i,$r,${t:-FAILED}"
}
echo "workload,scheduler,inline_steps,policy,kernel_ms"
IFS='|' read -ra WORKLOADS <<< "${W:-fib 40|chain 1000000|nqueens 16 7|binary_tree 22 256 256|uts 1e7|pruned_tree 28}"
for w in "${WORKLOADS[@]}"; do
  name=${w%% *}
  row "$name" shared - - $B/$w --scheduler shared
  for inl in ${INLINE:-0 8 32 56}; do
    row "$name" wf "$inl" lone $B/$w --inline-steps "$inl"
  done
  row "$name" wf 32 last $B/$w --inline-steps 32 --inline-last-child
done
# The grid (warps; the default is what the occupancy allows) and a register cap that allows
# more warps per SM: fib and the chain (GRIDS= overrides).
for g in ${GRIDS:-132 1056 2112}; do
  row "fib-grid-$g" wf 32 lone $B/fib 40 --grid "$g"
  row "chain-grid-$g" wf 32 lone $B/chain 1000000 --grid "$g"
done
row "fib-maxreg-80" wf 32 lone $B/fib 40 --max-registers 80
row "fib-maxreg-80-inline-0" wf 0 lone $B/fib 40 --max-registers 80 --inline-steps 0
