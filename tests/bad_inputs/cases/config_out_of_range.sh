# A PCC threshold above 1.
mkdir cfg && printf 'test_config:\n  bad/native-ok-single_device-inference:\n    required_pcc: 1.5\n' > cfg/t.yaml
$MESHTEST validate-config --models-root=$MODELS --config-dir cfg
