# The disk fills while the dashboard is written (a 100 KiB file-size limit
# stands in for it; a 120 KB title makes the dashboard bigger than that while
# the database stays under it): the write fails with a message, and the
# dashboard of the previous `meshtest report` stays whole — reports are
# written to a temporary file and renamed into place.
$MESHTEST run --models-root=$MODELS --db r.db bad/native-ok-single_device-inference >/dev/null
$MESHTEST report --db r.db --out dash.html >/dev/null && cp dash.html before.html
$MESHTEST run --models-root=$MODELS --db r.db bad/native-nan_output-single_device-inference >/dev/null
trap '' XFSZ
ulimit -f 100
$MESHTEST report --db r.db --out dash.html --title "$(head -c 120000 /dev/zero | tr '\0' T)" 2>&1 | cut -c1-200
rc=${PIPESTATUS[0]}
cmp -s dash.html before.html && echo "previous dashboard intact"
ls | grep -v '^\(r.db\|dash.html\|before.html\|cache\)$' || echo "no temporary file left"
exit $rc
