# A top-level key other than test_config / PLACEHOLDER_MODELS.
mkdir cfg && printf 'tests:\n  bad/native-ok-single_device-inference:\n    status: EXPECTED_PASSING\n' > cfg/t.yaml
$MESHTEST validate-config --models-root=$MODELS --config-dir cfg
