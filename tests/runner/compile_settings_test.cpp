// Compile settings per case: the CLI wins over the case's YAML entry, which
// wins over the defaults (optimization level, bfp8 weights, math fidelity,
// whose name is made canonical whatever its case).
#include <gtest/gtest.h>

#include "runner/pipeline/compile_phase.h"

namespace meshtest::runner {
namespace {

TEST(CompileSettings, DefaultsWithoutCliOrYaml) {
  const backend::DeviceSettings o = resolve_device_settings({}, {});
  EXPECT_EQ(o.optimization_level, 0);
  EXPECT_EQ(o.weight_dtype, DType::BF16);
  EXPECT_EQ(o.math_fidelity, "HiFi4");
}

TEST(CompileSettings, YamlAppliesAndTheCliWins) {
  config::TestEntry entry;
  entry.optimization_level = 2;
  entry.enable_weight_bfp8_conversion = true;
  entry.math_fidelity = "LoFi";
  backend::DeviceSettings o = resolve_device_settings({}, entry);
  EXPECT_EQ(o.optimization_level, 2);
  EXPECT_EQ(o.weight_dtype, DType::BFP8_B);
  EXPECT_EQ(o.math_fidelity, "LoFi");

  CompileSettings cli;
  cli.optimization_level = 1;
  cli.weight_bfp8 = false;
  cli.math_fidelity = "hifi2";
  o = resolve_device_settings(cli, entry);
  EXPECT_EQ(o.optimization_level, 1);
  EXPECT_EQ(o.weight_dtype, DType::BF16);
  EXPECT_EQ(o.math_fidelity, "HiFi2");
}

TEST(CompileSettings, HiFi3FromYamlOrCli) {
  config::TestEntry entry;
  entry.math_fidelity = "HiFi3";
  EXPECT_EQ(resolve_device_settings({}, entry).math_fidelity, "HiFi3");
  CompileSettings cli;
  cli.math_fidelity = "hifi3";
  EXPECT_EQ(resolve_device_settings(cli, {}).math_fidelity, "HiFi3");
  cli.math_fidelity = "HiFi5";
  EXPECT_THROW(resolve_device_settings(cli, {}), ParseError);
}

}  // namespace
}  // namespace meshtest::runner
