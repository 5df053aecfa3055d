# A model that never returns: killed at the case's --timeout.
$MESHTEST run --models-root=$MODELS --db r.db --timeout 2 faults/native-infinite_loop-single_device-inference
