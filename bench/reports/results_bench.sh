#!/usr/bin/env bash
# Results benchmarks (figures printed, nothing asserted):
#  1. inserting 100,000 results into SQLite in one bulk transaction (target < 2 s)
#  2. the dashboard of a nightly's size, 2,000 cases x 20 runs generated into
#     a store (tests/reports/make_results_store: two arches, xfails,
#     placeholders): `meshtest report` time and page size, then headless
#     Chromium loading it, running its filter script and laying it out
#     (--dump-dom), with and without a filter in the address, compared with an
#     empty page (target < 2 s).
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

echo "== dashboard: 2,000 cases x 20 runs"
"$build/tests/reports/make_results_store" "$tmp/dash.db" --runs 20 --cases 2000
t0=$(now)
"$build/meshtest" report --db "$tmp/dash.db" --out "$tmp/dash.html" >/dev/null 2>&1
t1=$(now)
echo "meshtest report: $(echo "$t1 - $t0" | bc) s, page $(du -k "$tmp/dash.html" | cut -f1) KiB ($(gzip -c "$tmp/dash.html" | wc -c | awk '{printf "%d", $1/1024}') KiB gzipped)"

chromium=/usr/bin/chromium
if [ ! -x "$chromium" ]; then echo "chromium not installed: browser figure skipped"; exit 0; fi
echo "<!DOCTYPE html><title>empty</title>" >"$tmp/empty.html"
load() {  # load URL [--screenshot]: seconds for headless chromium to load, script and dump a page, or to lay
          # out and paint its first 1280x2400 pixels (best of 3)
  local best="" profile s e t
  local what=(--dump-dom)
  [ "${2:-}" = "--screenshot" ] && what=(--window-size=1280,2400 --screenshot="$tmp/shot.png")
  for _ in 1 2 3; do
    profile=$(mktemp -d)
    s=$(now)
    "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking \
      --disable-component-update --disable-sync --user-data-dir="$profile" "${what[@]}" "$1" >"$tmp/dom.html" 2>/dev/null
    e=$(now)
    rm -rf "$profile"
    t=$(echo "$e - $s" | bc)
    if [ -z "$best" ] || [ "$(echo "$t < $best" | bc)" -eq 1 ]; then best=$t; fi
  done
  echo "$best"
}
load "file://$tmp/empty.html" >/dev/null  # warm the disk cache
base=$(load "file://$tmp/empty.html")
base_shot=$(load "file://$tmp/empty.html" --screenshot)
shot=$(load "file://$tmp/dash.html" --screenshot)
full=$(load "file://$tmp/dash.html")
rows=$(grep -o '<tr data-f="" data-arch=' "$tmp/dom.html" | wc -l)
filtered=$(load "file://$tmp/dash.html#arch=n150&status=failed")
shown=$(grep -o 'data-count-for="case-table">[0-9]*' "$tmp/dom.html" | grep -o '[0-9]*$')
echo "chromium: empty page $base s; dashboard $full s -> render $(echo "$full - $base" | bc) s ($rows filterable rows)"
echo "chromium screenshot: empty page $base_shot s; dashboard $shot s -> render and paint $(echo "$shot - $base_shot" | bc) s"
echo "chromium: dashboard#arch=n150&status=failed $filtered s -> render $(echo "$filtered - $base" | bc) s ($shown case rows shown)"
