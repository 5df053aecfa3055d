#!/bin/sh
# Runs every benchmark and prints its figures (nothing is asserted):
#  - the Google Benchmark binaries listed in BENCHMARKS (bench/CMakeLists.txt);
#  - every bench/<area>/*_bench.sh script, given the build folder.
# Usage: bench/run_benchmarks.sh [BUILD_DIR]   (default: build)
# To add one: a binary via meshtest_add_benchmark() plus its name below, or a
# script bench/<area>/<name>_bench.sh taking BUILD_DIR as its first argument.
set -eu
cd "$(dirname "$0")/.."
BUILD_DIR=${1:-build}
BENCHMARKS="compile_bench config_bench mesh_bench"
cmake --build "$BUILD_DIR" -j2 --target $BENCHMARKS
for b in $BENCHMARKS; do
  echo "== $b"
  "$BUILD_DIR/bench/$b"
done
for script in bench/*/*_bench.sh; do
  [ -x "$script" ] || continue
  echo "== $script"
  "$script" "$BUILD_DIR"
done
