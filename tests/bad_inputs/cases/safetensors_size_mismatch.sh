# data_offsets whose length does not match the shape.
mkdir in && python3 $BAD_INPUTS/make_safetensors.py in/ok.safetensors '{"x": {"dtype": "F32", "shape": [1, 8], "data_offsets": [0, 16]}}' 16
MESHTEST_INPUTS_DIR=in $MESHTEST run --models-root=$MODELS --db r.db bad/native-ok-single_device-inference
