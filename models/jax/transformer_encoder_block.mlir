module @jit_encoder_block attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x16x64xf32>, %arg1: tensor<64x64xf32>, %arg2: tensor<64x64xf32>, %arg3: tensor<64x64xf32>, %arg4: tensor<64x64xf32>, %arg5: tensor<64xf32>, %arg6: tensor<64xf32>, %arg7: tensor<64x256xf32>, %arg8: tensor<256xf32>, %arg9: tensor<256x64xf32>, %arg10: tensor<64xf32>, %arg11: tensor<64xf32>, %arg12: tensor<64xf32>) -> (tensor<2x16x64xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [2] x [0], precision = [HIGHEST, HIGHEST] : (tensor<2x16x64xf32>, tensor<64x64xf32>) -> tensor<2x16x64xf32>
    %1 = stablehlo.reshape %0 : (tensor<2x16x64xf32>) -> tensor<2x16x4x16xf32>
    %2 = stablehlo.transpose %1, dims = [0, 2, 1, 3] : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
    %3 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [2] x [0], precision = [HIGHEST, HIGHEST] : (tensor<2x16x64xf32>, tensor<64x64xf32>) -> tensor<2x16x64xf32>
    %4 = stablehlo.reshape %3 : (tensor<2x16x64xf32>) -> tensor<2x16x4x16xf32>
    %5 = stablehlo.transpose %4, dims = [0, 2, 1, 3] : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
    %6 = stablehlo.dot_general %arg0, %arg3, contracting_dims = [2] x [0], precision = [HIGHEST, HIGHEST] : (tensor<2x16x64xf32>, tensor<64x64xf32>) -> tensor<2x16x64xf32>
    %7 = stablehlo.reshape %6 : (tensor<2x16x64xf32>) -> tensor<2x16x4x16xf32>
    %8 = stablehlo.transpose %7, dims = [0, 2, 1, 3] : (tensor<2x16x4x16xf32>) -> tensor<2x4x16x16xf32>
    %9 = stablehlo.dot_general %2, %5, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3], precision = [HIGHEST, HIGHEST] : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
    %cst = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x4x16x16xf32>
    %11 = stablehlo.divide %9, %10 : tensor<2x4x16x16xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %12 = stablehlo.reduce(%11 init: %cst_0) applies stablehlo.maximum across dimensions = [3] : (tensor<2x4x16x16xf32>, tensor<f32>) -> tensor<2x4x16xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x4x16xf32>
    %14 = stablehlo.maximum %13, %12 : tensor<2x4x16xf32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [0, 1, 2] : (tensor<2x4x16xf32>) -> tensor<2x4x16x1xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2, 3] : (tensor<2x4x16x1xf32>) -> tensor<2x4x16x16xf32>
    %17 = stablehlo.subtract %11, %16 : tensor<2x4x16x16xf32>
    %18 = stablehlo.exponential %17 : tensor<2x4x16x16xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.reduce(%18 init: %cst_2) applies stablehlo.add across dimensions = [3] : (tensor<2x4x16x16xf32>, tensor<f32>) -> tensor<2x4x16xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1, 2] : (tensor<2x4x16xf32>) -> tensor<2x4x16x1xf32>
    %21 = stablehlo.broadcast_in_dim %20, dims = [0, 1, 2, 3] : (tensor<2x4x16x1xf32>) -> tensor<2x4x16x16xf32>
    %22 = stablehlo.divide %18, %21 : tensor<2x4x16x16xf32>
    %23 = stablehlo.dot_general %22, %8, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [HIGHEST, HIGHEST] : (tensor<2x4x16x16xf32>, tensor<2x4x16x16xf32>) -> tensor<2x4x16x16xf32>
    %24 = stablehlo.transpose %23, dims = [0, 2, 1, 3] : (tensor<2x4x16x16xf32>) -> tensor<2x16x4x16xf32>
    %25 = stablehlo.reshape %24 : (tensor<2x16x4x16xf32>) -> tensor<2x16x64xf32>
    %26 = stablehlo.dot_general %25, %arg4, contracting_dims = [2] x [0], precision = [HIGHEST, HIGHEST] : (tensor<2x16x64xf32>, tensor<64x64xf32>) -> tensor<2x16x64xf32>
    %27 = stablehlo.add %arg0, %26 : tensor<2x16x64xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %28 = stablehlo.reduce(%27 init: %cst_3) applies stablehlo.add across dimensions = [2] : (tensor<2x16x64xf32>, tensor<f32>) -> tensor<2x16xf32>
    %29 = stablehlo.broadcast_in_dim %28, dims = [0, 1] : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
    %cst_4 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x16x1xf32>
    %31 = stablehlo.divide %29, %30 : tensor<2x16x1xf32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x64xf32>
    %33 = stablehlo.subtract %27, %32 : tensor<2x16x64xf32>
    %34 = chlo.square %33 : tensor<2x16x64xf32> -> tensor<2x16x64xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %35 = stablehlo.reduce(%34 init: %cst_5) applies stablehlo.add across dimensions = [2] : (tensor<2x16x64xf32>, tensor<f32>) -> tensor<2x16xf32>
    %36 = stablehlo.broadcast_in_dim %35, dims = [0, 1] : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
    %cst_6 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %37 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<2x16x1xf32>
    %38 = stablehlo.divide %36, %37 : tensor<2x16x1xf32>
    %39 = stablehlo.broadcast_in_dim %31, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x64xf32>
    %40 = stablehlo.subtract %27, %39 : tensor<2x16x64xf32>
    %cst_7 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<2x16x1xf32>
    %42 = stablehlo.add %38, %41 : tensor<2x16x1xf32>
    %43 = stablehlo.rsqrt %42 : tensor<2x16x1xf32>
    %44 = stablehlo.broadcast_in_dim %43, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x64xf32>
    %45 = stablehlo.multiply %40, %44 : tensor<2x16x64xf32>
    %46 = stablehlo.broadcast_in_dim %arg5, dims = [2] : (tensor<64xf32>) -> tensor<1x1x64xf32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [0, 1, 2] : (tensor<1x1x64xf32>) -> tensor<2x16x64xf32>
    %48 = stablehlo.multiply %45, %47 : tensor<2x16x64xf32>
    %49 = stablehlo.broadcast_in_dim %arg6, dims = [2] : (tensor<64xf32>) -> tensor<1x1x64xf32>
    %50 = stablehlo.broadcast_in_dim %49, dims = [0, 1, 2] : (tensor<1x1x64xf32>) -> tensor<2x16x64xf32>
    %51 = stablehlo.add %48, %50 : tensor<2x16x64xf32>
    %52 = stablehlo.dot_general %51, %arg7, contracting_dims = [2] x [0], precision = [HIGHEST, HIGHEST] : (tensor<2x16x64xf32>, tensor<64x256xf32>) -> tensor<2x16x256xf32>
    %53 = stablehlo.broadcast_in_dim %arg8, dims = [2] : (tensor<256xf32>) -> tensor<1x1x256xf32>
    %54 = stablehlo.broadcast_in_dim %53, dims = [0, 1, 2] : (tensor<1x1x256xf32>) -> tensor<2x16x256xf32>
    %55 = stablehlo.add %52, %54 : tensor<2x16x256xf32>
    %56 = stablehlo.multiply %55, %55 : tensor<2x16x256xf32>
    %57 = stablehlo.multiply %56, %55 : tensor<2x16x256xf32>
    %cst_8 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %58 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<2x16x256xf32>
    %59 = stablehlo.multiply %58, %57 : tensor<2x16x256xf32>
    %60 = stablehlo.add %55, %59 : tensor<2x16x256xf32>
    %cst_9 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %61 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<2x16x256xf32>
    %62 = stablehlo.multiply %61, %60 : tensor<2x16x256xf32>
    %63 = stablehlo.tanh %62 : tensor<2x16x256xf32>
    %cst_10 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %64 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<2x16x256xf32>
    %65 = stablehlo.add %64, %63 : tensor<2x16x256xf32>
    %cst_11 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %66 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<2x16x256xf32>
    %67 = stablehlo.multiply %66, %65 : tensor<2x16x256xf32>
    %68 = stablehlo.multiply %55, %67 : tensor<2x16x256xf32>
    %69 = stablehlo.dot_general %68, %arg9, contracting_dims = [2] x [0], precision = [HIGHEST, HIGHEST] : (tensor<2x16x256xf32>, tensor<256x64xf32>) -> tensor<2x16x64xf32>
    %70 = stablehlo.broadcast_in_dim %arg10, dims = [2] : (tensor<64xf32>) -> tensor<1x1x64xf32>
    %71 = stablehlo.broadcast_in_dim %70, dims = [0, 1, 2] : (tensor<1x1x64xf32>) -> tensor<2x16x64xf32>
    %72 = stablehlo.add %69, %71 : tensor<2x16x64xf32>
    %73 = stablehlo.add %51, %72 : tensor<2x16x64xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %74 = stablehlo.reduce(%73 init: %cst_12) applies stablehlo.add across dimensions = [2] : (tensor<2x16x64xf32>, tensor<f32>) -> tensor<2x16xf32>
    %75 = stablehlo.broadcast_in_dim %74, dims = [0, 1] : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
    %cst_13 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<2x16x1xf32>
    %77 = stablehlo.divide %75, %76 : tensor<2x16x1xf32>
    %78 = stablehlo.broadcast_in_dim %77, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x64xf32>
    %79 = stablehlo.subtract %73, %78 : tensor<2x16x64xf32>
    %80 = chlo.square %79 : tensor<2x16x64xf32> -> tensor<2x16x64xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %81 = stablehlo.reduce(%80 init: %cst_14) applies stablehlo.add across dimensions = [2] : (tensor<2x16x64xf32>, tensor<f32>) -> tensor<2x16xf32>
    %82 = stablehlo.broadcast_in_dim %81, dims = [0, 1] : (tensor<2x16xf32>) -> tensor<2x16x1xf32>
    %cst_15 = stablehlo.constant dense<6.400000e+01> : tensor<f32>
    %83 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<2x16x1xf32>
    %84 = stablehlo.divide %82, %83 : tensor<2x16x1xf32>
    %85 = stablehlo.broadcast_in_dim %77, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x64xf32>
    %86 = stablehlo.subtract %73, %85 : tensor<2x16x64xf32>
    %cst_16 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %87 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<2x16x1xf32>
    %88 = stablehlo.add %84, %87 : tensor<2x16x1xf32>
    %89 = stablehlo.rsqrt %88 : tensor<2x16x1xf32>
    %90 = stablehlo.broadcast_in_dim %89, dims = [0, 1, 2] : (tensor<2x16x1xf32>) -> tensor<2x16x64xf32>
    %91 = stablehlo.multiply %86, %90 : tensor<2x16x64xf32>
    %92 = stablehlo.broadcast_in_dim %arg11, dims = [2] : (tensor<64xf32>) -> tensor<1x1x64xf32>
    %93 = stablehlo.broadcast_in_dim %92, dims = [0, 1, 2] : (tensor<1x1x64xf32>) -> tensor<2x16x64xf32>
    %94 = stablehlo.multiply %91, %93 : tensor<2x16x64xf32>
    %95 = stablehlo.broadcast_in_dim %arg12, dims = [2] : (tensor<64xf32>) -> tensor<1x1x64xf32>
    %96 = stablehlo.broadcast_in_dim %95, dims = [0, 1, 2] : (tensor<1x1x64xf32>) -> tensor<2x16x64xf32>
    %97 = stablehlo.add %94, %96 : tensor<2x16x64xf32>
    return %97 : tensor<2x16x64xf32>
  }
}
