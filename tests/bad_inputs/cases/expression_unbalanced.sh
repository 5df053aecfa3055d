# A -k expression with an unclosed parenthesis.
$MESHTEST collect --models-root=$MODELS -k '(ok and inference'
