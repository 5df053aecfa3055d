# An empty .yaml file: accepted, it adds nothing.
mkdir cfg && : > cfg/empty.yaml
$MESHTEST validate-config --models-root=$MODELS --config-dir cfg
