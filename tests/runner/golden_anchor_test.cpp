// Golden-anchored intermediate checks (runner/pipeline/golden_anchor.h): on an
// honest simulated chip every intermediate and every weight is within its
// bound; a fuse pass that hands layer_norm the wrong operands (each device op
// still agrees with the reference on its own operands) fails at the fused
// layer_norm, named with its layer; a bfp8_b encoder that truncates fails the
// weight it encoded (a truncated bf16 weight is past its bound); a mesh is not
// compared.
#include <gtest/gtest.h>

#include <cstring>

#include "comparators/metrics.h"
#include "core/dtype.h"
#include "core/graph_builder.h"
#include "core/mutation.h"
#include "core/rng.h"
#include "runner/pipeline/compile_phase.h"
#include "runner/pipeline/element_sample.h"
#include "runner/pipeline/golden_anchor.h"
#include "runner/pipeline/op_golden.h"

namespace meshtest::runner {
namespace {

constexpr int64_t kRows = 64;
constexpr int64_t kHidden = 64;

// x -> LayerNorm written out (fused into layer_norm at -O1) -> linear -> relu.
Graph layer_norm_then_linear(int64_t rows = kRows) {
  GraphBuilder b("anchor");
  const ValueId x = b.input("x", DType::F32, {rows, kHidden});
  const Attrs last{{"axes", std::vector<int64_t>{-1}}, {"keepdim", int64_t{1}}};
  const ValueId centered = b.sub(x, b.op(OpKind::ReduceMean, {x}, last));
  const ValueId var = b.op(OpKind::ReduceMean, {b.mul(centered, centered)}, last);
  const ValueId inv = b.op(OpKind::Rsqrt, {b.add(var, b.constant(1e-5))});
  const ValueId gamma = b.weight("ln.weight", {kHidden}, Initializer::uniform(0.5, 1.5, hash_seed("gamma")));
  const ValueId beta = b.weight("ln.bias", {kHidden}, Initializer::normal(0.0, 0.5, hash_seed("beta")));
  const ValueId normed = b.add(b.mul(b.mul(centered, inv), gamma), beta);
  const ValueId w = b.weight("fc.weight", {kHidden, kHidden}, Initializer::normal(0.0, 0.125, hash_seed("fc")));
  b.output("y", b.relu(b.linear(normed, w)));
  Graph g = b.finish();
  g.materialize_weights();
  return g;
}

AnchorReport run_anchored(const Graph& graph, DType weight_dtype, int64_t rows = kRows, bool every_element = false) {
  CompileSettings settings;
  settings.use_cache = false;
  CompileTarget target;
  target.device.optimization_level = 1;
  target.device.weight_dtype = weight_dtype;
  CompiledCase compiled = compile_graph(graph, settings, target);
  GoldenAnchor anchor(graph, every_element);
  EXPECT_TRUE(compiled.backend->observe_ops(*compiled.executable,
                                            [&anchor](const backend::OpExecution& e) { anchor.observe(e); }));
  const std::map<std::string, Tensor> inputs{{"x", random_normal({rows, kHidden}, 3, 2.0f, 1.0f)}};
  backend::MemoryStats stats;
  compiled.backend->execute(*compiled.executable, inputs, stats);
  return anchor.finish(inputs);
}

TEST(GoldenAnchor, AnHonestChipIsWithinEveryBound) {
  for (DType dtype : {DType::BF16, DType::BFP8_B}) {
    const AnchorReport report = run_anchored(layer_norm_then_linear(), dtype);
    EXPECT_EQ(report.failure, "") << dtype_name(dtype);
    ASSERT_FALSE(report.rows.empty());
    bool fused = false;
    for (const AnchorRow& r : report.rows) {
      EXPECT_FALSE(r.past) << describe_anchor_row(r);
      fused = fused || r.op == "layer_norm";
    }
    EXPECT_TRUE(fused) << "the fuse pass made a layer_norm, matched with the golden's last op of the formula";
    ASSERT_EQ(report.weights.size(), 3u);
    for (const WeightRow& w : report.weights) EXPECT_FALSE(w.past) << w.name << " " << w.worst_ratio;
  }
}

TEST(GoldenAnchor, APassThatSwapsLayerNormOperandsFailsAtTheFusedOp) {
  const Graph graph = layer_norm_then_linear();
  ScopedMutant mutant(MutantId::FuseLayerNormGammaBetaSwapped);
  const AnchorReport report = run_anchored(graph, DType::BF16);
  EXPECT_NE(report.failure.find("first diverging intermediate: op #"), std::string::npos) << report.failure;
  EXPECT_NE(report.failure.find("layer_norm in ln"), std::string::npos) << report.failure;
}

// Values of more than kSampleAbove elements are compared on their sample
// (element_sample.h): the sample's rel_l2 estimates the whole value's (its
// sums scaled to the element count, as the scales it is measured against
// are), and the pass that swaps layer_norm's operands still fails there.
TEST(GoldenAnchor, LargeValuesAreComparedOnASampleThatEstimatesTheWhole) {
  constexpr int64_t kLargeRows = 4096;
  const Graph graph = layer_norm_then_linear(kLargeRows);
  const AnchorReport sampled = run_anchored(graph, DType::BF16, kLargeRows, false);
  const AnchorReport whole = run_anchored(graph, DType::BF16, kLargeRows, true);
  EXPECT_EQ(sampled.failure, "");
  ASSERT_EQ(sampled.rows.size(), whole.rows.size());
  int compared = 0;
  for (size_t i = 0; i < sampled.rows.size(); ++i) {
    const AnchorRow& s = sampled.rows[i];
    EXPECT_EQ(whole.rows[i].sampled, 0);
    if (s.shape != Shape{kLargeRows, kHidden}) continue;
    ++compared;
    EXPECT_EQ(s.sampled, sample_size(kLargeRows * kHidden)) << describe_anchor_row(s);
    EXPECT_NEAR(s.rel_l2, whole.rows[i].rel_l2, 0.1 * whole.rows[i].rel_l2 + 1e-6) << describe_anchor_row(s);
    EXPECT_NEAR(s.norm_ratio, whole.rows[i].norm_ratio, 1e-3) << describe_anchor_row(s);
  }
  EXPECT_GE(compared, 3);
  for (const WeightRow& w : sampled.weights) EXPECT_FALSE(w.past) << w.name;
  ScopedMutant mutant(MutantId::FuseLayerNormGammaBetaSwapped);
  const AnchorReport broken = run_anchored(graph, DType::BF16, kLargeRows, false);
  EXPECT_NE(broken.failure.find("layer_norm in ln"), std::string::npos) << broken.failure;
  EXPECT_NE(broken.failure.find("on a sample of"), std::string::npos) << broken.failure;
}

// A large bf16 weight is checked on its sample: a conversion that truncates
// (up to a whole ulp off: twice the allowed half) or shrinks the weight by 2%
// fails there as it does over every element; rounding to nearest passes.
TEST(GoldenAnchor, ALargeBf16WeightIsCheckedOnItsSample) {
  const Tensor golden = random_normal({512, 256}, 8, 0.0f, 0.05f);
  Tensor truncated(DType::BF16, golden.shape()), shrunk(DType::BF16, golden.shape());
  for (int64_t i = 0; i < golden.numel(); ++i) {
    uint32_t bits;
    std::memcpy(&bits, &golden.data<float>()[i], sizeof bits);
    truncated.data<uint16_t>()[i] = static_cast<uint16_t>(bits >> 16);
    shrunk.data<uint16_t>()[i] = f32_to_bf16(0.98f * golden.data<float>()[i]);
  }
  const Tensor rounded = golden.to(DType::BF16);
  for (const bool every_element : {false, true}) {
    const ConvertedWeightFigures honest = checked_weight_figures(rounded, DType::BF16, golden, every_element);
    EXPECT_EQ(honest.sampled, every_element ? 0 : sample_size(golden.numel()));
    EXPECT_LE(honest.worst_ratio, 1.0);
    EXPECT_NEAR(honest.norm_ratio, 1.0, 1e-3);
    EXPECT_NEAR(honest.golden_norm, comparators::l2_norm(golden), 0.05 * comparators::l2_norm(golden));
    EXPECT_GT(checked_weight_figures(truncated, DType::BF16, golden, every_element).worst_ratio, 1.5) << every_element;
    EXPECT_NEAR(checked_weight_figures(shrunk, DType::BF16, golden, every_element).norm_ratio, 0.98, 2e-3)
        << every_element;
  }
}

TEST(GoldenAnchor, ATruncatingBfp8EncoderFailsTheWeight) {
  const Graph graph = layer_norm_then_linear();
  ScopedMutant mutant(MutantId::Bfp8EncoderTruncates);
  const AnchorReport report = run_anchored(graph, DType::BFP8_B);
  EXPECT_NE(report.failure.find("weight 'fc.weight' as the device holds it (bfp8_b)"), std::string::npos)
      << report.failure;
}

// A bf16 weight converted by truncation (up to a whole ulp off, twice the
// allowed half) is past its bound and rounding to nearest is within it,
// whether the values truncation moves are ordinary or too small for the
// check's f32 lanes (nonzero below 2^-119: read in f64), over a length no
// lane count divides.
TEST(GoldenAnchor, ATruncatedBf16WeightIsPastWithOrWithoutTinyValues) {
  for (const bool tiny : {false, true}) {
    Tensor golden(DType::F32, {1000, 37});
    Tensor truncated(DType::BF16, golden.shape()), rounded(DType::BF16, golden.shape());
    for (int64_t i = 0; i < golden.numel(); ++i) {
      // bf16 values, but for every 97th: off a bf16 value, and tiny in the second round.
      float v = (i % 2 ? -1.0f : 1.0f) * (1.0f + 0x1p-7f * static_cast<float>(i % 100));
      if (i % 97 == 0) v = (tiny ? 0x1p-122f : 1.0f) * (1.0f + 0x1p-9f * static_cast<float>(i % 200) + 0x1p-20f);
      golden.data<float>()[i] = v;
      uint32_t bits;
      std::memcpy(&bits, &v, sizeof bits);
      truncated.data<uint16_t>()[i] = static_cast<uint16_t>(bits >> 16);
      const float nearest = round_to_bf16(v);
      std::memcpy(&bits, &nearest, sizeof bits);
      rounded.data<uint16_t>()[i] = static_cast<uint16_t>(bits >> 16);
    }
    const ConvertedWeightFigures past = converted_weight_figures(truncated, DType::BF16, golden);
    EXPECT_GT(past.worst_ratio, 1.5) << "tiny " << tiny;
    EXPECT_LT(past.worst_ratio, 2.0) << "tiny " << tiny;
    const ConvertedWeightFigures within = converted_weight_figures(rounded, DType::BF16, golden);
    EXPECT_LE(within.worst_ratio, 1.0) << "tiny " << tiny;
    EXPECT_NEAR(within.norm_ratio, 1.0, 1e-3);
  }
}

// A weight whose squares leave f32's range (values of 1e30) has its norm
// summed in f64: an honest conversion keeps a norm ratio of 1, not inf/inf.
TEST(GoldenAnchor, AWeightOfHugeValuesKeepsAFiniteNorm) {
  Tensor golden(DType::F32, {64, 40});
  for (int64_t i = 0; i < golden.numel(); ++i) {
    golden.data<float>()[i] = round_to_bf16(1e30f * (1.0f + 0.01f * static_cast<float>(i % 13)));
  }
  const ConvertedWeightFigures figures = converted_weight_figures(golden.to(DType::BF16), DType::BF16, golden);
  EXPECT_LE(figures.worst_ratio, 1.0);
  EXPECT_NEAR(figures.norm_ratio, 1.0, 1e-9);
  EXPECT_TRUE(std::isfinite(figures.golden_norm));
}

TEST(GoldenAnchor, CancellingValuesAreMeasuredAgainstTheirOperands) {
  // relu(x - x') where x' is x rounded: the golden is near 0; an error the
  // size of x's bf16 rounding is small against x, not against the result.
  GraphBuilder b("cancel");
  const ValueId x = b.input("x", DType::F32, {kRows, kHidden});
  b.output("y", b.relu(b.sub(x, b.mul(x, b.constant(0.999)))));
  Graph g = b.finish();
  CompileSettings settings;
  settings.use_cache = false;
  CompiledCase compiled = compile_graph(g, settings, CompileTarget{});
  GoldenAnchor anchor(g);
  compiled.backend->observe_ops(*compiled.executable, [&anchor](const backend::OpExecution& e) { anchor.observe(e); });
  const std::map<std::string, Tensor> inputs{{"x", random_normal({kRows, kHidden}, 5)}};
  backend::MemoryStats stats;
  compiled.backend->execute(*compiled.executable, inputs, stats);
  const AnchorReport report = anchor.finish(inputs);
  EXPECT_EQ(report.failure, "");
  ASSERT_FALSE(report.rows.empty());
  EXPECT_LT(report.rows.back().rel_l2, 0.01);
}

}  // namespace
}  // namespace meshtest::runner
