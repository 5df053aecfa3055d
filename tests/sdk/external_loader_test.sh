#!/usr/bin/env bash
# Installs meshtest's SDK package into a temporary prefix, builds
# examples/external_loader against it (find_package(meshtest)), and runs the
# resulting plugin through the runner: the case must pass.
# Usage: external_loader_test.sh <meshtest build dir> <source dir>
set -euo pipefail
build=$1
src=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cmake --install "$build" --prefix "$work/prefix" >/dev/null
cmake -S "$src/examples/external_loader" -B "$work/ext" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_PREFIX_PATH="$work/prefix" >/dev/null
cmake --build "$work/ext" >/dev/null
test -f "$work/ext/models/tiny_classifier/native/loader.so"

mkdir -p "$work/config"
out=$("$work/prefix/bin/meshtest" run --models-root "$work/ext/models" --config-dir "$work/config" \
  --db "$work/results.db" 2>&1) || { echo "$out"; exit 1; }
echo "$out"
grep -q "PASSED .*tiny_classifier/native-small-single_device-inference" <<<"$out"
# Nothing failed (mesh cases are skipped on the default one-chip arch).
grep -qE "^== [0-9]+ passed(, [0-9]+ skipped)? in " <<<"$out"
