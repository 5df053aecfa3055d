# An initializer whose external data file is outside the model's folder.
/usr/bin/python3 $BAD_INPUTS/make_onnx.py root/m/onnx escaping_data && head -c 16 /dev/zero > root/m/outside.bin
$MESHTEST run --models-root root --db r.db m/onnx-v-single_device-inference
