# A test_config file over the 16 MiB size limit.
mkdir cfg && { echo 'test_config:'; head -c 17000000 /dev/zero | tr '\0' '#'; echo; } > cfg/big.yaml
$MESHTEST validate-config --models-root=$MODELS --config-dir cfg
