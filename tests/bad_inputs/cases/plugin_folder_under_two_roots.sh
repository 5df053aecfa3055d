# The same loader folder under two models roots.
mkdir -p r1/bad/native r2/bad/native && cp $MODELS/bad/native/loader.so r1/bad/native/ && cp $MODELS/bad/native/loader.so r2/bad/native/
$MESHTEST collect --models-root r1 --models-root r2 -k 'bad/native'
