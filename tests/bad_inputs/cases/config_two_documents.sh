# Two YAML documents in one file.
mkdir cfg && printf 'test_config:\n  bad/native-ok-single_device-inference:\n    status: EXPECTED_PASSING\n---\ntest_config: {}\n' > cfg/two.yaml
$MESHTEST validate-config --models-root=$MODELS --config-dir cfg
