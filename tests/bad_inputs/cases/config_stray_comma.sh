# A document that starts with a stray ',': yaml-cpp 0.7 loops forever on it (its issue #1040).
mkdir cfg && printf ',\n ' > cfg/comma.yaml
timeout 60 $MESHTEST validate-config --models-root=$MODELS --config-dir cfg
