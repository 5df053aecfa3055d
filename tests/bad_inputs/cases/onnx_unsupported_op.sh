# An ONNX op the importer has no converter for.
/usr/bin/python3 $BAD_INPUTS/make_onnx.py root/m/onnx unsupported_op
$MESHTEST run --models-root root --db r.db m/onnx-v-single_device-inference
