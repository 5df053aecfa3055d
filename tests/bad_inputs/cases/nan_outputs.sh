# A model whose outputs are NaN on both sides.
$MESHTEST run --models-root=$MODELS --db r.db bad/native-nan_output-single_device-inference
