# IR text declaring a 10^22-element tensor.
printf 'graph @g {\n  weight @w : f32[100000000000,100000000000] = constant(0)\n  %%0 = relu(@w) : f32[100000000000,100000000000]\n  output @y = %%0\n}\n' > g.mtir
$MESHTEST_OPT --pass=verify g.mtir
