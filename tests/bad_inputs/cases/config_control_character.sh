# A control character (NUL) inside a value.
mkdir cfg && printf 'test_config:\n  bad/native-ok-single_device-inference:\n    reason: "a\x01b"\n' > cfg/ctl.yaml
$MESHTEST validate-config --models-root=$MODELS --config-dir cfg
