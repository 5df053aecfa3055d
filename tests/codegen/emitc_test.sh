#!/usr/bin/env bash
# Generated C++ end to end, against meshtest's SDK package installed into a
# temporary prefix (what the generated CMakeLists.txt finds):
#  1. `run --emitc` on two small cases (an MLP; resnet_tiny with bfp8_b
#     weights): each generated program builds with -Werror, runs, and matches
#     the in-process device bit for bit (codegen_status matched_exact);
#  2. a second run reuses both builds (cached by program hash);
#  3. `codegen ID --out DIR` writes a folder that builds and runs by hand;
#  4. YAML emitpy_assert_exact: false makes the comparison PCC (matched_pcc);
#  5. one generated line edited (an op swapped for another) is caught: the
#     case fails with codegen_status mismatch.
# Usage: emitc_test.sh <meshtest build dir>
set -euo pipefail
build=$1
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
meshtest=$build/meshtest
mlp=mnist/image_classification/native-mlp-single_device-inference
tiny=resnet/native-resnet_tiny-single_device-inference

cmake --install "$build" --prefix "$work/sdk" >/dev/null
emitc() {  # emitc <json name> <ids...>
  local json=$work/$1.jsonl
  shift
  "$meshtest" run --emitc --sdk-prefix "$work/sdk" --cache-dir "$work/cache" --db "" -j 2 --json "$json" "$@"
}
statuses() { grep -o '"codegen_status": *"[a-z_]*"' "$work/$1.jsonl" | sed 's/.*"\([a-z_]*\)"$/\1/' | sort | tr '\n' ' '; }
fail() { echo "FAIL: $*"; exit 1; }

# 1. Built, run, bit-exact.
out=$(emitc first "$mlp" "$tiny" 2>&1) || fail "run --emitc: $out"
[[ "$(statuses first)" == "matched_exact matched_exact " ]] || fail "statuses: $(statuses first)"
programs=("$work"/cache/codegen/*/build/program)
[[ ${#programs[@]} -eq 2 ]] || fail "expected 2 built programs, got ${programs[*]}"

# 2. Cached: nothing is rebuilt (the executables keep their modification time).
before=$(stat -c %Y "${programs[@]}")
sleep 1.1
out=$(emitc second "$mlp" "$tiny" 2>&1) || fail "second run --emitc: $out"
[[ "$(statuses second)" == "matched_exact matched_exact " ]] || fail "statuses: $(statuses second)"
[[ "$(stat -c %Y "${programs[@]}")" == "$before" ]] || fail "a cached program was rebuilt"

# 3. `codegen --out`: builds by hand against the installed package, runs.
out=$("$meshtest" codegen "$mlp" --out "$work/gen" 2>&1) || fail "codegen: $out"
grep -q "device ops written to $work/gen/main.cpp" <<<"$out" || fail "codegen said: $out"
cmake -S "$work/gen" -B "$work/gen/build" -G Ninja -DCMAKE_PREFIX_PATH="$work/sdk" >/dev/null
cmake --build "$work/gen/build" >/dev/null
"$work/gen/build/program" "$work/gen/tensors.safetensors" "$work/gen/outputs.safetensors"
[[ -s "$work/gen/outputs.safetensors" ]] || fail "the hand-built program wrote no outputs"
cmp -s "$work/gen/main.cpp" "$(ls "$work"/cache/codegen/*/main.cpp | xargs grep -l '"relu"' | head -1)" ||
  fail "codegen --out and run --emitc generated different sources for $mlp"

# 4. YAML emitpy_assert_exact: false (the other runners' name) compares by PCC.
mkdir -p "$work/config"
printf 'test_config:\n  %s:\n    status: EXPECTED_PASSING\n    emitpy_assert_exact: false\n' "$mlp" \
  >"$work/config/pcc.yaml"
out=$(emitc pcc "$mlp" --config-dir "$work/config" 2>&1) || fail "run --emitc by PCC: $out"
[[ "$(statuses pcc)" == "matched_pcc " ]] || fail "statuses with emitpy_assert_exact false: $(statuses pcc)"

# 5. One generated line edited in the cached source (relu -> gelu), its build
#    removed: the next --emitc rebuilds it and the check fails.
source=$(grep -l 'device::op("relu"' "$work"/cache/codegen/*/main.cpp | head -1)
[[ -n "$source" ]] || fail "no relu line to edit"
sed -i '0,/device::op("relu"/s//device::op("gelu"/' "$source"
[[ $(grep -c 'device::op("gelu"' "$source") -eq 1 ]] || fail "the edit did not apply"
rm -rf "$(dirname "$source")/build"
if out=$(emitc third "$mlp" 2>&1); then fail "an edited generated line was not caught: $out"; fi
[[ "$(statuses third)" == "mismatch " ]] || fail "statuses after the edit: $(statuses third)"
grep -q "codegen: generated program .*differs from the device at element" <<<"$out" || fail "no mismatch message: $out"
echo "run --emitc: built, matched, cached; codegen --out built by hand; the edited line was caught"
