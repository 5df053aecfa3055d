# The same test id in two files.
mkdir cfg && printf 'test_config:\n  bad/native-ok-single_device-inference:\n    status: EXPECTED_PASSING\n' > cfg/one.yaml && cp cfg/one.yaml cfg/two.yaml
$MESHTEST validate-config --models-root=$MODELS --config-dir cfg
