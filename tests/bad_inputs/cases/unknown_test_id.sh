# A test id that does not exist.
$MESHTEST collect bad/native-nope-single_device-inference --models-root $MODELS
