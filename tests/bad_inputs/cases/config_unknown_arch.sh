# An arch override for an arch that does not exist.
mkdir cfg && printf 'test_config:\n  bad/native-ok-single_device-inference:\n    status: EXPECTED_PASSING\n    arch_overrides:\n      n151:\n        required_pcc: 0.9\n' > cfg/t.yaml
$MESHTEST validate-config --models-root=$MODELS --config-dir cfg
