# IR text whose declared result type is wrong.
printf 'graph @g {\n  input @x : f32[2]\n  %%0 = relu(@x) : f32[3]\n  output @y = %%0\n}\n' > g.mtir
$MESHTEST_OPT --pass=verify g.mtir
