# A StableHLO program (named by loader.yaml) with an op the importer does not take.
mkdir -p root/m/jax && printf 'variants:\n  v:\n    stablehlo: fft.mlir\n' > root/m/jax/loader.yaml
cat > root/m/jax/fft.mlir <<'MLIR'
func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.fft %a, type = FFT, length = [8] : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
MLIR
$MESHTEST run --models-root root --db r.db m/jax-v-single_device-inference
