# A misspelt field name.
mkdir cfg && printf 'test_config:\n  bad/native-ok-single_device-inference:\n    status: EXPECTED_PASSING\n    requried_pcc: 0.9\n' > cfg/t.yaml
$MESHTEST validate-config --models-root=$MODELS --config-dir cfg
