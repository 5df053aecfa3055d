# A loader that dereferences null while building its model.
$MESHTEST run --models-root=$MODELS --db r.db faults/native-segfault-single_device-inference
