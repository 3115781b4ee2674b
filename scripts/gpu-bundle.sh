#!/usr/bin/env bash
# Builds, on a machine with Rust, everything the GPU machine runs (it has a driver but no Rust):
# the release example binaries, gpu-smoke, the random programs' binary (random-programs-gpu:
# GTAP_RANDOM_GPU_COUNT programs from GTAP_RANDOM_GPU_SEED), the project template's binary
# (hello-gtap, built from templates/new-project as its own crate), and scripts/gpu-check.sh,
# copied into .carry/.
# Then, with the device tool: run `scripts/gpu-check.sh [quick|all|bench]` with carry [".carry"].
set -euo pipefail
cd "$(dirname "$0")/.."
target_dir="${CARGO_TARGET_DIR:-target}"
cargo build --release -p gtap-examples -p gpu-smoke -p gtap-random-gpu --features gtap-random-gpu/ptx
# The template is a crate of its own (outside the workspace): the workspace's versions, same
# target directory. Its binary embeds its PTX like the examples'.
[ -f templates/new-project/Cargo.lock ] || cp Cargo.lock templates/new-project/Cargo.lock
CARGO_TARGET_DIR="$target_dir" cargo build --release --manifest-path templates/new-project/Cargo.toml
rm -rf .carry && mkdir -p .carry
for bin in fib cancel pause share soak nqueens mergesort cilksort binary_tree pruned_tree bfs spmv constructs chain uts bench sweep gpu-smoke atomic-rate context-probe hello-gtap random-programs-gpu; do
  cp "$target_dir/release/$bin" .carry/
  strip --strip-debug ".carry/$bin"  # the carry to the GPU machine is limited to 64 MiB
done
cp scripts/gpu-check.sh .carry/
# A font for the profile pictures, in case the GPU machine has none (gpu-check.sh sets GTAP_FONT).
for f in /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf /usr/share/fonts/dejavu/DejaVuSans.ttf; do
  if [ -f "$f" ]; then cp "$f" .carry/font.ttf; break; fi
done
# The carry to the GPU machine is limited to 64 MiB and every binary embeds the PTX of all
# programs (with their block-level kernels): ship them as one xz stream whose 64 MiB
# dictionary spans several binaries, so the copies of the PTX cost little (gzip's 32 KiB
# window does not: 61 MiB against 10); gpu-check.sh unpacks them.
(cd .carry && tar cf - --exclude gpu-check.sh . | xz -T4 -9 > ../.carry-bundle.txz && find . -mindepth 1 ! -name gpu-check.sh -delete)
mv .carry-bundle.txz .carry/bundle.txz
du -sh .carry
