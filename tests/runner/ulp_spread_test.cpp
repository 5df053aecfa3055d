// The normalizations' ulp-spread bounds (op_golden.h ulp_spread_failure):
// rounding once is unbiased and averages a quarter ulp, so the PR selection's
// honest worst figures pass and its approximation mutants' figures fail; the
// bias bound narrows with the element count (standard errors), and small
// results are not judged.
#include <gtest/gtest.h>

#include <string>

#include "runner/pipeline/op_golden.h"

namespace meshtest::runner {
namespace {

TEST(UlpSpread, HonestWorstFiguresPass) {
  EXPECT_EQ(ulp_spread_failure(0.2537, 0.0157, 1024), "");   // a softmax of mixtral_tiny
  EXPECT_EQ(ulp_spread_failure(0.2511, -0.0035, 32768), "");  // a layer_norm of gpt2_tiny
  EXPECT_EQ(ulp_spread_failure(0.25, 0.0, 2'000'000), "");
}

TEST(UlpSpread, ApproximationMutantsFail) {
  // rms_norm's fast rsqrt in llama_tiny: biased low.
  const std::string low = ulp_spread_failure(0.3109, -0.233, 16381);
  EXPECT_NE(low.find("lean low"), std::string::npos) << low;
  // softmax's approximate exp: noisy, barely biased.
  const std::string noisy = ulp_spread_failure(0.3913, -0.0273, 47766);
  EXPECT_NE(noisy.find("lean low"), std::string::npos) << noisy;  // 20 standard errors
  const std::string noisy_unbiased = ulp_spread_failure(0.3913, 0.0, 47766);
  EXPECT_NE(noisy_unbiased.find("average 0.391 ulp"), std::string::npos) << noisy_unbiased;
}

TEST(UlpSpread, TheBiasBoundNarrowsWithTheElementCount) {
  // 0.05 ulp is 3.1 standard errors of 1,024 elements, 17 of 32,768.
  EXPECT_EQ(ulp_spread_failure(0.25, 0.05, 1024), "");
  EXPECT_NE(ulp_spread_failure(0.25, 0.05, 32768), "");
  EXPECT_NE(ulp_spread_failure(0.25, -0.05, 32768).find("lean low"), std::string::npos);
  EXPECT_NE(ulp_spread_failure(0.25, 0.05, 32768).find("lean high"), std::string::npos);
}

TEST(UlpSpread, SmallResultsAreNotJudged) {
  EXPECT_EQ(ulp_spread_failure(0.5, 0.5, kMinUlpSpreadElements - 1), "");
  EXPECT_NE(ulp_spread_failure(0.5, 0.5, kMinUlpSpreadElements), "");
}

}  // namespace
}  // namespace meshtest::runner
