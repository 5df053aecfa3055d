# A model that prints 4 MB while it loads: the record keeps its head and tail (about 64 KiB).
$MESHTEST run --models-root=$MODELS --db r.db faults/native-big_output-single_device-inference >/dev/null
rc=$?
python3 $BAD_INPUTS/last_result.py r.db 'length(captured_output) / 1024'
python3 $BAD_INPUTS/last_result.py r.db captured_output '\[\.\.\. \d+ bytes of output dropped \.\.\.\]'
exit $rc
