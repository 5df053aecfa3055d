# A status that does not exist.
mkdir cfg && printf 'test_config:\n  bad/native-ok-single_device-inference:\n    status: MOSTLY_PASSING\n' > cfg/t.yaml
$MESHTEST validate-config --models-root=$MODELS --config-dir cfg
