#!/usr/bin/env bash
# Runs on the GPU machine (after gpu-bundle.sh; carry .carry): medians of the
# thread-level examples at several resident warps per SM (--grid = warps, blocks of 32
# threads), beside the occupancy query's default, in one process per point (each example also
# runs its sequential reference, so the sizes are the ones whose reference is quick).
set -uo pipefail
cd "$(dirname "$0")/.."
B=.carry
. scripts/carry-unpack.sh
# The SM count (nvidia-smi cannot report it): 132 on the H100 SXM and the H200.
SMS=${SMS:-132}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
run() { # label cmd...
  local label=$1; shift
  for w in default ${WARPS:-12 14 16 18}; do
    if [ "$w" = default ]; then g=""; else g="--grid $((w * SMS))"; fi
    out=$("$@" --gpu --reps ${REPS:-5} $g 2>&1 | grep -E " in [0-9.]+ ms|kernel|OK|differ" | head -3 | tr '\n' ' ')
    echo "$label | warps/SM $w | $out"
  done
}
run "fib(40)" $B/fib 40
run "nqueens(15,7)" $B/nqueens 15 7
run "UTS 1e7" $B/uts 1e7
run "binary tree D=22" $B/binary_tree 22 256 256
run "chain 10^5" $B/chain 100000
