// loader.yaml naming a StableHLO program (`stablehlo: f.mlir` where an ONNX
// variant has `onnx:`): variants, inputs by argument position or label,
// shapes from the program, info, mesh and shard specs, and the errors (a
// missing file at its loader.yaml line, the program's own file:line:col).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>

#include "discovery/discovery.h"
#include "frontends/frontend_registry.h"
#include "frontends/onnx/onnx_loader.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest {
namespace {

namespace fs = std::filesystem;
using frontends::onnx_import::load_onnx_loader;
using testing::HasSubstr;

std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return e.what();
  }
  return "(no error)";
}

// y = x * broadcast(w), the arguments labelled x and w as JAX labels them.
constexpr const char* kProgram = R"(module @jit_scale {
  func.func public @main(%arg0: tensor<2x4xf32> {jax.arg_info = "x"}, %arg1: tensor<4xf32> {jax.arg_info = "w"}) -> (tensor<2x4xf32> {jax.result_info = ""}) {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<4xf32>) -> tensor<2x4xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<2x4xf32>
    return %1 : tensor<2x4xf32>
  }
}
)";

constexpr const char* kLoader = R"(info: {model: scale, task: unit_test}
variants:
  by_label:
    stablehlo: scale.mlir
    inputs:
      x: {distribution: uniform, low: -1, high: 1, seed: 3}
      w: {shape: [4], distribution: constant, value: 2}
    mesh: {shape: [1, 2], axis_names: [batch, model]}
    shard_spec: {w: [model]}
  by_position:
    stablehlo: scale.mlir
    inputs:
      arg1: {distribution: constant, value: 3}
)";

class StablehloLoaderYaml : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("meshtest-shlo-yaml-" + std::string(testing::UnitTest::GetInstance()->current_test_info()->name()));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const fs::path& relative, const std::string& text) const {
    fs::create_directories((dir_ / relative).parent_path());
    std::ofstream(dir_ / relative) << text;
  }
  std::string path(const std::string& relative) const { return (dir_ / relative).string(); }
  fs::path dir_;
};

std::vector<std::string> input_names(const Graph& g) {
  std::vector<std::string> out;
  for (const Param* p : g.inputs()) out.push_back(p->name);
  return out;
}

TEST_F(StablehloLoaderYaml, VariantsNameInputsByLabelOrPosition) {
  write("m/onnx/scale.mlir", kProgram);
  write("m/onnx/loader.yaml", kLoader);
  const auto loader = load_onnx_loader(path("m/onnx/loader.yaml"));
  EXPECT_EQ(loader->variants(), (std::vector<std::string>{"by_label", "by_position"}));
  EXPECT_EQ(loader->info("by_label").model, "scale");
  EXPECT_EQ(loader->info("by_label").task, "unit_test");
  EXPECT_EQ(loader->info("by_label").framework, "stablehlo");
  EXPECT_EQ(loader->info("by_label").source, "stablehlo");

  // By label: the arguments are renamed x and w; x's shape comes from the program.
  const sdk::Model labelled = loader->load_model("by_label", {});
  EXPECT_EQ(input_names(labelled.graph), (std::vector<std::string>{"x", "w"}));
  const sdk::Inputs in = loader->load_inputs("by_label", {});
  ASSERT_EQ(in.at("x").shape(), (Shape{2, 4}));
  for (float v : in.at("x").to_f32_vector()) EXPECT_TRUE(v >= -1 && v <= 1);
  EXPECT_EQ(in.at("w").to_f32_vector(), (std::vector<float>{2, 2, 2, 2}));
  const std::vector<float> y = runtime::run_reference(labelled.graph, in).at(0).to_f32_vector();
  const std::vector<float> x = in.at("x").to_f32_vector();
  for (size_t i = 0; i < y.size(); ++i) EXPECT_FLOAT_EQ(y[i], 2 * x[i]);
  EXPECT_EQ(loader->shard_spec("by_label", labelled)->at("w"), (sdk::PartitionSpec{{"model"}}));
  EXPECT_EQ(loader->mesh_config("by_label", 2)->axis_names, (std::vector<std::string>{"batch", "model"}));

  // By position: arg0 and arg1; arg0, not listed, is random by the program's type.
  const sdk::Model positional = loader->load_model("by_position", {});
  EXPECT_EQ(input_names(positional.graph), (std::vector<std::string>{"arg0", "arg1"}));
  const sdk::Inputs pin = loader->load_inputs("by_position", {});
  EXPECT_EQ(pin.at("arg0").shape(), (Shape{2, 4}));
  EXPECT_EQ(pin.at("arg1").to_f32_vector(), (std::vector<float>{3, 3, 3, 3}));
  EXPECT_FALSE(loader->shard_spec("by_position", positional).has_value());
}

TEST_F(StablehloLoaderYaml, TheProgramsOwnShardingIsTheDefault) {
  write("m/onnx/sharded.mlir", R"(module @jit_sharded attributes {mhlo.num_partitions = 2 : i32} {
  func.func public @main(%arg0: tensor<4x8xf32> {mhlo.sharding = "{devices=[1,2]<=[2]}", jax.arg_info = "x"}) -> tensor<4x8xf32> {
    %0 = stablehlo.add %arg0, %arg0 : tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}
)");
  write("m/onnx/loader.yaml", "stablehlo: sharded.mlir\ninputs:\n  x: {}\n");
  const auto loader = load_onnx_loader(path("m/onnx/loader.yaml"));
  const sdk::Model model = loader->load_model("", {});
  const std::optional<sdk::ShardSpec> spec = loader->shard_spec("", model);
  ASSERT_TRUE(spec.has_value());
  EXPECT_EQ(spec->count("x"), 1u) << "the program's mhlo.sharding, by the loader.yaml name";
}

TEST_F(StablehloLoaderYaml, ErrorsSayWhere) {
  write("m/onnx/scale.mlir", kProgram);
  // A missing program: at its loader.yaml line, when the YAML is read.
  write("m/onnx/loader.yaml", "variants:\n  v:\n    stablehlo: missing.mlir\n");
  EXPECT_THAT(error_of([&] { load_onnx_loader(path("m/onnx/loader.yaml")); }),
              HasSubstr("m/onnx/loader.yaml:3:16: stablehlo file 'missing.mlir' does not exist"));
  write("m/onnx/loader.yaml", "stablehlo: scale.mlir\nonnx: m.onnx\n");
  EXPECT_THAT(error_of([&] { load_onnx_loader(path("m/onnx/loader.yaml")); }),
              HasSubstr("m/onnx/loader.yaml:1:12: variant '' names both onnx: and stablehlo:"));
  write("m/onnx/loader.yaml", "stablehlo: scale.mlir\ndims: {N: 2}\n");
  EXPECT_THAT(error_of([&] { load_onnx_loader(path("m/onnx/loader.yaml")); }),
              HasSubstr("m/onnx/loader.yaml:2:7: dims: pins an ONNX model's dimensions"));
  write("m/onnx/loader.yaml", "info: {model: m}\n");
  EXPECT_THAT(error_of([&] { load_onnx_loader(path("m/onnx/loader.yaml")); }),
              HasSubstr("needs onnx: or stablehlo: (the model file, relative to loader.yaml)"));

  // Inputs that name no argument, or disagree with the program.
  write("m/onnx/loader.yaml", "stablehlo: scale.mlir\ninputs:\n  z: {shape: [1]}\n");
  EXPECT_THAT(error_of([&] { load_onnx_loader(path("m/onnx/loader.yaml"))->load_model("", {}); }),
              HasSubstr("scale.mlir: loader.yaml input 'z' is neither an argument of the program (arg0, arg1, ...) "
                        "nor an argument's label (inputs: arg0, arg1)"));
  write("m/onnx/loader.yaml", "stablehlo: scale.mlir\ninputs:\n  x: {shape: [2, 5]}\n");
  EXPECT_THAT(error_of([&] { load_onnx_loader(path("m/onnx/loader.yaml"))->load_model("", {}); }),
              HasSubstr("scale.mlir: input 'x' is f32[2,4] in the program, loader.yaml gives f32[2,5]"));

  // The program's own errors keep its file:line:col.
  write("m/onnx/fft.mlir", R"(func.func @main(%a: tensor<8xf32>) -> tensor<8xf32> {
  %0 = stablehlo.fft %a, type = FFT, length = [8] : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
)");
  write("m/onnx/loader.yaml", "stablehlo: fft.mlir\n");
  EXPECT_THAT(error_of([&] { load_onnx_loader(path("m/onnx/loader.yaml"))->load_model("", {}); }),
              HasSubstr("fft.mlir:2:3: unsupported stablehlo.fft: no mapping onto meshtest ops"));
  write("m/onnx/broken.mlir", "func.func @main(%a: tensor<4xf32>) -> tensor<4xf32> {\n  %0 = stablehlo.add %a, :\n");
  write("m/onnx/loader.yaml", "stablehlo: broken.mlir\n");
  EXPECT_THAT(error_of([&] { load_onnx_loader(path("m/onnx/loader.yaml"))->load_model("", {}); }),
              HasSubstr("broken.mlir:2:"));
}

// Discovery lists a loader.yaml over a StableHLO program as the ONNX one: a
// missing program is a loader error of its folder.
TEST_F(StablehloLoaderYaml, DiscoveryReportsAMissingProgramAsALoaderError) {
  write("good/onnx/scale.mlir", kProgram);
  write("good/onnx/loader.yaml", kLoader);
  write("bad/onnx/loader.yaml", "stablehlo: gone.mlir\n");
  const discovery::Discovery d = discovery::discover({dir_.string()}, frontends::builtin_frontends());
  ASSERT_EQ(d.failures.size(), 1u);
  EXPECT_THAT(d.failures[0].error, HasSubstr("bad/onnx/loader.yaml:1:12: stablehlo file 'gone.mlir' does not exist"));
}

}  // namespace
}  // namespace meshtest
