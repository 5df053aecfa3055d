# Inputs the CPU reference rejects (an embedding id past the table).
$MESHTEST run --models-root=$MODELS --db r.db faults/native-throw_golden-single_device-inference
