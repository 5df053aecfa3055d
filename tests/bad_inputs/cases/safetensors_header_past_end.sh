# A header size field larger than the file.
mkdir in && python3 $BAD_INPUTS/make_safetensors.py in/ok.safetensors '{}' 0 4096
MESHTEST_INPUTS_DIR=in $MESHTEST run --models-root=$MODELS --db r.db bad/native-ok-single_device-inference
