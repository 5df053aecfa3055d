#!/bin/sh
# The real-size models with streamed weights (docs/explanation/
# streamed-weights.md; figures in docs/benchmarks.md), one case at a time: wall time and peak RSS from /usr/bin/time -v,
# phases and PCC from the results store. Not run by bench/run_benchmarks.sh:
# it takes about an hour on a 2-core machine. Nothing is asserted.
# Usage: bench/streaming/real_size.sh [BUILD_DIR] [CASE...]
#   CASE: 8b-tp (n300-llmbox), 8b-single (p150), 70b-tp (galaxy-wh-6u), mixtral-tp (n300-llmbox); default all
set -eu
cd "$(dirname "$0")/../.."
BUILD_DIR=${1:-build}
[ $# -gt 0 ] && shift
CASES=${*:-8b-tp 8b-single mixtral-tp 70b-tp}
DB=$(mktemp -d)/real_size.db
for c in $CASES; do
  case $c in
    8b-tp) arch=n300-llmbox; k="llama_3_1_8b and tensor_parallel and inference" ;;
    8b-single) arch=p150; k="llama_3_1_8b and single_device and inference" ;;
    70b-tp) arch=galaxy-wh-6u; k="llama_3_1_70b and tensor_parallel and inference" ;;
    mixtral-tp) arch=n300-llmbox; k="mixtral_8x7b and tensor_parallel and inference" ;;
    *) echo "unknown case $c" >&2; exit 2 ;;
  esac
  echo "== $c ($arch)"
  /usr/bin/time -v "$BUILD_DIR/meshtest" run --arch "$arch" -k "$k" -j 1 --timeout 0 --no-compile-cache --db "$DB" 2>&1 |
    grep -E "PASSED|FAILED|ERROR|mesh |Elapsed|Maximum resident|User time|System time" || true
done
sqlite3 -column "$DB" "SELECT variant, arch, mesh, round(wall_seconds) AS wall_s, round(golden_seconds) AS golden_s, \
  round(execute_seconds) AS execute_s, peak_host_rss_bytes/1048576 AS rss_mib, pcc FROM results"
