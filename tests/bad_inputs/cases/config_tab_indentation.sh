# Tabs in indentation.
mkdir cfg && printf 'test_config:\n\tbad/native-ok-single_device-inference:\n\t\tstatus: EXPECTED_PASSING\n' > cfg/tabs.yaml
$MESHTEST validate-config --models-root=$MODELS --config-dir cfg
