// `meshtest export ID --format stablehlo --out DIR` and the StableHLO stage of
// `run --serialize`, through the binary: the case's graph as
// DIR/<case folder>.mlir with its weights in DIR/<case folder>.safetensors
// (in @main's argument order after the inputs), inline weights, a training
// case's joint graph, a tensor-parallel case's shard specs as mhlo.sharding,
// and the errors (several cases, another format).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/safetensors.h"
#include "tests/common/cli_fixture.h"

namespace {

namespace fs = std::filesystem;
using meshtest::testing::CommandResult;
using meshtest::testing::run_meshtest;

const std::string kMlp = "mnist/image_classification/native-mlp-single_device-inference";
const std::string kMlpFolder = "mnist_image_classification_native-mlp-single_device-inference";

std::string read(const fs::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

bool contains(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

class ExportCli : public ::testing::Test {
 protected:
  meshtest::testing::TestDir dir{"meshtest_export_"};
};

TEST_F(ExportCli, WritesTheModuleAndItsWeights) {
  const CommandResult r = run_meshtest("export " + kMlp + " --format stablehlo --out " + (dir / "out").string());
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string text = read(dir / "out" / (kMlpFolder + ".mlir"));
  EXPECT_TRUE(contains(text,
                       "func.func public @main(%arg0: tensor<1x1x28x28xf32> {meshtest.name = \"image\"}, "
                       "%arg1: tensor<512x784xf32> {meshtest.name = \"fc1.weight\"}"))
      << text;
  EXPECT_TRUE(contains(text, "{jax.result_info = \"logits\"}")) << text;
  const auto weights = meshtest::read_safetensors((dir / "out" / (kMlpFolder + ".safetensors")).string());
  EXPECT_EQ(weights.size(), 6u);
  EXPECT_EQ(weights.at("fc1.weight").shape(), (meshtest::Shape{512, 784}));
}

TEST_F(ExportCli, InlineWeightsLeaveNoWeightsFile) {
  const CommandResult r =
      run_meshtest("export " + kMlp + " --format stablehlo --inline-weights --out " + (dir / "out").string());
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string text = read(dir / "out" / (kMlpFolder + ".mlir"));
  EXPECT_TRUE(contains(text, "stablehlo.constant dense<\"0x")) << text.substr(0, 2000);
  EXPECT_FALSE(fs::exists(dir / "out" / (kMlpFolder + ".safetensors")));
}

TEST_F(ExportCli, TrainingWritesTheJointGraph) {
  const std::string id = "mnist/image_classification/native-mlp-single_device-training";
  const CommandResult r = run_meshtest("export " + id + " --format stablehlo --out " + (dir / "out").string());
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string text = read(dir / "out" / "mnist_image_classification_native-mlp-single_device-training.mlir");
  EXPECT_TRUE(contains(text, "jax.result_info = \"grad/fc1.weight\"")) << text.substr(0, 3000);
}

TEST_F(ExportCli, TensorParallelArgumentsCarryTheirShardings) {
  const std::string id = "llama/causal_lm/native-llama_tiny-tensor_parallel-prefill-seq32-batch1";
  const CommandResult r =
      run_meshtest("export " + id + " --arch n300 --format stablehlo --out " + (dir / "out").string());
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string text =
      read(dir / "out" / "llama_causal_lm_native-llama_tiny-tensor_parallel-prefill-seq32-batch1.mlir");
  EXPECT_TRUE(contains(text, "mhlo.num_partitions = 2 : i32")) << text.substr(0, 1000);
  EXPECT_TRUE(contains(text, "mhlo.sharding = \"{devices=[2,1]<=[2]}\"")) << text.substr(0, 3000);
}

TEST_F(ExportCli, SerializeWritesAStablehloStage) {
  const CommandResult r = run_meshtest("run " + kMlp + " --db '' --serialize " + (dir / "dumps").string());
  ASSERT_EQ(r.status, 0) << r.output;
  const std::string text = read(dir / "dumps" / kMlpFolder / "frontend.stablehlo.mlir");
  EXPECT_TRUE(contains(text, "module @jit_")) << text;
  EXPECT_TRUE(fs::exists(dir / "dumps" / kMlpFolder / "00-frontend.mtir"));
}

TEST_F(ExportCli, RejectsSeveralCasesAndOtherFormats) {
  CommandResult r = run_meshtest("export -k mnist --format stablehlo --out " + (dir / "out").string());
  EXPECT_EQ(r.status, 2) << r.output;
  EXPECT_TRUE(contains(r.output, "writes one case")) << r.output;
  r = run_meshtest("export " + kMlp + " --format onnx --out " + (dir / "out").string());
  EXPECT_EQ(r.status, 2) << r.output;
}

}  // namespace
