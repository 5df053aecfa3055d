# A loader.yaml with a key the ONNX frontend does not know.
/usr/bin/python3 $BAD_INPUTS/make_onnx.py root/m/onnx ok && echo '    colour: red' >> root/m/onnx/loader.yaml
$MESHTEST collect --models-root root
