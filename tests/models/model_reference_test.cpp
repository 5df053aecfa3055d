// The native models run end to end on the CPU reference executor: outputs are
// finite and in a realistic range (the initialisation keeps activations O(1)),
// the bf16 variant tracks the f32 one, and BERT's attention mask really hides
// padded positions.
#include <gtest/gtest.h>

#include <cmath>

#include "runtime/reference/reference_executor.h"
#include "tests/models/loader_plugin.h"

namespace meshtest::testing {
namespace {

struct Stats {
  double mean = 0, std = 0, max_abs = 0;
  bool finite = true;
};

Stats stats(const Tensor& t) {
  const std::vector<float> v = t.to_f32_vector();
  Stats s;
  double sum = 0, sq = 0;
  for (float x : v) {
    if (!std::isfinite(x)) s.finite = false;
    sum += x;
    s.max_abs = std::max(s.max_abs, std::abs(static_cast<double>(x)));
  }
  s.mean = sum / static_cast<double>(v.size());
  for (float x : v) sq += (x - s.mean) * (x - s.mean);
  s.std = std::sqrt(sq / static_cast<double>(v.size()));
  return s;
}

double pcc(const Tensor& a, const Tensor& b) {
  const std::vector<float> x = a.to_f32_vector(), y = b.to_f32_vector();
  double mx = 0, my = 0;
  for (size_t i = 0; i < x.size(); ++i) mx += x[i], my += y[i];
  mx /= static_cast<double>(x.size());
  my /= static_cast<double>(y.size());
  double sxy = 0, sxx = 0, syy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
    syy += (y[i] - my) * (y[i] - my);
  }
  return sxy / std::sqrt(sxx * syy);
}

Tensor run(const std::string& dir, const std::string& variant, const sdk::LoadOptions& options = {}) {
  auto loader = make_loader(dir);
  const sdk::Model model = loader->load_model(variant, options);
  const sdk::Inputs inputs = loader->load_inputs(variant, options);
  const std::vector<Tensor> out = runtime::run_reference(model.graph, inputs);
  EXPECT_EQ(out.size(), 1u);
  return out.at(0);
}

struct RangeCase {
  std::string dir, variant;
  Shape shape;
  double min_std, max_std, max_abs;
};

void PrintTo(const RangeCase& c, std::ostream* os) { *os << c.dir << ":" << c.variant; }

class ModelReferenceTest : public ::testing::TestWithParam<RangeCase> {};

TEST_P(ModelReferenceTest, LogitsAreFiniteAndInARealisticRange) {
  const RangeCase& c = GetParam();
  const Tensor logits = run(c.dir, c.variant);
  EXPECT_EQ(logits.shape(), c.shape);
  const Stats s = stats(logits);
  EXPECT_TRUE(s.finite);
  EXPECT_GT(s.std, c.min_std);
  EXPECT_LT(s.std, c.max_std);
  EXPECT_LT(s.max_abs, c.max_abs);
  RecordProperty("logits_std", std::to_string(s.std));
  RecordProperty("logits_max_abs", std::to_string(s.max_abs));
}

INSTANTIATE_TEST_SUITE_P(NativeLoaders, ModelReferenceTest,
                         ::testing::Values(RangeCase{"mnist/image_classification/native", "mlp", {1, 10}, 0.01, 10, 50},
                                           RangeCase{"resnet/native", "resnet_tiny", {1, 10}, 0.1, 10, 50},
                                           RangeCase{"resnet/native", "resnet18", {1, 1000}, 0.3, 10, 50},
                                           RangeCase{"resnet/native", "resnet50", {1, 1000}, 0.3, 10, 50},
                                           RangeCase{
                                               "bert/masked_lm/native", "bert_tiny", {1, 128, 30522}, 0.1, 10, 50},
                                           RangeCase{"mobilenet_v2/native", "mobilenet_v2_tiny", {1, 10}, 0.3, 10, 50},
                                           RangeCase{"mobilenet_v2/native", "mobilenet_v2", {1, 1000}, 0.3, 10, 50},
                                           RangeCase{"vit/native", "vit_tiny", {1, 1000}, 0.1, 10, 50},
                                           RangeCase{"unet/native", "unet_tiny", {1, 2, 64, 64}, 0.1, 10, 50},
                                           RangeCase{"gpt2/causal_lm/native", "gpt2_tiny", {1, 128, 50257}, 0.1, 10, 50},
                                           RangeCase{"llama/causal_lm/native", "llama_tiny", {1, 128, 32000}, 0.1, 10, 50},
                                           RangeCase{"mixtral/causal_lm/native", "mixtral_tiny", {1, 128, 32000}, 0.1, 10, 50},
                                           RangeCase{
                                               "whisper/audio_asr/native", "whisper_tiny", {1, 1500, 384}, 0.3, 10, 50}),
                         [](const ::testing::TestParamInfo<RangeCase>& info) { return info.param.variant; });

TEST(ModelReference, Bf16WeightsTrackF32) {
  sdk::LoadOptions bf16;
  bf16.dtype_override = DType::BF16;
  EXPECT_GT(pcc(run("resnet/native", "resnet_tiny"), run("resnet/native", "resnet_tiny", bf16)), 0.98);
  EXPECT_GT(pcc(run("mnist/image_classification/native", "mlp"), run("mnist/image_classification/native", "mlp", bf16)),
            0.99);
}

// Changing a padded token leaves every logit unchanged; changing a kept token
// changes the logits of the other positions.
TEST(ModelReference, BertAttentionMaskHidesPaddedPositions) {
  auto loader = make_loader("bert/masked_lm/native");
  sdk::LoadOptions options;
  options.seq_len = 16;  // positions 14 and 15 are padding
  const sdk::Model model = loader->load_model("bert_tiny", options);
  const sdk::Inputs inputs = loader->load_inputs("bert_tiny", options);
  const Tensor base = runtime::run_reference(model.graph, inputs).at(0);

  auto with_id = [&](int64_t position, int64_t id) {
    sdk::Inputs changed = inputs;
    Tensor ids = inputs.at("input_ids").clone();
    ids.data<int64_t>()[position] = id;
    changed["input_ids"] = ids;
    return runtime::run_reference(model.graph, changed).at(0);
  };
  const int64_t vocab = 30522;
  auto first_position_diff = [&](const Tensor& other) {
    double d = 0;
    for (int64_t i = 0; i < vocab; ++i)
      d = std::max(d, static_cast<double>(std::abs(base.data<float>()[i] - other.data<float>()[i])));
    return d;
  };
  EXPECT_EQ(first_position_diff(with_id(15, 2000)), 0.0);
  EXPECT_GT(first_position_diff(with_id(5, 2000)), 1e-4);
}

// Causal language models: changing token 10 leaves the logits of positions
// 0..9 unchanged and changes those of position 10 on.
class CausalMaskTest : public ::testing::TestWithParam<std::pair<std::string, std::string>> {};

TEST_P(CausalMaskTest, LaterTokensDoNotChangeEarlierLogits) {
  const auto& [dir, variant] = GetParam();
  auto loader = make_loader(dir);
  sdk::LoadOptions options;
  options.seq_len = 16;
  const sdk::Model model = loader->load_model(variant, options);
  const sdk::Inputs inputs = loader->load_inputs(variant, options);
  const Tensor base = runtime::run_reference(model.graph, inputs).at(0);
  sdk::Inputs changed = inputs;
  Tensor ids = inputs.at("input_ids").clone();
  ids.data<int64_t>()[10] = ids.data<int64_t>()[10] == 7 ? 8 : 7;
  changed["input_ids"] = ids;
  const Tensor other = runtime::run_reference(model.graph, changed).at(0);
  const int64_t vocab = base.dim(2);
  auto diff = [&](int64_t from, int64_t to) {
    double d = 0;
    for (int64_t i = from * vocab; i < to * vocab; ++i)
      d = std::max(d, static_cast<double>(std::abs(base.data<float>()[i] - other.data<float>()[i])));
    return d;
  };
  EXPECT_EQ(diff(0, 10), 0.0);
  EXPECT_GT(diff(10, 16), 1e-4);
}

INSTANTIATE_TEST_SUITE_P(DecoderOnly, CausalMaskTest,
                         ::testing::Values(std::pair<std::string, std::string>{"gpt2/causal_lm/native", "gpt2_tiny"},
                                           std::pair<std::string, std::string>{"llama/causal_lm/native",
                                                                               "llama_tiny"},
                                           std::pair<std::string, std::string>{"mixtral/causal_lm/native",
                                                                               "mixtral_tiny"}),
                         [](const auto& info) { return info.param.second; });

}  // namespace
}  // namespace meshtest::testing
