# A loader folder holding both loader.so and loader.yaml.
mkdir -p root/m/native && cp $MODELS/bad/native/loader.so root/m/native/ && echo 'model: m.onnx' > root/m/native/loader.yaml
$MESHTEST collect --models-root root -k 'm/native'
