#!/usr/bin/env bash
# The README's first command as a newcomer runs it: in a fresh `git clone` of this checkout's
# HEAD, with a rustup home whose toolchains lack the components the GPU build needs (rust-src,
# llvm-tools, llvm-bitcode-linker), as on a machine that just ran rustup-init. gtap-build must
# install them itself (through rustup) and the example must pass its check.
#
# The rustup home is a hard-link copy of $RUSTUP_HOME (default ~/.rustup): no data is copied,
# the files rustup rewrites in place get their own copies first, and removing or adding
# components only unlinks or creates files, so the original is never changed. Needs network
# (rustup downloads the components) and about 2 GB of disk for the clone's build.
#
# `check-fresh-machine.sh COMMAND...` runs COMMAND in the clone instead (e.g. ./scripts/test.sh,
# the README's second command) and checks only that it succeeds and the components are there.
#
# Environment: FRESH_TARGET_DIR, the clone's target directory (default: a new one under the
# temporary directory, removed afterwards, i.e. a full build); FRESH_KEEP=1 keeps the temporary
# directory.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$PWD
src_home="${RUSTUP_HOME:-$HOME/.rustup}"
work=$(mktemp -d "${TMPDIR:-/tmp}/gtap-fresh.XXXXXX")
if [ "${FRESH_KEEP:-0}" != 1 ]; then trap 'rm -rf "$work"' EXIT; fi
home="$work/rustup"

echo "fresh-machine: rustup home $src_home -> $home (hard links)"
cp -al "$src_home" "$home"
# rustup rewrites these with File::create (in place): unshare them so the original stays as it was.
for f in "$home"/settings.toml "$home"/update-hashes/* "$home"/toolchains/*/lib/rustlib/*; do
  if [ -f "$f" ] && [ ! -L "$f" ]; then cp -p "$f" "$f.gtap-unshare" && mv -f "$f.gtap-unshare" "$f"; fi
done
export RUSTUP_HOME="$home"
toolchain=$(cd "$checkout" && rustup show active-toolchain | cut -d' ' -f1)
for c in rust-src llvm-tools llvm-bitcode-linker; do
  if rustup component list --installed --toolchain "$toolchain" | grep -q "^$c"; then
    rustup component remove --toolchain "$toolchain" "$c" 2>&1 | sed 's/^/  /'
  fi
done
echo "fresh-machine: $toolchain has: $(rustup component list --installed --toolchain "$toolchain" | tr '\n' ' ')"

git clone --quiet "$checkout" "$work/gtap"
cd "$work/gtap"
echo "fresh-machine: clone of $(git log --oneline -1)"
export CARGO_TARGET_DIR="${FRESH_TARGET_DIR:-$work/target}"
# A newcomer has no ptxas and no gtap settings.
unset GTAP_PTXAS GTAP_SM GTAP_RUSTUP_INSTALL
log="$work/command.log"
if [ $# -gt 0 ]; then
  echo "fresh-machine: running $*"
  if ! "$@" 2>&1 | tee "$log"; then
    echo "fresh-machine: FAILED: $* (log above)" >&2
    exit 1
  fi
else
  # The README's first command, verbatim.
  if ! cargo run --release -p gtap-examples --bin fib -- 30 2>&1 | tee "$log"; then
    echo "fresh-machine: FAILED: the README's first command failed (log above)" >&2
    exit 1
  fi
  grep -q "gtap-build: installed the rustup components" "$log" || {
    echo "fresh-machine: FAILED: gtap-build did not report installing the components" >&2
    exit 1
  }
fi
for c in rust-src llvm-tools llvm-bitcode-linker; do
  rustup component list --installed --toolchain "$toolchain" | grep -q "^$c" || {
    echo "fresh-machine: FAILED: $c is still not installed" >&2
    exit 1
  }
done
what="${*:-cargo run --release -p gtap-examples --bin fib -- 30}"
echo "fresh-machine: ok ($what; the components were installed)"
