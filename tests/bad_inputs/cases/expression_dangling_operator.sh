# A -m expression that ends in an operator.
$MESHTEST collect --models-root=$MODELS -m 'inference and'
