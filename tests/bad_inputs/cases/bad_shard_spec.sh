# A --shard that is not I/N with 1 <= I <= N.
$MESHTEST run --models-root=$MODELS --db r.db --shard 3/2
