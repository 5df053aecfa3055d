# A tensor of a dtype the reader does not know.
mkdir in && python3 $BAD_INPUTS/make_safetensors.py in/ok.safetensors '{"x": {"dtype": "F8", "shape": [1, 8], "data_offsets": [0, 8]}}' 8
MESHTEST_INPUTS_DIR=in $MESHTEST run --models-root=$MODELS --db r.db bad/native-ok-single_device-inference
