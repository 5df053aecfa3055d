# A loader whose load_inputs throws.
$MESHTEST run --models-root=$MODELS --db r.db faults/native-throw_load_inputs-single_device-inference
