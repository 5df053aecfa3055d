# A shape of 2^80 elements over 0 bytes (the byte count would wrap to 0).
mkdir in && python3 $BAD_INPUTS/make_safetensors.py in/ok.safetensors '{"x": {"dtype": "F32", "shape": [1099511627776, 1099511627776], "data_offsets": [0, 0]}}' 0
MESHTEST_INPUTS_DIR=in $MESHTEST run --models-root=$MODELS --db r.db bad/native-ok-single_device-inference
