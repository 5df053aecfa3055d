// The roofline cost model moves the right way: fewer fidelity phases and
// bfp8 weights are faster where they should be (a compute-bound GEMM, a
// weight-bandwidth-bound decode GEMM), and a tensor-parallel MLP gets faster
// with more chips until its all_reduce over the links dominates.
#include <gtest/gtest.h>

#include "compiler/compile.h"
#include "compiler/sharding.h"
#include "core/graph_builder.h"
#include "runtime/arch/arch_profile.h"
#include "runtime/device/cost_model.h"

namespace meshtest::runtime {
namespace {

using compiler::MathFidelity;

// y = linear(x[m, k], w[n, k]).
Graph gemm(int64_t m, int64_t k, int64_t n) {
  GraphBuilder b("gemm");
  const ValueId x = b.input("x", DType::F32, {m, k});
  b.output("y", b.linear(x, b.weight("w", {n, k}, Initializer::normal(0, 0.02, 1))));
  return b.finish();
}

ProgramCost cost_of(const Graph& graph, DType weights, MathFidelity fidelity, const ChipSpec& chip,
                    std::shared_ptr<const ShardingRequest> sharding = nullptr) {
  compiler::CompileOptions options;
  options.weight_dtype = weights;
  options.math_fidelity = fidelity;
  options.sharding = std::move(sharding);
  return model_program_cost(compiler::compile_program(graph, options).program, chip);
}

InstrCost costliest(const ProgramCost& cost) { return cost.top(1).at(0); }

TEST(CostModel, FewerFidelityPhasesSpeedUpAComputeBoundGemm) {
  const ChipSpec chip = arch_profile("n150").chip;
  const Graph g = gemm(2048, 2048, 2048);
  const ProgramCost hifi4 = cost_of(g, DType::BF16, MathFidelity::HiFi4, chip);
  const ProgramCost hifi2 = cost_of(g, DType::BF16, MathFidelity::HiFi2, chip);
  const ProgramCost lofi = cost_of(g, DType::BFP8_B, MathFidelity::LoFi, chip);
  EXPECT_EQ(costliest(hifi4).op, "linear");
  EXPECT_EQ(costliest(hifi4).bound, Bound::Matrix);
  EXPECT_DOUBLE_EQ(costliest(hifi4).flops, 2.0 * 2048 * 2048 * 2048);
  // 17.2 GFLOP at 74 TFLOPS (bf16 HiFi4) is 232 us.
  EXPECT_NEAR(costliest(hifi4).seconds, 2.0 * 2048 * 2048 * 2048 / 74e12 + 2e-6, 1e-9);
  EXPECT_LT(hifi2.seconds, hifi4.seconds);
  EXPECT_LT(lofi.seconds, hifi2.seconds);
}

TEST(CostModel, Bfp8WeightsSpeedUpAWeightBandwidthBoundDecodeGemm) {
  const ChipSpec chip = arch_profile("n150").chip;
  const Graph g = gemm(1, 4096, 4096);  // one token: every weight byte read once
  const ProgramCost bf16 = cost_of(g, DType::BF16, MathFidelity::HiFi4, chip);
  const ProgramCost bfp8 = cost_of(g, DType::BFP8_B, MathFidelity::HiFi4, chip);
  EXPECT_EQ(costliest(bf16).bound, Bound::Dram);
  EXPECT_LT(bfp8.seconds, 0.6 * bf16.seconds);  // 1088 vs 2048 bytes per 32x32 tile
}

// An MLP block, Megatron-split over `chips` chips: w1 by columns, w2 by rows,
// one all_reduce at the end.
ProgramCost mlp_cost(int64_t tokens, int64_t hidden, int64_t chips) {
  GraphBuilder b("mlp");
  const ValueId x = b.input("x", DType::F32, {tokens, hidden});
  const ValueId h = b.relu(b.linear(x, b.weight("w1", {4 * hidden, hidden}, Initializer::normal(0, 0.02, 1))));
  b.output("y", b.linear(h, b.weight("w2", {hidden, 4 * hidden}, Initializer::normal(0, 0.02, 2))));
  auto request = std::make_shared<ShardingRequest>();
  request->mesh = {{1, chips}, {"batch", "model"}};
  request->specs["w1"] = {{"model"}, {}};
  request->specs["w2"] = {{}, {"model"}};
  return cost_of(b.finish(), DType::BF16, MathFidelity::HiFi4, arch_profile("galaxy-wh-6u").chip,
                 chips > 1 ? std::shared_ptr<const ShardingRequest>(request) : nullptr);
}

TEST(CostModel, MoreChipsSpeedUpATensorParallelLayerUntilLinksDominate) {
  // A prefill-sized MLP: compute shrinks with the chips, the all_reduce stays small.
  EXPECT_LT(mlp_cost(2048, 2048, 2).seconds, mlp_cost(2048, 2048, 1).seconds);
  EXPECT_LT(mlp_cost(2048, 2048, 8).seconds, mlp_cost(2048, 2048, 2).seconds);
  // A small decode-sized MLP: past a few chips the ring's hops cost more than
  // the compute they save, and the all_reduce is the costliest op.
  EXPECT_LT(mlp_cost(32, 1024, 4).seconds, mlp_cost(32, 1024, 1).seconds);
  const ProgramCost wide = mlp_cost(32, 1024, 32);
  EXPECT_GT(wide.seconds, mlp_cost(32, 1024, 8).seconds);
  EXPECT_EQ(costliest(wide).op, "all_reduce");
  EXPECT_EQ(costliest(wide).bound, Bound::Links);
}

TEST(CostModel, TopOpsNameTheirShareAndBound) {
  const ProgramCost cost = cost_of(gemm(2048, 2048, 2048), DType::BF16, MathFidelity::HiFi4, arch_profile("n150").chip);
  EXPECT_EQ(cost.top_ops_text(1).rfind("linear ", 0), 0u) << cost.top_ops_text(3);
  EXPECT_NE(cost.top_ops_text(1).find("% matrix"), std::string::npos) << cost.top_ops_text(3);
}

}  // namespace
}  // namespace meshtest::runtime
