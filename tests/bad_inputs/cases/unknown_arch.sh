# An --arch that is not a profile.
$MESHTEST collect --models-root=$MODELS --arch n151
