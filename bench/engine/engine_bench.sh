#!/bin/sh
# Execution-engine figures: harness overhead per case with process isolation
# (trivial model, -j 1, vs. the same cases in-process) and the parent's
# resident memory sampled across a 1,000-case run (it should stay flat).
# Usage: bench/engine/engine_bench.sh [BUILD_DIR] [CASES]
set -eu
BUILD_DIR=${1:-build}
CASES=${2:-1000}
cmake --build "$BUILD_DIR" -j2 --target meshtest engine_models_loader_trivial_native >/dev/null
BIN="$BUILD_DIR/meshtest"
ROOT="$BUILD_DIR/bench/engine/engine_models"
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$TMP/config"
ARGS="--models-root $ROOT --config-dir $TMP/config --db $TMP/r.db -k trivial -j 1"

now() { date +%s.%N; }
run_timed() {  # $1: extra args; prints seconds
  rm -f "$TMP"/r.db*
  t0=$(now)
  "$BIN" run $ARGS $1 >"$TMP/out.log" 2>&1
  t1=$(now)
  echo "$t1 - $t0" | bc -l
}

N=$("$BIN" collect --models-root "$ROOT" --config-dir "$TMP/config" -k trivial | grep -c '^trivial/')
[ "$N" -ge "$CASES" ] || CASES=$N
process=$(run_timed "--isolation process")
inproc=$(run_timed "--isolation none")
echo "cases: $N (trivial model, -j 1, SQLite store on)"
printf "process isolation: %.3f s total, %.2f ms per case\n" "$process" "$(echo "$process * 1000 / $N" | bc -l)"
printf "in-process:        %.3f s total, %.2f ms per case\n" "$inproc" "$(echo "$inproc * 1000 / $N" | bc -l)"
printf "isolation overhead per case: %.2f ms (target < 15 ms)\n" "$(echo "($process - $inproc) * 1000 / $N" | bc -l)"

# Parent RSS across the run: sampled every 0.2 s from /proc.
rm -f "$TMP"/r.db*
: >"$TMP/out.log"
"$BIN" run $ARGS --isolation process >"$TMP/out.log" 2>&1 &
PID=$!
: >"$TMP/rss"
while kill -0 $PID 2>/dev/null; do
  done_cases=$(grep -c '^PASSED' "$TMP/out.log" 2>/dev/null || true)
  rss=$(awk '/^VmRSS/ {print $2}' /proc/$PID/status 2>/dev/null || true)
  [ -n "$rss" ] && echo "$done_cases $rss" >>"$TMP/rss"
  sleep 0.2
done
wait $PID || true
awk '$1 >= 100 && !a++ {print "parent RSS after " $1 " cases: " $2 " KiB"}
     $1 >= 500 && !b++ {print "parent RSS after " $1 " cases: " $2 " KiB"}
     {last = $0} END {split(last, f, " "); print "parent RSS after " f[1] " cases: " f[2] " KiB"}' "$TMP/rss"
