#!/usr/bin/env bash
# Runs on the GPU machine from the repository root, after scripts/gpu-bundle.sh filled .carry/.
#   quick: every example at its issue size, checked against the CPU reference; gpu-smoke's
#          failure-mode checks; compute-sanitizer memcheck and racecheck on small runs.
#   bench: the benchmark command (GPU medians beside sequential and rayon on this machine).
#   block: the block-level and mixed-granularity checks only (also part of quick).
#   gq:    the global-queue scheduler on every kind of program, and the profiler on
#          block-level workers (also part of quick).
#   data:  what a user pays: gpu-smoke (every transfer path round-trips) and bench's split rows
#          with the issue-11 targets and the transfer paths (ONLY= picks other rows, e.g. data).
#   deep:  the chain of 10^6 dependent tasks and UTS binomial trees of ~10^7 and ~10^9 nodes,
#          all with Config::default() (also part of quick).
#   multi: several GPUs' protocol on this GPU (Config::devices = Partitions), every example
#          checked (also part of quick).
#   cancel: stopping runs from outside (token, deadline), latency, the next run checked (also
#          part of quick).
#   soak:  a long-lived program: small runs' fixed cost, 100,000 mixed runs with injected
#          errors and memory checked, a fault that loses the context (also part of quick).
#   pause: pause and resume, elastic workers (the SM limit changing during a run), the pause
#          latency, every answer checked; memcheck on a small paused run (also part of quick).
#   gpus:  every example on all GPUs of this machine (--devices all), each answer checked,
#          and memcheck on the first two GPUs (a machine with several GPUs).
#   scale: the scaling table: each workload on 1, 2 and all GPUs in one call, medians of
#          REPS (default 5) runs, with the steals across GPUs (a machine with several GPUs);
#          ROWS (a regular expression over the rows' names) runs some of them, SPREADS
#          (values of --spread-after-ms) runs each several-GPU set with each.
#   clones: children as calls of sequential clones (off by default): hand-offs, the stack's
#          floor, a small and a large stack, every answer checked (also part of quick).
#   random: random task programs (random-programs/gpu) on the default kernel, as calls from
#          the root, and as calls with hand-offs, each answer and panic checked against plain
#          Rust; memcheck on the hand-offs.
#   all:   quick, random and bench.
# With $OUT set (the device tool's output folder), the profiled fib run's files land there.
# The slowest rows check against the examples' rayon references (`--reference rayon`: the same
# bits as the sequential ones, in a fraction of the time on the machine's 16 cores).
# Prints one line per check and a summary; exits non-zero if any check failed.
set -uo pipefail
cd "$(dirname "$0")/.."
B=.carry
mode="${1:-all}"
# gpu-bundle.sh ships the binaries compressed (the carry limit is 64 MiB).
. scripts/carry-unpack.sh
if [ -f $B/font.ttf ] && [ -z "${GTAP_FONT:-}" ]; then export GTAP_FONT=$PWD/$B/font.ttf; fi
failed=()
# Each check's output also goes to a log of its own, so that a failing check's last lines can
# be repeated under the summary (a long run's earlier output scrolls out of a terminal's, or a
# remote call's, tail). A failed check's whole log is copied under $OUT when the caller gives
# one (it comes back with the call; a hundred passing logs would not).
logs=$(mktemp -d "${TMPDIR:-/tmp}/gpu-check-logs.XXXXXX")
tails=()
passed=0

check() { # check NAME TIMEOUT_S CMD...
  local name=$1 limit=$2; shift 2
  echo "=== $name: $*"
  local start=$(date +%s%N)
  local log="$logs/$(printf '%03d' $(( passed + ${#failed[@]} ))).log"
  timeout --kill-after=10 "$limit" "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local secs=$(( ($(date +%s%N) - start) / 1000000 ))
  if [ $rc = 0 ]; then passed=$((passed + 1)); echo "--- ok: $name (${secs} ms)";
  else
    failed+=("$name (rc $rc)"); echo "--- FAILED: $name (rc $rc, ${secs} ms)"
    tails+=("$log|$name")
    if [ -n "${OUT:-}" ]; then mkdir -p "$OUT/gpu-check-failed" && cp "$log" "$OUT/gpu-check-failed/"; fi
  fi
}

nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv,noheader
SAN=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)
# The module's first launch on a fresh machine JIT-compiles every kernel (150 s with a clones
# kernel per program): one run with a long limit fills the driver's cache before the checks'
# own limits start (a check killed during the JIT leaves nothing cached for the next).
export CUDA_CACHE_MAXSIZE=${CUDA_CACHE_MAXSIZE:-4294967296}
if [ -x $B/fib ] && [ "$mode" != random ]; then
  start=$(date +%s)
  timeout 600 $B/fib 20 --gpu >/dev/null 2>&1 || true
  echo "module JIT (first launch of fib 20): $(( $(date +%s) - start )) s"
fi

if [ "$mode" = quick ] || [ "$mode" = all ]; then
  check "fib(40), a task per call"            120 $B/fib 40 --gpu --reps 3
  check "nqueens(16), cutoff 7"               120 $B/nqueens 16 7 --gpu --reps 3 --reference rayon
  check "mergesort 10^7"                      120 $B/mergesort 10000000 --gpu
  check "cilksort 10^8"                       180 $B/cilksort 100000000 --gpu --reference rayon
  check "binary tree depth 22"                120 $B/binary_tree 22 256 256 --gpu --reps 3 --reference rayon
  check "pruned 3-ary tree depth 28"          120 $B/pruned_tree 28 --gpu --reps 3
  check "BFS, R-MAT 2^22 vertices"            180 $B/bfs rmat 22 --gpu --reps 3
  check "BFS, 2048 x 2048 grid"               180 $B/bfs grid 2048 2048 --gpu --reps 3
  check "SpMV 10^6 rows"                      120 $B/spmv random 1000000 64 --gpu --reps 3
  check "constructs (places, generics, ?, loop values)" 120 $B/constructs --gpu
  check "profiled fib(36)"                    120 $B/fib 36 --gpu --profile "${PROFILE_DIR:-${OUT:-/tmp}/profile-fib36}"
  check "gpu-smoke (failure modes)"           180 $B/gpu-smoke quick
  check "template hello-gtap 10^7, profiled"  120 $B/hello-gtap 10000000 --gpu --profile /tmp/profile-hello-gtap
  if [ -n "$SAN" ]; then
    check "memcheck fib(18)"                  240 "$SAN" --tool memcheck --error-exitcode 9 $B/fib 18 --gpu
    check "racecheck fib(14)"                 300 "$SAN" --tool racecheck --error-exitcode 9 $B/fib 14 --gpu
    check "memcheck nqueens(9, 4)"            240 "$SAN" --tool memcheck --error-exitcode 9 $B/nqueens 9 4 --gpu
    check "racecheck nqueens(8, 3)"           300 "$SAN" --tool racecheck --error-exitcode 9 $B/nqueens 8 3 --gpu
    check "memcheck EPAQ fib(22, 6), 3 queues" 240 "$SAN" --tool memcheck --error-exitcode 9 $B/fib 22 6 epaq --gpu
    check "racecheck EPAQ fib(16, 4), 3 queues" 300 "$SAN" --tool racecheck --error-exitcode 9 $B/fib 16 4 epaq --gpu
  fi
  # Work-first inline execution: EPAQ keeps its queues, and the depth-first policy
  # (--inline-last-child, not the default) gives the same answers.
  check "EPAQ fib(40), cutoff 9, 3 queues"    120 $B/fib 40 9 epaq --gpu --reps 3
  check "inline last child: fib(32)"          120 $B/fib 32 --gpu --inline-last-child
  check "inline last child: nqueens(14, 5)"   120 $B/nqueens 14 5 --gpu --inline-last-child
  check "inline last child: UTS 1e7"          120 $B/uts 1e7 --gpu --inline-last-child
  check "inline last child: BFS R-MAT 2^18"   120 $B/bfs rmat 18 --gpu --inline-last-child
  check "inline off: chain 10^5"              120 $B/chain 100000 --gpu --inline-steps 0
  # The idle back-off knobs at the ends the ninth session swept (both ran there, checked).
  check "idle sleeps up to 32 us: UTS 1e7"    120 $B/uts 1e7 --gpu --idle-max-ns 32768
  check "one victim per steal round: pruned tree D=28" 120 $B/pruned_tree 28 --gpu --steal-tries 1
  if [ -n "$SAN" ]; then
    check "memcheck inline last child fib(18)" 240 "$SAN" --tool memcheck --error-exitcode 9 $B/fib 18 --gpu --inline-last-child
    check "racecheck inline last child fib(12)" 300 "$SAN" --tool racecheck --error-exitcode 9 $B/fib 12 --gpu --inline-last-child
  fi
fi
if [ "$mode" = quick ] || [ "$mode" = all ] || [ "$mode" = block ]; then
  # Block-level workers and mixed granularity, each at several block sizes, checked bit for
  # bit against the host reference for that block size.
  for bt in 32 64 128 256; do
    check "block tree D=18, $bt threads"      120 $B/binary_tree 18 256 256 --gpu --granularity block --block-threads $bt
  done
  check "block tree D=22, 64 threads"         120 $B/binary_tree 22 256 256 --gpu --granularity block --block-threads 64 --reps 3 --reference rayon
  check "block pruned tree D=28"              120 $B/pruned_tree 28 --gpu --granularity block --block-threads 64 --reps 3
  check "block SpMV 10^6 rows"                120 $B/spmv random 1000000 64 --gpu --granularity block --reps 3
  check "block SpMV 10^5 rows, 32 threads"    120 $B/spmv random 100000 64 --gpu --granularity block --block-threads 32
  check "block BFS, R-MAT 2^20"               180 $B/bfs rmat 20 --gpu --granularity block --reps 3
  check "block BFS, 1024 x 1024 grid"         180 $B/bfs grid 1024 1024 --gpu --granularity block --reps 3
  # Four warps per block spawning at once: every warp reads its batch entry before any spawns.
  check "block BFS, R-MAT 2^22, 128 threads"  180 $B/bfs rmat 22 --gpu --granularity block --block-threads 128 --reps 3
  check "mixed BFS, R-MAT 2^22"               180 $B/bfs rmat 22 --gpu --granularity mixed --reps 3
  # Work first's overflow queues (thread-level programs): deques far too small for them.
  check "overflow: fib(30), 256-entry deques"  120 $B/fib 30 --gpu --tasks-per-warp 256 --reps 3
  check "overflow: fib(27), 256-entry deques, 2 warps" 120 $B/fib 27 --gpu --tasks-per-warp 256 --grid 2
  check "overflow: UTS 1e7, 256-entry deques"  120 $B/uts 1e7 --gpu --tasks-per-warp 256
  check "mixed mergesort 10^7"                120 $B/mergesort 10000000 --gpu --granularity mixed --reps 3
  check "mixed mergesort 10^6, 256 threads"   120 $B/mergesort 1000000 --gpu --granularity mixed --block-threads 256
  check "mixed mergesort 3*10^5, split merges" 120 $B/mergesort 300000 128 4096 --gpu --granularity mixed --block-threads 32
  # The block-level shared-deque ablation (the protocol before work first).
  check "shared-deque block tree D=20"        120 $B/binary_tree 20 256 256 --gpu --granularity block --block-threads 64 --scheduler shared --reference rayon
  check "shared-deque mixed mergesort 10^6"   120 $B/mergesort 1000000 --gpu --granularity mixed --scheduler shared
  if [ -n "$SAN" ]; then
    check "memcheck mixed BFS grid 64 x 64"   120 "$SAN" --tool memcheck --error-exitcode 9 $B/bfs grid 64 64 --gpu --granularity mixed
    check "racecheck block pruned tree D=10"  120 "$SAN" --tool racecheck --error-exitcode 9 $B/pruned_tree 10 --gpu --granularity block --block-threads 64
    check "memcheck shared-deque block tree D=10" 120 "$SAN" --tool memcheck --error-exitcode 9 $B/binary_tree 10 16 16 --gpu --granularity block --scheduler shared
    check "memcheck block tree D=10"          120 "$SAN" --tool memcheck --error-exitcode 9 $B/binary_tree 10 16 16 --gpu --granularity block
    check "memcheck block BFS grid 64 x 64"   120 "$SAN" --tool memcheck --error-exitcode 9 $B/bfs grid 64 64 --gpu --granularity block
    check "racecheck block tree D=8"          120 "$SAN" --tool racecheck --error-exitcode 9 $B/binary_tree 8 16 16 --gpu --granularity block
    check "memcheck mixed mergesort 2*10^4"   120 "$SAN" --tool memcheck --error-exitcode 9 $B/mergesort 20000 128 1024 --gpu --granularity mixed
    check "memcheck mixed mergesort 3*10^5"   180 "$SAN" --tool memcheck --error-exitcode 9 $B/mergesort 300000 128 4096 --gpu --granularity mixed
    check "racecheck mixed mergesort 5000"    120 "$SAN" --tool racecheck --error-exitcode 9 $B/mergesort 5000 128 1024 --gpu --granularity mixed
    check "memcheck overflow fib(18), 2 warps" 180 "$SAN" --tool memcheck --error-exitcode 9 $B/fib 18 --gpu --tasks-per-warp 256 --grid 2
    check "racecheck overflow fib(16), 2 warps" 180 "$SAN" --tool racecheck --error-exitcode 9 $B/fib 16 --gpu --tasks-per-warp 256 --grid 2
  else
    failed+=("compute-sanitizer not found")
  fi
fi
if [ "$mode" = quick ] || [ "$mode" = all ] || [ "$mode" = gq ]; then
  # The global-queue ablation (Config::scheduler = GlobalQueue) must give the same answers.
  check "gq fib(32)"                          120 $B/fib 32 --gpu --scheduler gq --reps 3
  check "gq nqueens(13, 5)"                   120 $B/nqueens 13 5 --gpu --scheduler gq
  check "gq cilksort 10^6"                    120 $B/cilksort 1000000 --gpu --scheduler gq
  check "gq block tree D=16, 32 threads"      120 $B/binary_tree 16 64 64 --gpu --granularity block --block-threads 32 --scheduler gq
  check "gq block tree D=18, 256 threads"     120 $B/binary_tree 18 64 256 --gpu --granularity block --block-threads 256 --scheduler gq
  check "gq mixed mergesort 10^6"             120 $B/mergesort 1000000 --gpu --granularity mixed --scheduler gq
  check "gq mixed BFS, R-MAT 2^18"            120 $B/bfs rmat 18 --gpu --granularity mixed --scheduler gq
  # The profiler on block-level workers: pictures of the block tree (GTaP's compute-heavy
  # shape), and of mixed mergesort.
  check "profiled block tree D=20"            120 $B/binary_tree 20 64 1024 --gpu --granularity block --block-threads 64 --reference rayon --profile "${OUT:-/tmp}/profile-block-tree20"
  check "profiled mixed mergesort 10^7"       120 $B/mergesort 10000000 --gpu --granularity mixed --profile "${OUT:-/tmp}/profile-mergesort-mixed" --profile-records 16384
  if [ -n "$SAN" ]; then
    check "memcheck gq fib(16)"               240 "$SAN" --tool memcheck --error-exitcode 9 $B/fib 16 --gpu --scheduler gq
    check "memcheck gq block tree D=10"       120 "$SAN" --tool memcheck --error-exitcode 9 $B/binary_tree 10 16 16 --gpu --granularity block --scheduler gq
    check "racecheck gq block tree D=8"       120 "$SAN" --tool racecheck --error-exitcode 9 $B/binary_tree 8 16 16 --gpu --granularity block --scheduler gq
    check "memcheck profiled block tree D=10" 120 "$SAN" --tool memcheck --error-exitcode 9 $B/binary_tree 10 16 16 --gpu --granularity block --profile /tmp/prof-san
    check "racecheck profiled block tree D=8" 120 "$SAN" --tool racecheck --error-exitcode 9 $B/binary_tree 8 16 16 --gpu --granularity block --profile /tmp/prof-san2
  fi
fi
if [ "$mode" = quick ] || [ "$mode" = all ] || [ "$mode" = cancel ]; then
  # Stopping a run from outside (RunOptions: a CancelToken, a deadline), the latency, and a
  # checked run on the same runtime after every stop.
  check "cancel fib(46) after 50 ms"          120 $B/cancel 46 50 --gpu --reps 10
  check "cancel fib(46) after 5 ms"           120 $B/cancel 46 5 --gpu --reps 10
  check "cancel fib(46), 2 partitions"        120 $B/cancel 46 50 --gpu --reps 5 --devices partitions:2 --spread-after-ms 0
  check "cancel fib(46) after 1 ms"           120 $B/cancel 46 1 --gpu --reps 10
  # Sharing the GPU: fib(40) on half the SMs' worth of blocks (Config::sms) beside a 1 GiB
  # device-to-device copy on another stream, and on all SMs, each alone and together.
  half=66  # of the H100's and H200's 132 SMs
  check "share: fib(40) on $half SMs beside a copy, an FMA kernel" 120 $B/share 40 2 --sms $half
  check "share: fib(40) on all SMs beside a copy, an FMA kernel"   120 $B/share 40 2
  if [ -n "$SAN" ]; then
    check "memcheck cancel fib(40) after 20 ms" 240 "$SAN" --tool memcheck --error-exitcode 9 $B/cancel 40 20 --gpu --reps 2
  fi
fi
if [ "$mode" = quick ] || [ "$mode" = all ] || [ "$mode" = soak ]; then
  # A long-lived program: small runs' fixed cost, 100,000 mixed runs with an error injected
  # every 250 (panics, PoolExhausted, cancel, deadline, a hang), memory at start/middle/end,
  # then a fault that loses the context and a new runtime after it.
  check "soak: 100,000 runs, injected errors, a lost context" 600 $B/soak 100000 --gpu
  check "soak, 2 partitions (panics on either)" 300 $B/soak 5000 --gpu --devices partitions:2 --spread-after-ms 0
  # What the driver gives back after an illegal address (printed, not judged: contexts.rs
  # answers ContextLost for as long as it gives nothing back).
  check "context-probe reset"                 60 $B/context-probe reset
  if [ -n "$SAN" ]; then
    check "memcheck soak (small)"             300 "$SAN" --tool memcheck --error-exitcode 9 $B/soak 600 keep --gpu
  fi
fi
if [ "$mode" = quick ] || [ "$mode" = all ] || [ "$mode" = pause ]; then
  # Pause and resume (fib at several points and repeatedly, nqueens, UTS, a BFS without joins),
  # the SM limit changing while runs go on (with pauses too), every answer checked.
  check "pause, resume, elastic workers"      240 $B/pause 1 --gpu
  check "pause, resume, elastic workers, larger" 240 $B/pause 2 --gpu
  if [ -n "$SAN" ]; then
    check "memcheck pause, resume, elastic (small)" 600 "$SAN" --tool memcheck --error-exitcode 9 $B/pause 0 --gpu
  fi
fi
if [ "$mode" = quick ] || [ "$mode" = all ] || [ "$mode" = multi ]; then
  # Several GPUs' protocol (Config::devices) on this one GPU: Devices::Partitions splits it
  # into kernels that export, import and complete each other's tasks exactly as GPUs do.
  # `--spread-after-ms 0`: these runs are small, and tasks must cross from the start.
  for n in 2 4; do
    check "partitions:$n fib(36)"             120 $B/fib 36 --gpu --devices partitions:$n --spread-after-ms 0 --reps 3
    check "partitions:$n nqueens(14, 5)"      120 $B/nqueens 14 5 --gpu --devices partitions:$n --spread-after-ms 0
    check "partitions:$n UTS 1e7"             120 $B/uts 1e7 --gpu --devices partitions:$n --spread-after-ms 0 --reps 3
  done
  check "partitions:2 cilksort 10^7"          120 $B/cilksort 10000000 --gpu --devices partitions:2 --spread-after-ms 0
  check "partitions:2 mergesort 10^6"         120 $B/mergesort 1000000 --gpu --devices partitions:2 --spread-after-ms 0
  check "partitions:2 binary tree D=20"       120 $B/binary_tree 20 256 256 --gpu --devices partitions:2 --spread-after-ms 0 --reference rayon
  check "partitions:2 pruned tree D=24"       120 $B/pruned_tree 24 --gpu --devices partitions:2 --spread-after-ms 0
  check "partitions:2 chain 10^5"             120 $B/chain 100000 --gpu --devices partitions:2 --spread-after-ms 0
  check "partitions:2 EPAQ fib(32, 6)"        120 $B/fib 32 6 epaq --gpu --devices partitions:2 --spread-after-ms 0
  check "partitions:2 fib(27), 256-entry deques" 120 $B/fib 27 --gpu --devices partitions:2 --spread-after-ms 0 --tasks-per-warp 256
  check "partitions:2 constructs"             120 $B/constructs --gpu --devices partitions:2 --spread-after-ms 0
  check "partitions:2 BFS R-MAT 2^18 (no joins)" 120 $B/bfs rmat 18 --gpu --devices partitions:2 --spread-after-ms 0
  check "partitions:8 nqueens(13, 5) (no joins)" 120 $B/nqueens 13 5 --gpu --devices partitions:8 --spread-after-ms 0 --reps 3
  check "partitions:2 block tree D=16 (block-level: one partition)" 120 $B/binary_tree 16 64 64 --gpu --granularity block --devices partitions:2 --spread-after-ms 0
  check "partitions:8 fib(30)"                120 $B/fib 30 --gpu --devices partitions:8 --spread-after-ms 0
  if [ -n "$SAN" ]; then
    check "memcheck partitions:2 fib(18)"     240 "$SAN" --tool memcheck --error-exitcode 9 $B/fib 18 --gpu --devices partitions:2 --spread-after-ms 0
    check "memcheck partitions:2 nqueens(9, 4)" 240 "$SAN" --tool memcheck --error-exitcode 9 $B/nqueens 9 4 --gpu --devices partitions:2 --spread-after-ms 0
  fi
fi
if [ "$mode" = gpus ]; then
  # One task tree on every GPU of the machine (Config::devices = Devices::All), spreading from
  # the start so that tasks cross in these small runs.
  check "all GPUs fib(40)"                    180 $B/fib 40 --gpu --devices all --spread-after-ms 0 --reps 3
  check "all GPUs nqueens(16, 7)"             180 $B/nqueens 16 7 --gpu --devices all --spread-after-ms 0 --reps 3 --reference rayon
  check "all GPUs UTS 1e7"                    180 $B/uts 1e7 --gpu --devices all --spread-after-ms 0 --reps 3
  check "all GPUs cilksort 10^8"              180 $B/cilksort 100000000 --gpu --devices all --spread-after-ms 0 --reference rayon
  check "all GPUs mergesort 10^6"             180 $B/mergesort 1000000 --gpu --devices all --spread-after-ms 0
  check "all GPUs binary tree D=22"           180 $B/binary_tree 22 256 256 --gpu --devices all --spread-after-ms 0 --reps 3 --reference rayon
  check "all GPUs pruned tree D=26"           180 $B/pruned_tree 26 --gpu --devices all --spread-after-ms 0 --reps 3
  check "all GPUs chain 10^5"                 180 $B/chain 100000 --gpu --devices all --spread-after-ms 0
  check "all GPUs EPAQ fib(36, 9)"            180 $B/fib 36 9 epaq --gpu --devices all --spread-after-ms 0 --reps 3
  check "all GPUs constructs"                 180 $B/constructs --gpu --devices all --spread-after-ms 0
  check "all GPUs BFS R-MAT 2^20"             180 $B/bfs rmat 20 --gpu --devices all --spread-after-ms 0
  check "all GPUs SpMV 10^5 rows"             180 $B/spmv random 100000 64 --gpu --devices all --spread-after-ms 0
  check "all GPUs soak (panics on any GPU)"   300 $B/soak 5000 --gpu --devices all --spread-after-ms 0
  if [ -n "$SAN" ]; then
    check "memcheck GPUs 0,1 fib(18)"         240 "$SAN" --tool memcheck --error-exitcode 9 $B/fib 18 --gpu --devices 0,1 --spread-after-ms 0
    check "memcheck GPUs 0,1 UTS b0 100"      240 "$SAN" --tool memcheck --error-exitcode 9 $B/uts 100 2 0.45 3 --gpu --devices 0,1 --spread-after-ms 0
    check "memcheck GPUs 0,1 nqueens(9, 4)"   240 "$SAN" --tool memcheck --error-exitcode 9 $B/nqueens 9 4 --gpu --devices 0,1 --spread-after-ms 0
  fi
fi
if [ "$mode" = scale ]; then
  # The scaling table: 1, 2 and all GPUs of this machine, each in its own process (medians
  # of REPS runs; the answer checked every time).
  n=$(nvidia-smi -L | wc -l)
  sets="one 0,1"
  [ "$n" -gt 2 ] && sets="$sets all"
  r=${REPS:-5}
  while IFS='|' read -r name cmd; do
    [ -z "$name" ] && continue
    # ROWS (an extended regular expression) picks rows by name, e.g. ROWS='nqueens|BFS'.
    if [ -n "${ROWS:-}" ] && ! grep -qE "$ROWS" <<<"$name"; then continue; fi
    for d in $sets; do
      if [ "$d" = one ]; then check "scale $name on one" 180 $B/$cmd --gpu --reps $r --devices one; continue; fi
      # SPREADS: values of --spread-after-ms to run each several-GPU set with ("default": none).
      for sp in ${SPREADS:-default}; do
        flag=""; [ "$sp" != default ] && flag="--spread-after-ms $sp"
        check "scale $name on $d${flag:+, spread after $sp ms}" 180 $B/$cmd --gpu --reps $r --devices $d $flag
      done
    done
  done <<EOS
fib(44)|fib 44
UTS 1e9|uts 1e9
binary tree D=24|binary_tree 24 256 256 --reference rayon
binary tree D=22|binary_tree 22 256 256 --reference rayon
fib(40)|fib 40
UTS 1e7|uts 1e7
nqueens(17)|nqueens 17 7 --reference rayon
BFS R-MAT 2^22|bfs rmat 22
cilksort 10^9|cilksort 1000000000 --reference rayon
EOS
fi
if [ "$mode" = data ]; then
  check "gpu-smoke (transfers, failure modes)" 180 $B/gpu-smoke quick
  check "bench: what a user pays"             560 $B/bench --gpu --reps "${REPS:-10}" only=${ONLY:-cilksort,mergesort_mixed,transfer}
fi
if [ "$mode" = quick ] || [ "$mode" = all ] || [ "$mode" = deep ]; then
  # Deep and unbalanced task trees with Config::default() (no --tasks-per-warp): every
  # waiting ancestor holds a task record, so a scheduler that keeps a path's records in one
  # warp's pool runs out here (PoolExhausted) before it runs out of parallelism.
  check "chain of 10^6 dependent tasks"       120 $B/chain 1000000 --gpu --reps 3
  check "UTS binomial 1e7 (9,336,063 nodes)"  120 $B/uts 1e7 --gpu --reps 3
  check "UTS binomial 1e9 (1,026,459,151)"    300 $B/uts 1e9 --gpu --reps 3
  if [ -n "$SAN" ]; then
    check "memcheck chain 10^4"               240 "$SAN" --tool memcheck --error-exitcode 9 $B/chain 10000 --gpu
    check "racecheck chain 300"               240 "$SAN" --tool racecheck --error-exitcode 9 $B/chain 300 --gpu
    check "memcheck UTS b0 100, 1,057 nodes"  240 "$SAN" --tool memcheck --error-exitcode 9 $B/uts 100 2 0.45 3 --gpu
    check "racecheck UTS b0 20, 339 nodes"    300 "$SAN" --tool racecheck --error-exitcode 9 $B/uts 20 2 0.45 3 --gpu
  fi
fi
if [ "$mode" = quick ] || [ "$mode" = all ] || [ "$mode" = clones ]; then
  # Children as calls of sequential clones (Config::gpu_clones, off by default; the examples
  # emit the clones kernel of fib, chain, constructs and mergesort): each path of
  # gpu/worker/clone.rs forced, every answer checked.
  check "clones: fib(32)"                            120 $B/fib 32 --gpu --clones --reps 3
  check "clones at depth 10, hand-offs: fib(30)"     120 $B/fib 30 --gpu --clones --clone-depth 10 --hand-offs
  check "clones from the root: fib(30), hand-offs only" 120 $B/fib 30 --gpu --clones --clone-depth 0 --hand-offs
  check "clones past the stack: chain 10^5"          120 $B/chain 100000 --gpu --clones --clone-depth 0
  check "clones past the stack: chain 10^6"          120 $B/chain 1000000 --gpu --clones
  check "clones past a small stack: fib(30), 2 KiB"  120 $B/fib 30 --gpu --clones --clone-depth 0 --hand-offs --stack-bytes 2048
  check "clones, deep stack: chain 10^5, 64 KiB"     120 $B/chain 100000 --gpu --clones --clone-depth 0 --stack-bytes 65536
  check "clones: constructs (places, generics, ?, loop values)" 120 $B/constructs --gpu --clones --clone-depth 0 --hand-offs
  check "clones: mergesort 10^6"                     120 $B/mergesort 1000000 --gpu --clones --clone-depth 0 --hand-offs
  check "clones, 2 warps: fib(27)"                   120 $B/fib 27 --gpu --grid 2 --clones --clone-depth 0 --hand-offs
  if [ -n "$SAN" ]; then
    check "memcheck clones from the root fib(18)"    240 "$SAN" --tool memcheck --error-exitcode 9 $B/fib 18 --gpu --clones --clone-depth 0 --hand-offs
    check "memcheck clones past the stack chain 3000" 240 "$SAN" --tool memcheck --error-exitcode 9 $B/chain 3000 --gpu --clones --clone-depth 0
    check "racecheck clones from the root fib(14)"   300 "$SAN" --tool racecheck --error-exitcode 9 $B/fib 14 --gpu --clones --clone-depth 0 --hand-offs
  fi
fi

if [ "$mode" = all ] || [ "$mode" = random ]; then
  # Random task programs (random-programs/gpu: GTAP_RANDOM_GPU_COUNT programs from seed
  # GTAP_RANDOM_GPU_SEED, fixed when the bundle was built), each on the default kernel, from
  # the root as calls, and as calls with hand-offs, against their plain-Rust references. Their
  # module is a binary's own: its first launch compiles it (one run with a long limit first).
  if [ -x $B/random-programs-gpu ]; then
    start=$(date +%s)
    timeout 600 $B/random-programs-gpu --configs tasks >/dev/null 2>&1 || true
    echo "random programs' module JIT (first launch): $(( $(date +%s) - start )) s"
    check "random programs: tasks, calls, hand-offs" 300 $B/random-programs-gpu
    if [ -n "$SAN" ]; then
      check "memcheck random programs, calls with hand-offs" 300 "$SAN" --tool memcheck --error-exitcode 9 $B/random-programs-gpu --configs hand-offs
    fi
  else
    failed+=("random programs (no $B/random-programs-gpu: scripts/gpu-bundle.sh builds it)")
  fi
fi

if [ "$mode" = bench ] || [ "$mode" = all ]; then
  check "atomic throughput"                   60 $B/atomic-rate
  check "bench" 560 $B/bench --gpu --reps "${REPS:-10}" ${ONLY:+only=$ONLY}
fi

echo
for t in "${tails[@]}"; do
  echo "=== the last lines of a failed check: ${t#*|} (all of it: ${t%%|*})"
  tail -n 25 "${t%%|*}"
done
echo "=== summary: $passed passed, ${#failed[@]} failed"
for f in "${failed[@]}"; do echo "FAILED: $f"; done
[ ${#failed[@]} = 0 ]
