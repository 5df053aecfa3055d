// RUN: stablehlo-translate --interpret -split-input-file %s
module {
  sdy.mesh @mesh = <["x"=2]>
  func.func @main() -> (tensor<2xcomplex<f32>>, !stablehlo.token) {
    %0:2 = call @inputs() : () -> (tensor<2xcomplex<f32>>, tensor<2xui8>)
    %t = stablehlo.create_token : !stablehlo.token
    stablehlo.custom_call @check.expect_eq(%0#1, %0#1) {has_side_effect = true} : (tensor<2xui8>, tensor<2xui8>) -> ()
    return %0#0, %t : tensor<2xcomplex<f32>>, !stablehlo.token
  }
  func.func private @inputs() -> (tensor<2xcomplex<f32>> {mhlo.layout_mode = "default"}, tensor<2xui8>) {
    %c = stablehlo.constant dense<[(1.0,2.0), (3.0,-4.0)]> : tensor<2xcomplex<f32>>
    %u = stablehlo.constant dense<"0x0102"> : tensor<2xui8>
    return %c, %u : tensor<2xcomplex<f32>>, tensor<2xui8>
  }
}

// -----

#sharding = #sdy.sharding<@mesh, [{"x"}, {}]>
func.func @quant(%a: tensor<4x!quant.uniform<i8:f32, 0.5:-1>> {sdy.sharding = #sharding}) -> tensor<4xf32> {
  %0 = stablehlo.uniform_dequantize %a : (tensor<4x!quant.uniform<i8:f32, 0.5:-1>>) -> tensor<4xf32>
  %1 = stablehlo.composite "tenstorrent.gelu" %0 {composite_attributes = {approximate = "tanh"}, decomposition = @quant} : (tensor<4xf32>) -> tensor<4xf32>
  return %1 : tensor<4xf32>
}
