# Weights larger than the chip's DRAM (--compile-only: the memory plan finds it without allocating).
$MESHTEST run --models-root=$MODELS --db r.db --compile-only bad/native-device_oom-single_device-inference
