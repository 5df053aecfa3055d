func.func @main(%a: tensor<4x8xf32>, %b: tensor<8xi32>, %c: tensor<f32>, %d: tensor<i32>) -> tensor<4xf32> {
  %0 = stablehlo.reduce(%a init: %c) applies stablehlo.add across dimensions = [1] : (tensor<4x8xf32>, tensor<f32>) -> tensor<4xf32>
  %1:2 = stablehlo.reduce(%a init: %c), (%b init: %d) across dimensions = [0] : (tensor<4x8xf32>, tensor<8xi32>, tensor<f32>, tensor<i32>) -> (tensor<8xf32>, tensor<i32>)
   reducer(%e: tensor<f32>, %g: tensor<f32>) (%f: tensor<i32>, %h: tensor<i32>)  {
    %m = stablehlo.maximum %e, %g : tensor<f32>
    %n = stablehlo.minimum %f, %h : tensor<i32>
    stablehlo.return %m, %n : tensor<f32>, tensor<i32>
  }
  %2 = stablehlo.while(%i = %d) : tensor<i32>
   cond {
    %lt = stablehlo.compare  LT, %i, %d,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %lt : tensor<i1>
  } do {
    %n = stablehlo.add %i, %d : tensor<i32>
    stablehlo.return %n : tensor<i32>
  }
  %3 = "stablehlo.sort"(%b) <{dimension = 0 : i64, is_stable = true}> ({
  ^bb0(%x: tensor<i32>, %y: tensor<i32>):
    %z = stablehlo.compare  LT, %x, %y,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    stablehlo.return %z : tensor<i1>
  }) : (tensor<8xi32>) -> tensor<8xi32>
  return %0 : tensor<4xf32>
}
