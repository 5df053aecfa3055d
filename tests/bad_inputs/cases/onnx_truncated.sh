# An ONNX model file cut short (a download that stopped half-way).
/usr/bin/python3 $BAD_INPUTS/make_onnx.py root/m/onnx truncated
$MESHTEST run --models-root root --db r.db m/onnx-v-single_device-inference
