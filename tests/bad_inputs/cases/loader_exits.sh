# A loader that calls exit(0) in the middle of a case.
$MESHTEST run --models-root=$MODELS --db r.db faults/native-exit0-single_device-inference
