# Binary data (not UTF-8) in a .yaml file.
mkdir cfg && printf 'test_config:\n  bad/native-ok-single_device-inference: \xff\xfe\x00\x01\n' > cfg/junk.yaml
$MESHTEST validate-config --models-root=$MODELS --config-dir cfg
