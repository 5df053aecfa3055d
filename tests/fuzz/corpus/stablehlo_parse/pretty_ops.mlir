module @jit_f attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3xf32> {mhlo.sharding = "{replicated}"}, %arg1: tensor<3xf32>) -> (tensor<3x2xf32> {jax.result_info = ""}) {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<2x3xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<2x3xf32>
    %2 = stablehlo.compare  GT, %1, %0,  FLOAT : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
    %3 = stablehlo.select %2, %1, %0 : tensor<2x3xi1>, tensor<2x3xf32>
    %4 = stablehlo.transpose %3, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
    %5 = stablehlo.slice %4 [0:3, 0:2:1] : (tensor<3x2xf32>) -> tensor<3x2xf32>
    %6 = stablehlo.iota dim = 0 : tensor<3xi32>
    %cst = stablehlo.constant dense<[[1.0, 2.0], [3.0, 0x7FC00000]]> : tensor<2x2xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.pad %cst, %cst_0, low = [0, 1], high = [1, 0], interior = [0, 0] : (tensor<2x2xf32>, tensor<f32>) -> tensor<3x3xf32>
    return %5 : tensor<3x2xf32> loc(#loc1)
  }
}
#loc1 = loc("f.py":1:2)
