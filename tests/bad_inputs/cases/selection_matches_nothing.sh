# A selection that matches no case.
$MESHTEST collect --models-root=$MODELS -k 'no_such_model'
