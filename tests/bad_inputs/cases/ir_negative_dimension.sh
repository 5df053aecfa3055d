# IR text with a negative dimension.
printf 'graph @g {\n  input @x : f32[-1]\n}\n' > g.mtir
$MESHTEST_OPT --pass=verify g.mtir
