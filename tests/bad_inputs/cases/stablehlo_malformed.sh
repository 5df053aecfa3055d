# A StableHLO program (named by loader.yaml) cut short mid-op.
mkdir -p root/m/jax && printf 'variants:\n  v:\n    stablehlo: broken.mlir\n' > root/m/jax/loader.yaml
printf 'func.func @main(%%a: tensor<4xf32>) -> tensor<4xf32> {\n  %%0 = stablehlo.add %%a, :\n' > root/m/jax/broken.mlir
$MESHTEST run --models-root root --db r.db m/jax-v-single_device-inference
