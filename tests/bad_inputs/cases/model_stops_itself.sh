# A model that sends itself SIGSTOP: no heartbeat, killed at --hang-timeout.
$MESHTEST run --models-root=$MODELS --db r.db --hang-timeout 2 faults/native-hang-single_device-inference
