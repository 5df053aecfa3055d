# SQL in a value that reaches the results store (a --run-id): stored as text,
# since every statement binds its values as parameters.
$MESHTEST run --models-root=$MODELS --db r.db --run-id "x'); DROP TABLE results; --" \
  bad/native-ok-single_device-inference >/dev/null
rc=$?
$MESHTEST runs --db r.db | cut -c1-80
python3 $BAD_INPUTS/last_result.py r.db run_id
exit $rc
