func.func @main(%a: tensor<f32>) -> tensor<f32> {
  %0 = "stablehlo.reduce"(%a, %a) ({
  ^bb0(%x: tensor<f32>:
