# A loader whose load_model throws.
$MESHTEST run --models-root=$MODELS --db r.db faults/native-throw_load_model-single_device-inference
