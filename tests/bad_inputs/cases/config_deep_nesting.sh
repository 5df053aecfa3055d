# 300 levels of nested flow sequences.
mkdir cfg && { printf 'test_config: '; printf '[%.0s' $(seq 300); printf ']%.0s' $(seq 300); echo; } > cfg/deep.yaml
$MESHTEST validate-config --models-root=$MODELS --config-dir cfg
