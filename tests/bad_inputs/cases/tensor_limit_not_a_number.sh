# MESHTEST_MAX_TENSOR_BYTES that is not a number.
MESHTEST_MAX_TENSOR_BYTES=lots $MESHTEST run --models-root=$MODELS --db r.db bad/native-ok-single_device-inference
