#!/bin/sh
# pjrt backend figures through meshtest's own plugin: host RSS of one worker
# over 500 cases (flat: nothing leaks per case), and the PR selection's wall
# time in process and through the plugin (same cases, same machine).
# Usage: bench/pjrt/pjrt_bench.sh [BUILD_DIR]   (default: build)
set -eu
cd "$(dirname "$0")/../.."
BUILD_DIR=${1:-build}
cmake --build "$BUILD_DIR" -j2 --target pjrt_worker_rss meshtest pjrt_plugin_meshtest >/dev/null
"$BUILD_DIR/bench/pjrt/pjrt_worker_rss" 500
plugin="$BUILD_DIR/pjrt/plugin/libpjrt_plugin_meshtest.so"
selection="n150 and single_device and expected_passing and (inference or push)"
for backend in simulated pjrt; do
  start=$(date +%s.%N)
  "$BUILD_DIR/meshtest" run -m "$selection" --backend "$backend" --pjrt-plugin "$plugin" --db '' --no-compile-cache -q >/dev/null || true
  echo "PR selection, --backend $backend: $(echo "$(date +%s.%N) - $start" | bc) s"
done
