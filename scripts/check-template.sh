#!/usr/bin/env bash
# Checks templates/new-project as a user gets it: copied to a temporary directory, outside this
# workspace, its `gtap` dependency pointed at this checkout. Then: fmt, clippy -D warnings, a
# release build for the host and the GPU (PTX built by its build.rs and, with GTAP_PTXAS set,
# assembled by ptxas for sm_90), and runs on the CPU executor whose output it checks.
#
# The copy gets this workspace's Cargo.lock (cargo drops what it does not use), so it builds the
# versions CI tests, offline. CARGO_TARGET_DIR (default: this checkout's target/) is shared:
# cargo keys every artifact by package, version, source and flags, so nothing of the workspace's
# build stands in for the template's.
set -euo pipefail
cd "$(dirname "$0")/.."
checkout=$PWD
work=$(mktemp -d "${TMPDIR:-/tmp}/gtap-template.XXXXXX")
trap 'rm -rf "$work"' EXIT
app="$work/hello-gtap"
cp -r templates/new-project "$app"
rm -rf "$app/target" "$app/Cargo.lock"
cp Cargo.lock "$app/Cargo.lock"
sed -i -e "s|path = \"../../gtap-build\"|path = \"$checkout/gtap-build\"|" \
       -e "s|path = \"../..\"|path = \"$checkout\"|" "$app/Cargo.toml"
grep -q "path = \"$checkout\"" "$app/Cargo.toml" || { echo "check-template: cannot point gtap at $checkout" >&2; exit 1; }
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$checkout/target}"
manifest=(--manifest-path "$app/Cargo.toml")
fail() { echo "check-template: FAILED: $*" >&2; exit 1; }

echo "--- template: cargo fmt --check"
cargo fmt "${manifest[@]}" -- --check
echo "--- template: cargo clippy -D warnings"
cargo clippy --release "${manifest[@]}" --all-targets -- -D warnings
echo "--- template: cargo build --release (host binary, PTX embedded)"
cargo build --release "${manifest[@]}"
ptx=$(ls -t "$CARGO_TARGET_DIR"/release/build/hello-gtap-*/out/hello_gtap.ptx 2>/dev/null | head -1 || true)
[ -n "$ptx" ] || fail "no PTX under $CARGO_TARGET_DIR/release/build/hello-gtap-*/out"
entries=$(grep -c '^.visible .entry gtap_' "$ptx" || true)
[ "$entries" -ge 1 ] || fail "$ptx has no gtap kernel entry"
if [ -n "${GTAP_PTXAS:-}" ]; then
  cubin=$(mktemp --suffix=.cubin)
  "$GTAP_PTXAS" -arch="${GTAP_SM:-sm_90}" "$ptx" -o "$cubin" || fail "ptxas rejected $ptx"
  rm -f "$cubin"
  echo "template: $ptx ($entries kernels) assembles for ${GTAP_SM:-sm_90}"
else
  echo "template: GTAP_PTXAS is not set: the PTX ($entries kernels) was not assembled"
fi

bin="$CARGO_TARGET_DIR/release/hello-gtap"
echo "--- template: runs on the CPU executor"
for n in 1 1000 3000001; do
  out=$("$bin" "$n" --cpu) || fail "hello-gtap $n --cpu exited with $?: $out"
  echo "$out"
  # The sum of (i % 1000)^2 over i < n, computed here independently.
  want=$(python3 -c "print(sum((i % 1000) ** 2 for i in range($n)))")
  grep -q "sum of $n squares = $want on the cpu" <<<"$out" || fail "hello-gtap $n: expected the sum $want"
  grep -q '^hello-gtap: OK$' <<<"$out" || fail "hello-gtap $n did not report OK"
done
echo "--- template: errors name what to change"
if "$bin" abc >"$work/err" 2>&1; then fail "hello-gtap abc succeeded"; fi
grep -q 'N must be a number' "$work/err" || fail "hello-gtap abc: $(cat "$work/err")"
if ! command -v nvidia-smi >/dev/null; then
  if "$bin" 10 --gpu >"$work/err" 2>&1; then fail "hello-gtap --gpu succeeded without a GPU"; fi
  grep -q 'what to do: run with --cpu' "$work/err" || fail "hello-gtap --gpu without a GPU: $(cat "$work/err")"
  cat "$work/err"
fi
echo "check-template: ok"
