# A number field given a word.
mkdir cfg && printf 'test_config:\n  bad/native-ok-single_device-inference:\n    required_pcc: high\n' > cfg/t.yaml
$MESHTEST validate-config --models-root=$MODELS --config-dir cfg
