# A safetensors file shorter than its 8-byte header size field.
mkdir in && printf 'abc' > in/ok.safetensors
MESHTEST_INPUTS_DIR=in $MESHTEST run --models-root=$MODELS --db r.db bad/native-ok-single_device-inference
