# A loader.yaml whose variant names a StableHLO program that is not there.
mkdir -p root/m/jax && printf 'variants:\n  v:\n    stablehlo: missing.mlir\n' > root/m/jax/loader.yaml
$MESHTEST collect --models-root root
