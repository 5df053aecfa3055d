# An entry for a test id that no loader provides (a typo, or a removed model).
mkdir cfg && printf 'test_config:\n  bad/native-okay-single_device-inference:\n    status: EXPECTED_PASSING\n' > cfg/t.yaml
$MESHTEST validate-config --models-root=$MODELS --config-dir cfg
