# A loader that calls abort().
$MESHTEST run --models-root=$MODELS --db r.db faults/native-abort-single_device-inference
