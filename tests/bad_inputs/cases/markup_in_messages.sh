# Markup in strings that reach the reports: a reason from the config and an
# error message naming a folder called <img onerror=…>: escaped in the JUnit file
# and in the HTML dashboard.
mkdir cfg '<img src=x onerror=alert(1)>&amp;' && printf 'abc' > '<img src=x onerror=alert(1)>&amp;/ok.safetensors'
cat > cfg/t.yaml <<'YAML'
test_config:
  bad/native-ok-single_device-inference:
    status: KNOWN_FAILURE_XFAIL
    reason: "<script>alert(2)</script> & 'quotes'"
YAML
MESHTEST_INPUTS_DIR='<img src=x onerror=alert(1)>&amp;' $MESHTEST run --models-root=$MODELS --config-dir cfg --db r.db \
  --junitxml j.xml bad/native-ok-single_device-inference >/dev/null
rc=$?
$MESHTEST report --db r.db --out dash.html >/dev/null
echo "unescaped markup in j.xml: $(grep -c '<script>\|<img' j.xml), in dash.html: $(grep -c '<script>alert\|<img' dash.html)"
grep -o '&lt;img src=x onerror=alert(1)&gt;&amp;amp;\|&lt;script&gt;alert(2)&lt;/script&gt; &amp; [a-z&;]*quotes' j.xml dash.html | sort -u
exit $rc
