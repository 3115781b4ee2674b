#!/usr/bin/env bash
# The whole test suite: unit, stage, ui (trybuild), snapshot, executor and example tests.
# Runs on any machine; GPU tests run only where a GPU is present (see scripts/gpu-check.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
# The documents describe the system: every log in docs/runs/ cited, no dated history.
python3 scripts/check-docs.py
rustup component add rust-src llvm-tools llvm-bitcode-linker >/dev/null 2>&1 || true
cargo test --workspace --release "$@"
