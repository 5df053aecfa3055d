# A weight declared at 4 TiB: refused before allocation.
$MESHTEST run --models-root=$MODELS --db r.db bad/native-huge_weight-single_device-inference
