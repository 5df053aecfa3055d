# A header of 100,000 nested JSON arrays: parsed without recursion, then refused.
mkdir in && python3 -c "print('[' * 100000 + ']' * 100000, end='')" > header.json
python3 $BAD_INPUTS/make_safetensors.py in/ok.safetensors @header.json 0
MESHTEST_INPUTS_DIR=in $MESHTEST run --models-root=$MODELS --db r.db bad/native-ok-single_device-inference
