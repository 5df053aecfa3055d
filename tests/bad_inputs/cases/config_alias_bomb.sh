# A billion-laughs alias bomb.
mkdir cfg && printf 'a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\nc: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n' > cfg/bomb.yaml
$MESHTEST validate-config --models-root=$MODELS --config-dir cfg
