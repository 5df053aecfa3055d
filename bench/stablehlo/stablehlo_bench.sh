#!/bin/sh
# StableHLO figures: parse and parse+import time of the largest StableHLO
# test-data file meshtest imports ($MESHTEST_STABLEHLO_TESTDATA, default ../shared/stablehlo-testdata, when
# present; complex types are refused) and of bert_base as `meshtest export`
# writes it, then the wall time of the conformance test
# (every static test-data file through reader, importer and CPU reference,
# a sample also on the device).
# Usage: bench/stablehlo/stablehlo_bench.sh [BUILD_DIR]   (default: build)
set -eu
cd "$(dirname "$0")/../.."
BUILD_DIR=${1:-build}
cmake --build "$BUILD_DIR" -j2 --target stablehlo_bench meshtest stablehlo_conformance_test >/dev/null
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$BUILD_DIR/meshtest" export bert/masked_lm/native-bert_base-single_device-inference --format stablehlo --out "$out" >/dev/null
files=$(ls "$out"/*.mlir)
testdata=${MESHTEST_STABLEHLO_TESTDATA:-../shared/stablehlo-testdata}
if [ -d "$testdata" ]; then
  largest=$(ls -S "$testdata"/*.mlir | while read -r f; do grep -q complex "$f" || { echo "$f"; break; }; done)
  files="$largest $files"
else
  echo "($testdata absent: the test-data file is left out)"
fi
for f in $files; do echo "$(basename "$f"): $(wc -c < "$f") bytes"; done
# shellcheck disable=SC2086
"$BUILD_DIR/bench/stablehlo/stablehlo_bench" --benchmark_min_time=0.5 $files
if [ -d "$testdata" ]; then
  start=$(date +%s.%N)
  "$BUILD_DIR/tests/frontends/stablehlo_conformance_test" >/dev/null || echo "(the conformance test failed: see its own output)"
  echo "conformance test wall time: $(echo "$(date +%s.%N) - $start" | bc) s"
fi
