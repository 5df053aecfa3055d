# --junitxml into a folder that does not exist.
$MESHTEST run --models-root=$MODELS --db r.db --junitxml no/such/folder/j.xml bad/native-ok-single_device-inference
