# A loader.so that is not a shared library.
$MESHTEST collect --models-root $FIXTURES -k not_a_plugin
