module @jit_llama_block attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1x32x128xf32>, %arg1: tensor<128xf32>, %arg2: tensor<128x128xf32>, %arg3: tensor<128x32xf32>, %arg4: tensor<128x32xf32>, %arg5: tensor<128x128xf32>, %arg6: tensor<128xf32>, %arg7: tensor<128x256xf32>, %arg8: tensor<128x256xf32>, %arg9: tensor<256x128xf32>) -> (tensor<1x32x128xf32> {jax.result_info = "result"}) {
    %0 = chlo.square %arg0 : tensor<1x32x128xf32> -> tensor<1x32x128xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<1x32x128xf32>, tensor<f32>) -> tensor<1x32xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<1x32x1xf32>
    %cst_0 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x32x1xf32>
    %4 = stablehlo.divide %2, %3 : tensor<1x32x1xf32>
    %cst_1 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<1x32x1xf32>
    %6 = stablehlo.add %4, %5 : tensor<1x32x1xf32>
    %7 = stablehlo.rsqrt %6 : tensor<1x32x1xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<1x32x1xf32>) -> tensor<1x32x128xf32>
    %9 = stablehlo.multiply %arg0, %8 : tensor<1x32x128xf32>
    %10 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<128xf32>) -> tensor<1x1x128xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1, 2] : (tensor<1x1x128xf32>) -> tensor<1x32x128xf32>
    %12 = stablehlo.multiply %9, %11 : tensor<1x32x128xf32>
    %13 = stablehlo.dot_general %12, %arg2, contracting_dims = [2] x [0], precision = [HIGHEST, HIGHEST] : (tensor<1x32x128xf32>, tensor<128x128xf32>) -> tensor<1x32x128xf32>
    %14 = stablehlo.reshape %13 : (tensor<1x32x128xf32>) -> tensor<1x32x8x16xf32>
    %15 = stablehlo.transpose %14, dims = [0, 2, 1, 3] : (tensor<1x32x8x16xf32>) -> tensor<1x8x32x16xf32>
    %16 = stablehlo.dot_general %12, %arg3, contracting_dims = [2] x [0], precision = [HIGHEST, HIGHEST] : (tensor<1x32x128xf32>, tensor<128x32xf32>) -> tensor<1x32x32xf32>
    %17 = stablehlo.reshape %16 : (tensor<1x32x32xf32>) -> tensor<1x32x2x16xf32>
    %18 = stablehlo.transpose %17, dims = [0, 2, 1, 3] : (tensor<1x32x2x16xf32>) -> tensor<1x2x32x16xf32>
    %19 = stablehlo.dot_general %12, %arg4, contracting_dims = [2] x [0], precision = [HIGHEST, HIGHEST] : (tensor<1x32x128xf32>, tensor<128x32xf32>) -> tensor<1x32x32xf32>
    %20 = stablehlo.reshape %19 : (tensor<1x32x32xf32>) -> tensor<1x32x2x16xf32>
    %21 = stablehlo.transpose %20, dims = [0, 2, 1, 3] : (tensor<1x32x2x16xf32>) -> tensor<1x2x32x16xf32>
    %22 = stablehlo.iota dim = 0 : tensor<32xi32>
    %23 = stablehlo.iota dim = 0 : tensor<8xf32>
    %cst_2 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %25 = stablehlo.divide %23, %24 : tensor<8xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %27 = stablehlo.power %26, %25 : tensor<8xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %29 = stablehlo.divide %28, %27 : tensor<8xf32>
    %30 = stablehlo.broadcast_in_dim %22, dims = [0] : (tensor<32xi32>) -> tensor<32x1xi32>
    %31 = stablehlo.convert %30 : (tensor<32x1xi32>) -> tensor<32x1xf32>
    %32 = stablehlo.broadcast_in_dim %29, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %33 = stablehlo.broadcast_in_dim %31, dims = [0, 1] : (tensor<32x1xf32>) -> tensor<32x8xf32>
    %34 = stablehlo.broadcast_in_dim %32, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<32x8xf32>
    %35 = stablehlo.multiply %33, %34 : tensor<32x8xf32>
    %36 = stablehlo.cosine %35 : tensor<32x8xf32>
    %37 = stablehlo.sine %35 : tensor<32x8xf32>
    %38 = stablehlo.slice %15 [0:1, 0:8, 0:32, 0:8] : (tensor<1x8x32x16xf32>) -> tensor<1x8x32x8xf32>
    %39 = stablehlo.slice %15 [0:1, 0:8, 0:32, 8:16] : (tensor<1x8x32x16xf32>) -> tensor<1x8x32x8xf32>
    %40 = stablehlo.broadcast_in_dim %36, dims = [2, 3] : (tensor<32x8xf32>) -> tensor<1x1x32x8xf32>
    %41 = stablehlo.broadcast_in_dim %40, dims = [0, 1, 2, 3] : (tensor<1x1x32x8xf32>) -> tensor<1x8x32x8xf32>
    %42 = stablehlo.multiply %38, %41 : tensor<1x8x32x8xf32>
    %43 = stablehlo.broadcast_in_dim %37, dims = [2, 3] : (tensor<32x8xf32>) -> tensor<1x1x32x8xf32>
    %44 = stablehlo.broadcast_in_dim %43, dims = [0, 1, 2, 3] : (tensor<1x1x32x8xf32>) -> tensor<1x8x32x8xf32>
    %45 = stablehlo.multiply %39, %44 : tensor<1x8x32x8xf32>
    %46 = stablehlo.subtract %42, %45 : tensor<1x8x32x8xf32>
    %47 = stablehlo.broadcast_in_dim %37, dims = [2, 3] : (tensor<32x8xf32>) -> tensor<1x1x32x8xf32>
    %48 = stablehlo.broadcast_in_dim %47, dims = [0, 1, 2, 3] : (tensor<1x1x32x8xf32>) -> tensor<1x8x32x8xf32>
    %49 = stablehlo.multiply %38, %48 : tensor<1x8x32x8xf32>
    %50 = stablehlo.broadcast_in_dim %36, dims = [2, 3] : (tensor<32x8xf32>) -> tensor<1x1x32x8xf32>
    %51 = stablehlo.broadcast_in_dim %50, dims = [0, 1, 2, 3] : (tensor<1x1x32x8xf32>) -> tensor<1x8x32x8xf32>
    %52 = stablehlo.multiply %39, %51 : tensor<1x8x32x8xf32>
    %53 = stablehlo.add %49, %52 : tensor<1x8x32x8xf32>
    %54 = stablehlo.concatenate %46, %53, dim = 3 : (tensor<1x8x32x8xf32>, tensor<1x8x32x8xf32>) -> tensor<1x8x32x16xf32>
    %55 = stablehlo.iota dim = 0 : tensor<8xf32>
    %cst_5 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %56 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %57 = stablehlo.divide %55, %56 : tensor<8xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+04> : tensor<f32>
    %58 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %59 = stablehlo.power %58, %57 : tensor<8xf32>
    %cst_7 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %60 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %61 = stablehlo.divide %60, %59 : tensor<8xf32>
    %62 = stablehlo.broadcast_in_dim %22, dims = [0] : (tensor<32xi32>) -> tensor<32x1xi32>
    %63 = stablehlo.convert %62 : (tensor<32x1xi32>) -> tensor<32x1xf32>
    %64 = stablehlo.broadcast_in_dim %61, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %65 = stablehlo.broadcast_in_dim %63, dims = [0, 1] : (tensor<32x1xf32>) -> tensor<32x8xf32>
    %66 = stablehlo.broadcast_in_dim %64, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<32x8xf32>
    %67 = stablehlo.multiply %65, %66 : tensor<32x8xf32>
    %68 = stablehlo.cosine %67 : tensor<32x8xf32>
    %69 = stablehlo.sine %67 : tensor<32x8xf32>
    %70 = stablehlo.slice %18 [0:1, 0:2, 0:32, 0:8] : (tensor<1x2x32x16xf32>) -> tensor<1x2x32x8xf32>
    %71 = stablehlo.slice %18 [0:1, 0:2, 0:32, 8:16] : (tensor<1x2x32x16xf32>) -> tensor<1x2x32x8xf32>
    %72 = stablehlo.broadcast_in_dim %68, dims = [2, 3] : (tensor<32x8xf32>) -> tensor<1x1x32x8xf32>
    %73 = stablehlo.broadcast_in_dim %72, dims = [0, 1, 2, 3] : (tensor<1x1x32x8xf32>) -> tensor<1x2x32x8xf32>
    %74 = stablehlo.multiply %70, %73 : tensor<1x2x32x8xf32>
    %75 = stablehlo.broadcast_in_dim %69, dims = [2, 3] : (tensor<32x8xf32>) -> tensor<1x1x32x8xf32>
    %76 = stablehlo.broadcast_in_dim %75, dims = [0, 1, 2, 3] : (tensor<1x1x32x8xf32>) -> tensor<1x2x32x8xf32>
    %77 = stablehlo.multiply %71, %76 : tensor<1x2x32x8xf32>
    %78 = stablehlo.subtract %74, %77 : tensor<1x2x32x8xf32>
    %79 = stablehlo.broadcast_in_dim %69, dims = [2, 3] : (tensor<32x8xf32>) -> tensor<1x1x32x8xf32>
    %80 = stablehlo.broadcast_in_dim %79, dims = [0, 1, 2, 3] : (tensor<1x1x32x8xf32>) -> tensor<1x2x32x8xf32>
    %81 = stablehlo.multiply %70, %80 : tensor<1x2x32x8xf32>
    %82 = stablehlo.broadcast_in_dim %68, dims = [2, 3] : (tensor<32x8xf32>) -> tensor<1x1x32x8xf32>
    %83 = stablehlo.broadcast_in_dim %82, dims = [0, 1, 2, 3] : (tensor<1x1x32x8xf32>) -> tensor<1x2x32x8xf32>
    %84 = stablehlo.multiply %71, %83 : tensor<1x2x32x8xf32>
    %85 = stablehlo.add %81, %84 : tensor<1x2x32x8xf32>
    %86 = stablehlo.concatenate %78, %85, dim = 3 : (tensor<1x2x32x8xf32>, tensor<1x2x32x8xf32>) -> tensor<1x2x32x16xf32>
    %87 = stablehlo.broadcast_in_dim %86, dims = [0, 1, 3, 4] : (tensor<1x2x32x16xf32>) -> tensor<1x2x4x32x16xf32>
    %88 = stablehlo.reshape %87 : (tensor<1x2x4x32x16xf32>) -> tensor<1x8x32x16xf32>
    %89 = stablehlo.broadcast_in_dim %21, dims = [0, 1, 3, 4] : (tensor<1x2x32x16xf32>) -> tensor<1x2x4x32x16xf32>
    %90 = stablehlo.reshape %89 : (tensor<1x2x4x32x16xf32>) -> tensor<1x8x32x16xf32>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %91 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i1>) -> tensor<32x32xi1>
    %92 = call @tril(%91) : (tensor<32x32xi1>) -> tensor<32x32xi1>
    %93 = stablehlo.broadcast_in_dim %92, dims = [2, 3] : (tensor<32x32xi1>) -> tensor<1x1x32x32xi1>
    %94 = stablehlo.dot_general %54, %88, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3], precision = [HIGHEST, HIGHEST] : (tensor<1x8x32x16xf32>, tensor<1x8x32x16xf32>) -> tensor<1x8x32x32xf32>
    %cst_8 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %95 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<1x8x32x32xf32>
    %96 = stablehlo.divide %94, %95 : tensor<1x8x32x32xf32>
    %cst_9 = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
    %97 = call @_where(%93, %96, %cst_9) : (tensor<1x1x32x32xi1>, tensor<1x8x32x32xf32>, tensor<f32>) -> tensor<1x8x32x32xf32>
    %cst_10 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %98 = stablehlo.reduce(%97 init: %cst_10) applies stablehlo.maximum across dimensions = [3] : (tensor<1x8x32x32xf32>, tensor<f32>) -> tensor<1x8x32xf32>
    %cst_11 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %99 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<1x8x32xf32>
    %100 = stablehlo.maximum %99, %98 : tensor<1x8x32xf32>
    %101 = stablehlo.broadcast_in_dim %100, dims = [0, 1, 2] : (tensor<1x8x32xf32>) -> tensor<1x8x32x1xf32>
    %102 = stablehlo.broadcast_in_dim %101, dims = [0, 1, 2, 3] : (tensor<1x8x32x1xf32>) -> tensor<1x8x32x32xf32>
    %103 = stablehlo.subtract %97, %102 : tensor<1x8x32x32xf32>
    %104 = stablehlo.exponential %103 : tensor<1x8x32x32xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %105 = stablehlo.reduce(%104 init: %cst_12) applies stablehlo.add across dimensions = [3] : (tensor<1x8x32x32xf32>, tensor<f32>) -> tensor<1x8x32xf32>
    %106 = stablehlo.broadcast_in_dim %105, dims = [0, 1, 2] : (tensor<1x8x32xf32>) -> tensor<1x8x32x1xf32>
    %107 = stablehlo.broadcast_in_dim %106, dims = [0, 1, 2, 3] : (tensor<1x8x32x1xf32>) -> tensor<1x8x32x32xf32>
    %108 = stablehlo.divide %104, %107 : tensor<1x8x32x32xf32>
    %109 = stablehlo.dot_general %108, %90, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [HIGHEST, HIGHEST] : (tensor<1x8x32x32xf32>, tensor<1x8x32x16xf32>) -> tensor<1x8x32x16xf32>
    %110 = stablehlo.transpose %109, dims = [0, 2, 1, 3] : (tensor<1x8x32x16xf32>) -> tensor<1x32x8x16xf32>
    %111 = stablehlo.reshape %110 : (tensor<1x32x8x16xf32>) -> tensor<1x32x128xf32>
    %112 = stablehlo.dot_general %111, %arg5, contracting_dims = [2] x [0], precision = [HIGHEST, HIGHEST] : (tensor<1x32x128xf32>, tensor<128x128xf32>) -> tensor<1x32x128xf32>
    %113 = stablehlo.add %arg0, %112 : tensor<1x32x128xf32>
    %114 = chlo.square %113 : tensor<1x32x128xf32> -> tensor<1x32x128xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %115 = stablehlo.reduce(%114 init: %cst_13) applies stablehlo.add across dimensions = [2] : (tensor<1x32x128xf32>, tensor<f32>) -> tensor<1x32xf32>
    %116 = stablehlo.broadcast_in_dim %115, dims = [0, 1] : (tensor<1x32xf32>) -> tensor<1x32x1xf32>
    %cst_14 = stablehlo.constant dense<1.280000e+02> : tensor<f32>
    %117 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<1x32x1xf32>
    %118 = stablehlo.divide %116, %117 : tensor<1x32x1xf32>
    %cst_15 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
    %119 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<1x32x1xf32>
    %120 = stablehlo.add %118, %119 : tensor<1x32x1xf32>
    %121 = stablehlo.rsqrt %120 : tensor<1x32x1xf32>
    %122 = stablehlo.broadcast_in_dim %121, dims = [0, 1, 2] : (tensor<1x32x1xf32>) -> tensor<1x32x128xf32>
    %123 = stablehlo.multiply %113, %122 : tensor<1x32x128xf32>
    %124 = stablehlo.broadcast_in_dim %arg6, dims = [2] : (tensor<128xf32>) -> tensor<1x1x128xf32>
    %125 = stablehlo.broadcast_in_dim %124, dims = [0, 1, 2] : (tensor<1x1x128xf32>) -> tensor<1x32x128xf32>
    %126 = stablehlo.multiply %123, %125 : tensor<1x32x128xf32>
    %127 = stablehlo.dot_general %126, %arg7, contracting_dims = [2] x [0], precision = [HIGHEST, HIGHEST] : (tensor<1x32x128xf32>, tensor<128x256xf32>) -> tensor<1x32x256xf32>
    %128 = call @silu(%127) : (tensor<1x32x256xf32>) -> tensor<1x32x256xf32>
    %129 = stablehlo.dot_general %126, %arg8, contracting_dims = [2] x [0], precision = [HIGHEST, HIGHEST] : (tensor<1x32x128xf32>, tensor<128x256xf32>) -> tensor<1x32x256xf32>
    %130 = stablehlo.multiply %128, %129 : tensor<1x32x256xf32>
    %131 = stablehlo.dot_general %130, %arg9, contracting_dims = [2] x [0], precision = [HIGHEST, HIGHEST] : (tensor<1x32x256xf32>, tensor<256x128xf32>) -> tensor<1x32x128xf32>
    %132 = stablehlo.add %113, %131 : tensor<1x32x128xf32>
    return %132 : tensor<1x32x128xf32>
  }
  func.func private @tril(%arg0: tensor<32x32xi1>) -> tensor<32x32xi1> {
    %0 = stablehlo.iota dim = 0 : tensor<32x32xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<32x32xi32>
    %2 = stablehlo.add %0, %1 : tensor<32x32xi32>
    %3 = stablehlo.iota dim = 1 : tensor<32x32xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<32x32xi32>, tensor<32x32xi32>) -> tensor<32x32xi1>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i1>) -> tensor<32x32xi1>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<32x32xi1>, tensor<32x32xi1>
    return %6 : tensor<32x32xi1>
  }
  func.func private @_where(%arg0: tensor<1x1x32x32xi1>, %arg1: tensor<1x8x32x32xf32>, %arg2: tensor<f32>) -> tensor<1x8x32x32xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1, 2, 3] : (tensor<1x1x32x32xi1>) -> tensor<1x8x32x32xi1>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<1x8x32x32xf32>
    %2 = stablehlo.select %0, %arg1, %1 : tensor<1x8x32x32xi1>, tensor<1x8x32x32xf32>
    return %2 : tensor<1x8x32x32xf32>
  }
  func.func private @silu(%arg0: tensor<1x32x256xf32>) -> tensor<1x32x256xf32> {
    %0 = stablehlo.negate %arg0 : tensor<1x32x256xf32>
    %1 = stablehlo.exponential %0 : tensor<1x32x256xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x32x256xf32>
    %3 = stablehlo.add %2, %1 : tensor<1x32x256xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x32x256xf32>
    %5 = stablehlo.divide %4, %3 : tensor<1x32x256xf32>
    %6 = stablehlo.multiply %arg0, %5 : tensor<1x32x256xf32>
    return %6 : tensor<1x32x256xf32>
  }
}
