# A -m marker no collected case carries.
$MESHTEST collect --models-root=$MODELS -m 'nightly_gpu'
