#!/usr/bin/env bash
# Builds every device crate (the examples, gpu-smoke, and the random programs' GPU crate with
# three programs) to PTX for sm_90 and assembles each PTX module with ptxas, printing each
# kernel's registers, stack and spills.
#
# Needs GTAP_PTXAS: the path of a ptxas (.ci/run installs one from the PyPI wheel
# nvidia-cuda-nvcc==13.0.88). With it set, gtap-build already fails the build when ptxas rejects
# the PTX; the second pass here prints the report so a register or spill regression is visible.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ -z "${GTAP_PTXAS:-}" ] || [ ! -x "$GTAP_PTXAS" ]; then
  echo "check-ptx: set GTAP_PTXAS to a ptxas binary (see .ci/run for how to install one)" >&2
  exit 2
fi
SM="${GTAP_SM:-sm_90}"
target_dir="${CARGO_TARGET_DIR:-target}"

# The random programs' set is three of the default (one panics); scripts/gpu-bundle.sh builds
# the whole set for the GPU machine.
GTAP_RANDOM_GPU_SEEDS=${GTAP_RANDOM_GPU_SEEDS:-1,4,315} cargo build --release -p gtap-examples \
  -p gpu-smoke -p gtap-random-gpu --features gtap-random-gpu/ptx

status=0
found=0
# Each build script leaves its crate's module in its OUT_DIR; pick the newest per crate.
for crate in gtap-examples gpu-smoke gtap-random-gpu; do
  ptx=$(ls -t "$target_dir"/release/build/"$crate"-*/out/*.ptx 2>/dev/null | head -1 || true)
  if [ -z "$ptx" ]; then
    echo "check-ptx: no PTX found for $crate under $target_dir/release/build" >&2
    status=1
    continue
  fi
  found=$((found + 1))
  echo "--- $crate: $ptx ($(grep -c '^.visible .entry' "$ptx") kernels)"
  cubin=$(mktemp --suffix=.cubin)
  if report=$("$GTAP_PTXAS" -arch="$SM" -v "$ptx" -o "$cubin" 2>&1); then
    grep -E "Compiling entry|Used [0-9]+ registers|bytes stack frame" <<<"$report" || true
  else
    echo "$report" >&2
    echo "check-ptx: ptxas rejected $ptx" >&2
    status=1
  fi
  rm -f "$cubin"
done
[ "$found" = 3 ] || status=1
exit $status
