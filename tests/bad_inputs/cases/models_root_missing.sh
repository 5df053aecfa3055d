# A models root that does not exist: collected as a loader error.
$MESHTEST collect --models-root=$MODELS --models-root ./no_such_folder -k no_such_folder
