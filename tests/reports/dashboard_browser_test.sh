#!/usr/bin/env bash
# Loads a generated dashboard in headless Chromium (Debian's `chromium`,
# installed by scripts/setup; this test installs nothing) and checks the DOM:
# outcome counts, a chart's <svg>, a hostile "<script>" from the store shown as
# text and never run. Saves a screenshot next to the page. Exits 77 (ctest:
# skipped) with the reason when chromium is missing.
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

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
flags=(--headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking
       --disable-component-update --disable-sync --user-data-dir="$profile")
timeout 120 "$chromium" "${flags[@]}" --dump-dom "file://$out/dashboard.html" >"$out/dom.html" 2>"$out/chromium.log"
timeout 120 "$chromium" "${flags[@]}" --window-size=1280,2400 --screenshot="$out/dashboard.png" \
  "file://$out/dashboard.html" >>"$out/chromium.log" 2>&1

fail=0
check() {  # check DESCRIPTION GREP_PATTERN
  if grep -qF -- "$2" "$out/dom.html"; then echo "ok: $1"; else echo "FAILED: $1 (no '$2' in the DOM)"; fail=1; fi
}
check "title of the page" "<title>meshtest results</title>"
check "outcome tiles" 'data-outcome="passed">'
check "failure count of the newest run" 'data-outcome="failed">'
check "pass-rate chart" '<svg id="pass-rate-chart"'
check "model history chart" '<svg id="model-history"'
check "hostile model name shown as text" "&lt;script&gt;document.title='pwned'&lt;/script&gt;"
check "hostile test id shown as text" "&lt;img src=x onerror=alert(1)&gt;"
if grep -q "<script" "$out/dom.html"; then echo "FAILED: a <script> element exists in the DOM"; fail=1; else echo "ok: no <script> element"; fi
if grep -q "<title>pwned" "$out/dom.html"; then echo "FAILED: the hostile script ran"; fail=1; fi
# The store puts every third case on n300-llmbox; the report reads one arch (n150, said on stderr): 40 rows.
rows=$(grep -o '<tr data-outcome="' "$out/dom.html" | wc -l)
if [ "$rows" -eq 40 ]; then echo "ok: 40 case rows"; else echo "FAILED: $rows case rows, expected 40 (the n150 cases)"; fail=1; fi
if [ -s "$out/dashboard.png" ]; then echo "ok: screenshot $out/dashboard.png"; else echo "FAILED: no screenshot"; fail=1; fi
exit $fail
