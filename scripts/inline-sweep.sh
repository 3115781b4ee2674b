#!/usr/bin/env bash
# Runs on the GPU machine (after gpu-bundle.sh): the work-first scheduler's inline-execution
# sweep. For each `--inline-steps` value (0 = off: the work-first scheduler of 2026-11-24),
# the kernel medians of fib(40), nqueens(16, 7), the thread-level binary tree D=22, cilksort
# 10^8, UTS 1e7 and the chain of 10^6 dependent tasks, next to the shared-deque ablation.
# Prints one CSV row per run: workload,scheduler,inline_steps,max_registers,ms.
# INLINE= and REGS= override the values swept; REPS= the repetitions (default 3).
set -uo pipefail
cd "$(dirname "$0")/.."
B=.carry
if [ -f $B/bundle.tgz ] && [ ! -x $B/fib ]; then tar xzf $B/bundle.tgz -C $B; fi
ms() { sed -n 's/.* in \([0-9.]*\) ms.*/\1/p' | head -1; }
row() { # row WORKLOAD SCHED INLINE REGS CMD...
  local w=$1 s=$2 i=$3 r=$4; shift 4
  local t
  t=$(timeout 120 "$@" --gpu --reps "${REPS:-3}" 2>&1 | ms)
  echo "$w,$s,$i,$r,${t:-FAILED}"
}
echo "workload,scheduler,inline_steps,max_registers,kernel_ms"
for w in "fib 40" "chain 1000000" "nqueens 16 7" "binary_tree 22 256 256" "uts 1e7" "cilksort 100000000"; do
  name=${w%% *}
  row "$name" shared - - $B/$w --scheduler shared
  for inl in ${INLINE:-0 8 32 56}; do
    for regs in ${REGS:-default 64}; do
      if [ "$regs" = default ]; then
        row "$name" wf "$inl" "$regs" $B/$w --inline-steps "$inl"
      else
        row "$name" wf "$inl" "$regs" $B/$w --inline-steps "$inl" --max-registers "$regs"
      fi
    done
  done
done
