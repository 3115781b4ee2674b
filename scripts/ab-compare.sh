#!/usr/bin/env bash
# Runs on the GPU machine, from the repository root: the same workloads on several builds in
# one process of the machine, alternating the builds round by round, so that a difference
# between builds is not a drift of the card. Each build is a bundle made by gpu-bundle.sh
# (copy its .carry/bundle.txz under another name into .carry/ before the device call).
#
#   scripts/ab-compare.sh base=.carry/base.txz new=.carry/bundle.txz [more=...]
#
# A variant may add flags to every run of its bundle, after a `+`, commas for spaces (one
# bundle, several run-time settings; the bundle is unpacked once):
#
#   scripts/ab-compare.sh def=.carry/bundle.txz i8k=.carry/bundle.txz+--idle-max-ns,8192
#
# Environment: ROUNDS (2), REPS (5, medians inside each run), W (the workloads, `|`-separated,
# each an example binary and its arguments; the default covers the issue-10 table).
# Prints one line per run: workload | build | the run's time line | its check line; then a
# table of each workload's median per build (kernel ms where the example prints it, else its
# "in X ms" time; chain: microseconds per step) and each build's ratio to the first.
set -uo pipefail
cd "$(dirname "$0")/.."
declare -a names=()
declare -A dirs=() flags=()
for spec in "$@"; do
  name=${spec%%=*}
  rest=${spec#*=}
  bundle=${rest%%+*}
  extra=""
  if [ "$rest" != "$bundle" ]; then extra=${rest#*+}; extra=${extra//,/ }; fi
  dir=.carry/ab-$(basename "$bundle" .txz)
  if [ ! -x "$dir/fib" ]; then
    mkdir -p "$dir"
    tar xJf "$bundle" -C "$dir" 2>/dev/null ||
      python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$bundle" "$dir"
  fi
  names+=("$name")
  dirs[$name]=$dir
  flags[$name]=$extra
done
W=${W:-"fib 40|nqueens 16 7|uts 1e7|binary_tree 22 256 256|binary_tree 22 256 256 --granularity block --block-threads 64|pruned_tree 28|chain 100000|bfs rmat 20 --granularity block --block-threads 128|mergesort 10000000 128 4096 --granularity mixed|fib 40 --scheduler gq|fib 40 --scheduler shared"}
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
IFS='|' read -ra workloads <<<"$W"
log=$(mktemp)
for w in "${workloads[@]}"; do
  read -ra cmd <<<"$w"
  for round in $(seq "${ROUNDS:-2}"); do
    for name in "${names[@]}"; do
      read -ra extra <<<"${flags[$name]}"
      out=$(timeout 300 "${dirs[$name]}/${cmd[0]}" "${cmd[@]:1}" "${extra[@]}" --gpu --reps "${REPS:-5}" 2>&1)
      time_line=$(grep -E "ms \(median|kernel|per step" <<<"$out" | head -2 | tr '\n' ' ')
      check=$(grep -E "OK|differ|FAIL|rror" <<<"$out" | head -1)
      echo "$w | $name | $time_line | $check" | tee -a "$log"
    done
  done
done
python3 - "$log" "${names[@]}" <<'PY'
import re, statistics, sys
log, names = sys.argv[1], sys.argv[2:]
runs = {}
for line in open(log):
    parts = [p.strip() for p in line.split(" | ")]
    if len(parts) < 4:
        continue
    w, name, t = parts[0], parts[1], parts[2]
    m = re.search(r"([0-9.]+) us per step", t) or re.search(r"kernel ([0-9.]+) ms", t) \
        or re.search(r"in ([0-9.]+) ms", t) or re.search(r": ([0-9.]+) ms \(median", t)
    if m and "OK" in parts[3]:
        runs.setdefault(w, {}).setdefault(name, []).append(float(m.group(1)))
print("\n| workload | " + " | ".join(names) + " | " + " | ".join(f"{n}/{names[0]}" for n in names[1:]) + " |")
print("|---" * (2 * len(names)) + "|")
for w, by in runs.items():
    med = {n: statistics.median(by[n]) for n in names if n in by}
    cells = [f"{med[n]:.3f}" if n in med else "-" for n in names]
    ratios = [f"{med[n] / med[names[0]]:.3f}" if n in med and names[0] in med else "-" for n in names[1:]]
    print(f"| {w} | " + " | ".join(cells) + " | " + " | ".join(ratios) + " |")
PY
rm -f "$log"
