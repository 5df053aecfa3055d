# A model that allocates host memory without end: killed at --max-memory.
$MESHTEST run --models-root=$MODELS --db r.db --max-memory 512M faults/native-oom-single_device-inference
