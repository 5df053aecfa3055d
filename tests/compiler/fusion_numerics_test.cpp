// Fused and unfused graphs must agree numerically: the golden fusion inputs of
// tests/filecheck (GELU, LayerNorm, RMSNorm, softmax + attention) and a small
// Llama-shaped decoder run on the simulated chip at -O0 (nothing fused) and
// -O1 (fused), each compared with the other and with the CPU reference.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "bench/llama_shaped_graph.h"
#include "comparators/metrics.h"
#include "compiler/compile.h"
#include "core/ir_text.h"
#include "core/rng.h"
#include "runtime/device/simulated_chip.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest::compiler {
namespace {

Graph golden_input(const std::string& file) {
  std::ifstream in(std::string(MESHTEST_SOURCE_DIR) + "/tests/filecheck/" + file);
  std::stringstream text;
  text << in.rdbuf();
  return parse_graph(text.str(), file);
}

std::map<std::string, Tensor> random_inputs(const Graph& graph) {
  std::map<std::string, Tensor> feed;
  uint64_t seed = 42;
  for (const Param* p : graph.inputs()) {
    const TensorType& t = graph.type(p->value);
    if (is_floating(t.dtype)) {
      feed[p->name] = random_normal(t.shape, ++seed);
    } else {
      std::vector<int64_t> ids(static_cast<size_t>(shape_numel(t.shape)));
      for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int64_t>((i * 7919) % 500);
      feed[p->name] = Tensor::from_i64(t.shape, ids).to(t.dtype);
    }
  }
  return feed;
}

struct DeviceRun {
  std::vector<Tensor> outputs;
  std::map<std::string, int64_t> stats;
  size_t instructions = 0;
};

DeviceRun run_at_level(const Graph& graph, const std::map<std::string, Tensor>& feed, int level) {
  CompileOptions options;
  options.optimization_level = level;
  CompileResult result = compile_program(graph, options);
  load_weights(graph, result.program);
  runtime::SimulatedChip chip{runtime::ChipSpec{}};
  return {chip.execute(result.program, feed), result.stats, result.program.instrs.size()};
}

double pcc(const Tensor& a, const Tensor& b) { return comparators::compare_tensors("out", a, b, {}).pcc; }

void expect_fused_agrees(const Graph& graph, double min_pcc) {
  const auto feed = random_inputs(graph);
  const DeviceRun unfused = run_at_level(graph, feed, 0);
  const DeviceRun fused = run_at_level(graph, feed, 1);
  const std::vector<Tensor> golden = runtime::run_reference(graph, feed);
  EXPECT_GT(fused.stats.at("fuse.ops_fused"), 0);
  EXPECT_LT(fused.instructions, unfused.instructions);
  for (size_t i = 0; i < golden.size(); ++i) {
    const double fused_vs_unfused = pcc(fused.outputs[i], unfused.outputs[i]);
    const double fused_vs_golden = pcc(fused.outputs[i], golden[i]);
    const double unfused_vs_golden = pcc(unfused.outputs[i], golden[i]);
    EXPECT_GT(fused_vs_unfused, min_pcc);
    EXPECT_GT(fused_vs_golden, min_pcc);
    EXPECT_GT(unfused_vs_golden, min_pcc);
    std::printf("[%s] pcc fused/unfused %.7f, fused/golden %.7f, unfused/golden %.7f\n", graph.name.c_str(),
                fused_vs_unfused, fused_vs_golden, unfused_vs_golden);
  }
}

TEST(FusionNumerics, Gelu) { expect_fused_agrees(golden_input("fuse_gelu.mtir"), 0.999); }
TEST(FusionNumerics, LayerNormAndRmsNorm) { expect_fused_agrees(golden_input("fuse_norms.mtir"), 0.999); }
TEST(FusionNumerics, SoftmaxAndAttention) { expect_fused_agrees(golden_input("fuse_attention.mtir"), 0.999); }

TEST(FusionNumerics, SmallLlamaDecoder) {
  bench::LlamaShape shape{2, 128, 4, 2, 256, 512, 32};
  const Graph graph = bench::llama_shaped_graph(shape);
  expect_fused_agrees(graph, 0.99);
  CompileOptions o1;
  o1.optimization_level = 1;
  const CompileResult fused = compile_program(graph, o1);
  // Per layer two RMSNorms and one attention; plus the final norm.
  EXPECT_EQ(fused.stats.at("fuse.rms_norm"), 5);
  EXPECT_EQ(fused.stats.at("fuse.sdpa"), 2);
}

}  // namespace
}  // namespace meshtest::compiler
