#!/usr/bin/env bash
# Wall time of one selection run by 1, 2 and 4 local processes (-j 1 each),
# pulling from one shared queue (--queue) versus static shards (--shard I/N),
# on a PostgreSQL server. Usage: bench/engine/queue_scaling.sh BUILD_DIR PG_URL [-m EXPR]
set -euo pipefail
build="$1"; url="$2"; shift 2
selection=("$@")
[ ${#selection[@]} -eq 0 ] && selection=(-m "single_device and inference and expected_passing")
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
"$build/meshtest" run -j 1 --db "$url" --run-id "history-$$" "${selection[@]}" >/dev/null || true  # history
for n in 1 2 4; do
  for mode in queue shard; do
    start=$(date +%s.%N); pids=()
    for i in $(seq 1 "$n"); do
      if [ "$mode" = queue ]; then extra=(--queue "$url" --run-id "q$n-$$"); else extra=(--shard "$i/$n" --run-id "s$n-$$"); fi
      "$build/meshtest" run -j 1 --db "$url" "${extra[@]}" "${selection[@]}" >"$tmp/$mode$n-$i.log" 2>&1 & pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || true; done
    printf '%-5s %d process(es): %.1f s\n' "$mode" "$n" "$(echo "$(date +%s.%N) - $start" | bc)"
  done
done
