#!/usr/bin/env bash
# Loads a generated dashboard in headless Chromium (Debian's `chromium`,
# installed by scripts/setup; this test installs nothing) after its script
# ran (--dump-dom) and checks the DOM: outcome counts, charts, a hostile
# "<script>" from the store shown as text and never run, the page's own filter
# script the only script; the filters (from the address, #arch=..&status=..)
# showing exactly the rows the page holds for that arch and status; the
# placeholders listed whatever the filters. Takes screenshots of the whole and
# the filtered page and checks they are not blank (far bigger than a blank
# page's). Exits 77 (ctest: skipped) with the reason when chromium is missing.
#   dashboard_browser_test.sh MESHTEST MAKE_RESULTS_STORE OUT_DIR
set -euo pipefail
meshtest="$1"
make_store="$2"
out="$3"

chromium=""
for c in /usr/bin/chromium "$(command -v chromium 2>/dev/null || true)"; do
  if [ -n "$c" ] && [ -x "$c" ]; then chromium="$c"; break; fi
done
if [ -z "$chromium" ]; then
  echo "SKIPPED: chromium is not installed (scripts/setup installs Debian's chromium); the dashboard was not checked in a browser"
  exit 77
fi

mkdir -p "$out"
rm -f "$out/results.db" "$out/results.db-wal" "$out/results.db-shm"
"$make_store" "$out/results.db" --runs 3 --cases 60 --hostile
"$meshtest" report --db "$out/results.db" --out "$out/dashboard.html"
page="file://$out/dashboard.html"

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$profile" --virtual-time-budget=5000)
browse() {  # browse ARGS...: one headless chromium, its log appended
  timeout 120 "$chromium" "${flags[@]}" "$@" 2>>"$out/chromium.log"
}
: >"$out/chromium.log"
browse --dump-dom "$page" >"$out/dom.html"
browse --dump-dom "$page#arch=n150&status=xfailed" >"$out/dom-filtered.html"
browse --window-size=1280,2400 --screenshot="$out/dashboard.png" "$page" >/dev/null
browse --window-size=1280,2400 --screenshot="$out/dashboard-filtered.png" "$page#arch=n150&status=xfailed" >/dev/null
echo "<!DOCTYPE html><title>blank</title>" >"$out/blank.html"
browse --window-size=1280,2400 --screenshot="$out/blank.png" "file://$out/blank.html" >/dev/null

fail=0
check() {  # check DESCRIPTION FILE FIXED_STRING
  if grep -qF -- "$3" "$2"; then echo "ok: $1"; else echo "FAILED: $1 (no '$3' in $(basename "$2"))"; fail=1; fi
}
same() {  # same DESCRIPTION GOT EXPECTED
  if [ "$2" = "$3" ]; then echo "ok: $1 ($2)"; else echo "FAILED: $1: $2, expected $3"; fail=1; fi
}
dom="$out/dom.html"
filtered="$out/dom-filtered.html"
check "title of the page" "$dom" "<title>meshtest results</title>"
check "outcome tiles" "$dom" 'data-outcome="passed">'
check "failure count of the newest run" "$dom" 'data-outcome="failed">'
check "pass-rate chart" "$dom" '<svg id="pass-rate-chart"'
check "model history chart" "$dom" '<svg id="model-history"'
check "per-arch history chart" "$dom" '<svg id="arch-history-chart"'
check "per-variant history table" "$dom" '<table id="variant-table">'
check "memory by phase section (the store has no --log-memory figures: the hint)" "$dom" 'run with --log-memory to see phases'
check "hostile model name shown as text" "$dom" "&lt;script&gt;document.title='pwned'&lt;/script&gt;"
check "hostile test id shown as text" "$dom" "&lt;img src=x onerror=alert(1)&gt;"
same "script elements (the page's own filter script only)" "$(grep -o '<script' "$dom" | wc -l)" 1
if grep -q "<title>pwned" "$dom"; then echo "FAILED: the hostile script ran"; fail=1; fi

# Every case of the newest run, every arch (the store puts every third case on n300-llmbox).
same "case rows, every arch" "$( (grep -o '<tr data-f="" data-arch="[^"]*" data-family="[^"]*" data-group="[^"]*" data-mode' "$dom" || true) | wc -l)" 60
same "case rows on n300-llmbox" "$( (grep -o '<tr data-f="" data-arch="n300-llmbox" data-family="[^"]*" data-group="[^"]*" data-mode' "$dom" || true) | wc -l)" 20
same "no row hidden without a filter" "$(grep -c 'hidden=""' "$dom" || true)" 0
# The filters from the address: the rows shown are those the page holds for n150 and failed.
expected=$( (grep -o '<tr data-f data-arch="n150" [^>]*data-status="xfailed"' "$out/dashboard.html" || true) | wc -l)
if [ "$expected" -lt 1 ]; then echo "FAILED: the generated store has no xfailed n150 case to filter on"; fail=1; fi
# A shown case row ends after data-variant; a filtered-out one goes on with hidden="".
shown=$( (grep -o '<tr data-f="" data-arch="[^"]*" data-family="[^"]*" data-group="[^"]*" data-mode="[^"]*" data-par="[^"]*" data-status="[^"]*" data-variant="[^"]*">' "$filtered" || true) | wc -l)
same "case rows shown for #arch=n150&status=xfailed" "$shown" "$expected"
check "the shown count says so" "$filtered" "data-count-for=\"case-table\">$expected<"
check "the arch select took the address's value" "$filtered" '<option>n150</option>'
check "placeholders listed whatever the filters" "$filtered" '<tr class="placeholder">'

# Screenshots: a rendered dashboard is far bigger than a blank page's PNG.
blank=$(stat -c %s "$out/blank.png" 2>/dev/null || echo 0)
for png in dashboard.png dashboard-filtered.png; do
  size=$(stat -c %s "$out/$png" 2>/dev/null || echo 0)
  if [ "$blank" -gt 0 ] && [ "$size" -gt $((blank * 5)) ]; then
    echo "ok: screenshot $out/$png ($size bytes; blank page $blank)"
  else
    echo "FAILED: screenshot $out/$png is blank or missing ($size bytes; blank page $blank)"; fail=1
  fi
done
exit $fail
