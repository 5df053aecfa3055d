# A models root that every user can write: its plugins are refused.
mkdir -p root/bad/native && cp $MODELS/bad/native/loader.so root/bad/native/ && chmod 777 root
$MESHTEST collect --models-root root
