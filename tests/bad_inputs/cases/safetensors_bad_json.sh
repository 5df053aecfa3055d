# A header that is not JSON.
mkdir in && python3 $BAD_INPUTS/make_safetensors.py in/ok.safetensors '{"x": [' 0
MESHTEST_INPUTS_DIR=in $MESHTEST run --models-root=$MODELS --db r.db bad/native-ok-single_device-inference
