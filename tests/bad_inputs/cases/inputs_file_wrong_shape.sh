# A $MESHTEST_INPUTS_DIR file whose tensor has the wrong shape.
mkdir in && python3 $BAD_INPUTS/make_safetensors.py in/ok.safetensors '{"x": {"dtype": "F32", "shape": [2, 8], "data_offsets": [0, 64]}}' 64
MESHTEST_INPUTS_DIR=in $MESHTEST run --models-root=$MODELS --db r.db bad/native-ok-single_device-inference
