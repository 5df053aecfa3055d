# test_config YAML that does not parse (an unclosed flow sequence).
mkdir cfg && printf 'test_config:\n  a: [\n' > cfg/bad.yaml
$MESHTEST validate-config --models-root=$MODELS --config-dir cfg
