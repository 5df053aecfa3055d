# A compile cache entry overwritten with junk: ignored with a warning in the case's log, recompiled and replaced.
$MESHTEST run --models-root=$MODELS --db r.db --cache-dir cache bad/native-ok-single_device-inference >/dev/null
for f in cache/*; do echo garbage > "$f"; done
$MESHTEST run --models-root=$MODELS --db r.db --cache-dir cache bad/native-ok-single_device-inference
rc=$?
python3 $BAD_INPUTS/last_result.py r.db captured_output 'compile cache: .*'
head -c 8 cache/*; echo
exit $rc
