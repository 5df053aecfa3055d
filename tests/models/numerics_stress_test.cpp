// The numerics stress block (models/numerics/native) through the binary:
// the shipped entry passes on an honest device, and each compiler-pass or
// kernel bug that only its stressing inputs expose fails it, on the output
// (or the per-op check) that input feeds. The block is what lets the PR
// selection catch these (docs/reference/mutation-catalogue.md).
#include <gtest/gtest.h>

#include <string>

#include "tests/common/cli_fixture.h"

namespace {

const std::string kCase = "numerics/native-norm_softmax_block-single_device-inference";

meshtest::testing::CommandResult run_block(const std::string& mutant = "") {
  return meshtest::testing::run_meshtest("run --isolation none --db '' " + kCase,
                                         mutant.empty() ? "" : "MESHTEST_MUTANT=" + mutant);
}

TEST(NumericsStress, PassesOnAnHonestDevice) {
  const auto r = run_block();
  EXPECT_EQ(r.status, 0) << r.output;
  EXPECT_NE(r.output.find("PASSED"), std::string::npos) << r.output;
}

struct Exposed {
  std::string mutant;
  std::string evidence;  // what the failure names
};

class NumericsStressExposes : public ::testing::TestWithParam<Exposed> {};

TEST_P(NumericsStressExposes, TheBugItsInputsStress) {
  const Exposed& e = GetParam();
  const auto r = run_block(e.mutant);
  EXPECT_EQ(r.status, 1) << r.output;
  EXPECT_NE(r.output.find(e.evidence), std::string::npos) << r.output;
}

INSTANTIATE_TEST_SUITE_P(
    Mutants, NumericsStressExposes,
    ::testing::Values(Exposed{"batch_norm_eps_1e_3", "output 'batch_norm'"},      // small-variance channels
                      Exposed{"fuse_rms_norm_eps_dropped", "output 'rms_norm'"},  // near-zero rows
                      Exposed{"softmax_no_max_subtraction", "output 'softmax'"},  // logits past 88
                      Exposed{"layer_norm_one_pass_variance", "(layer_norm)"},    // large-offset rows
                      Exposed{"fuse_layer_norm_gamma_beta_swapped", "output 'layer_norm_primitives'"},
                      Exposed{"const_eval_transpose_perm_inverted", "output 'conv2d'"},  // a folded 3-cycle
                      Exposed{"fuse_gelu_tanh_marked_exact", "output 'gelu'"}),          // GELU's tail
    [](const ::testing::TestParamInfo<Exposed>& info) { return info.param.mutant; });

}  // namespace
