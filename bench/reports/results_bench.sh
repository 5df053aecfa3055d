#!/usr/bin/env bash
# Results benchmarks (figures printed, nothing asserted):
#  1. inserting 100,000 results into SQLite in one bulk transaction (target < 2 s)
#  2. the dashboard of 20 runs x 5,000 cases: `meshtest report`, then loading
#     it in headless Chromium (target < 2 s), compared with an empty page.
# Usage: bench/reports/results_bench.sh [build-dir]   (default: build)
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build}"
cmake --build "$build" -j2 --target meshtest make_results_store >/dev/null
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
now() { date +%s.%N; }

echo "== store: 100,000 results into SQLite (target < 2 s)"
"$build/tests/reports/make_results_store" "$tmp/insert.db" --runs 1 --cases 100000

echo "== dashboard: 20 runs x 5,000 cases"
"$build/tests/reports/make_results_store" "$tmp/dash.db" --runs 20 --cases 5000 >/dev/null
t0=$(now)
"$build/meshtest" report --db "$tmp/dash.db" --out "$tmp/dash.html" >/dev/null
t1=$(now)
echo "meshtest report: $(echo "$t1 - $t0" | bc) s, page $(du -k "$tmp/dash.html" | cut -f1) KiB"

chromium=/usr/bin/chromium
if [ ! -x "$chromium" ]; then echo "chromium not installed: browser figure skipped"; exit 0; fi
echo "<!DOCTYPE html><title>empty</title>" >"$tmp/empty.html"
load() {  # seconds for headless chromium to load, lay out and dump a page
  local profile
  profile=$(mktemp -d)
  local s e
  s=$(now)
  "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
    --disable-component-update --disable-sync --user-data-dir="$profile" --dump-dom "file://$1" >/dev/null 2>&1
  e=$(now)
  rm -rf "$profile"
  echo "$e - $s" | bc
}
load "$tmp/empty.html" >/dev/null  # warm the disk cache
base=$(load "$tmp/empty.html")
full=$(load "$tmp/dash.html")
echo "chromium: empty page $base s, dashboard $full s -> dashboard render $(echo "$full - $base" | bc) s (target < 2 s)"
