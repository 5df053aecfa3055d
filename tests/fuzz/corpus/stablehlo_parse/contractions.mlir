func.func @main(%x: tensor<1x8x8x2xf32>, %w: tensor<3x3x2x4xf32>, %l: tensor<2x3x4xbf16>, %r: tensor<2x4x5xbf16>, %i: tensor<1x1xi32>) -> tensor<1x4x4x4xf32> {
  %0 = stablehlo.convolution(%x, %w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[1, 1], [0, 1]], rhs_dilate = [1, 1]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64} : (tensor<1x8x8x2xf32>, tensor<3x3x2x4xf32>) -> tensor<1x4x4x4xf32>
  %1 = stablehlo.dot_general %l, %r, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xbf16>, tensor<2x4x5xbf16>) -> tensor<2x3x5xbf16>
  %2 = "stablehlo.gather"(%x, %i) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, 8, 8, 2>}> : (tensor<1x8x8x2xf32>, tensor<1x1xi32>) -> tensor<1x8x8x2xf32>
  return %0 : tensor<1x4x4x4xf32>
}
