# A -k expression nested 300 levels deep.
$MESHTEST collect --models-root=$MODELS -k "$(printf '(%.0s' $(seq 300))ok$(printf ')%.0s' $(seq 300))"
