# IR text naming an op that does not exist.
printf 'graph @g {\n  input @x : f32[2]\n  %%0 = frobnicate(@x) : f32[2]\n  output @y = %%0\n}\n' > g.mtir
$MESHTEST_OPT --pass=verify g.mtir
