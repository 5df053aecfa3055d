# A UTF-8 byte-order mark and CRLF line ends: accepted as if they were not there.
mkdir cfg && printf '\xef\xbb\xbftest_config:\r\n  bad/native-ok-single_device-inference:\r\n    status: EXPECTED_PASSING\r\n' > cfg/t.yaml
$MESHTEST validate-config --models-root=$MODELS --config-dir cfg
