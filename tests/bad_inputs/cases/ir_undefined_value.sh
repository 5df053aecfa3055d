# IR text using a value before it is defined.
printf 'graph @g {\n  input @x : f32[2]\n  %%0 = relu(%%7) : f32[2]\n  output @y = %%0\n}\n' > g.mtir
$MESHTEST_OPT --pass=verify g.mtir
