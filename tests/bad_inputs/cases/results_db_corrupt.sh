# A results database that is not SQLite.
echo 'this is not a database' > r.db
$MESHTEST run --models-root=$MODELS --db r.db bad/native-ok-single_device-inference
