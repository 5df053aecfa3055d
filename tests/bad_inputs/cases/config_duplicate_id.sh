# The same test id twice in one file.
mkdir cfg && printf 'test_config:\n  bad/native-ok-single_device-inference:\n    status: EXPECTED_PASSING\n  bad/native-ok-single_device-inference:\n    status: EXPECTED_PASSING\n' > cfg/t.yaml
$MESHTEST validate-config --models-root=$MODELS --config-dir cfg
