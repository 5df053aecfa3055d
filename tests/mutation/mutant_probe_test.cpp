// Every catalogued mutant (core/mutation.h) reaches the code it claims to
// break: for each one a small probe that uses its op runs on the simulated
// chip (device kernels, bf16/bfp8_b numerics, the batch_norm lowering), the
// mesh's collectives, or through autodiff onto the chip (VJP rules), once with
// the mutant off and once on. The outputs must differ, keep their shapes and
// dtypes, and stay finite. The test walks the catalogue, so a mutant without
// a probe fails it: a mutation score cannot be inflated by mutants that do
// nothing or crash. The comparison failure each mutant causes has a shipped
// failure class (test_config/failure_reasons.yaml).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "comparators/metrics.h"
#include "comparators/training_comparison.h"
#include "compiler/autodiff.h"
#include "compiler/compile.h"
#include "compiler/compile_cache.h"
#include "core/graph_builder.h"
#include "core/mutation.h"
#include "core/rng.h"
#include "reports/failure_classes.h"
#include "runtime/device/simulated_chip.h"
#include "runtime/mesh/collectives.h"

namespace meshtest {
namespace {

using Outputs = std::vector<Tensor>;
using Probe = std::function<Outputs()>;
using NamedTensors = std::map<std::string, Tensor>;

Outputs run_chip(const Graph& graph, const NamedTensors& inputs, const compiler::CompileOptions& options = {}) {
  const DeviceProgram program = compiler::compile(graph, options);
  runtime::SimulatedChip chip({});
  return chip.execute(program, inputs);
}

// One op over f32 graph inputs in0, in1, ... holding `inputs`.
Probe single_op(OpKind kind, std::vector<Tensor> inputs, Attrs attrs = {}) {
  return [=] {
    GraphBuilder b(std::string(op_name(kind)));
    std::vector<ValueId> ids;
    NamedTensors feed;
    for (size_t i = 0; i < inputs.size(); ++i) {
      const std::string name = "in" + std::to_string(i);
      ids.push_back(b.input(name, inputs[i].dtype(), inputs[i].shape()));
      feed[name] = inputs[i];
    }
    b.output("out", b.op(kind, ids, attrs));
    return run_chip(b.finish(), feed);
  };
}

Tensor normal(const Shape& shape, uint64_t seed) { return random_normal(shape, seed); }
Tensor positive(const Shape& shape, uint64_t seed) { return random_normal(shape, seed, 1.5f, 0.25f); }

Probe unary(OpKind kind) { return single_op(kind, {normal({4, 32}, 1)}); }
Probe softmax() { return single_op(OpKind::Softmax, {normal({4, 16}, 2)}, {{"axis", int64_t{-1}}}); }
Probe linear() { return single_op(OpKind::Linear, {normal({4, 16}, 3), normal({8, 16}, 4), normal({8}, 5)}); }
Probe conv2d() { return single_op(OpKind::Conv2d, {normal({1, 3, 8, 8}, 6), normal({4, 3, 3, 3}, 7), normal({4}, 8)}); }
Probe layer_norm() {
  return single_op(OpKind::LayerNorm, {normal({4, 16}, 9), positive({16}, 10), normal({16}, 11)},
                   {{"eps", 1e-5}});
}

// sdpa over 2 heads of 8 tokens with an asymmetric additive mask.
Probe sdpa() {
  return single_op(OpKind::Sdpa,
                   {normal({1, 2, 8, 16}, 12), normal({1, 2, 16, 8}, 13), normal({1, 2, 8, 16}, 14),
                    random_normal({1, 1, 8, 8}, 15, 0.0f, 3.0f)},
                   {{"scale", 0.25}});
}

// y = x @ w with w a bf16 or bfp8_b GEMM weight.
Probe gemm_weight(DType weight_dtype) {
  return [=] {
    GraphBuilder b("gemm_weight");
    const ValueId x = b.input("x", DType::F32, {4, 64});
    const ValueId w = b.weight("w", {32, 64}, Initializer::normal(0.0, 0.5, 16));
    b.output("y", b.linear(x, w));
    compiler::CompileOptions options;
    options.weight_dtype = weight_dtype;
    return run_chip(b.finish(), {{"x", normal({4, 64}, 17)}}, options);
  };
}

// A collective over the 4 chips of a 1x4 mesh, one bf16 operand per chip.
Probe collective(OpKind kind) {
  return [=] {
    const Mesh mesh{{1, 4}, {"batch", "model"}};
    std::vector<Tensor> operands;
    for (uint64_t c = 0; c < 4; ++c) operands.push_back(normal({8, 4}, 20 + c).to(DType::BF16));
    std::vector<const Tensor*> ptrs;
    for (const Tensor& t : operands) ptrs.push_back(&t);
    Attrs attrs{{"axes", std::string("model")}};
    if (kind == OpKind::ReduceScatter) attrs.set("dim", int64_t{0});
    Outputs out;
    for (const Tensor& t : runtime::run_collective(kind, attrs, mesh, ptrs).per_chip) out.push_back(t.to(DType::F32));
    return out;
  };
}

// The training graph of y = op(x * w, ...) on the chip: the forward output
// and the weights' gradients. `extra` adds the op's other operands.
Probe training(const std::function<ValueId(GraphBuilder&, ValueId)>& forward) {
  return [=] {
    GraphBuilder b("training_probe");
    const ValueId x = b.input("x", DType::F32, {8, 8});
    const ValueId w = b.weight("w", {8, 8}, Initializer::normal(1.0, 0.5, 30));
    b.output("y", forward(b, b.mul(x, w)));
    const compiler::TrainingGraph graph = compiler::build_training_graph(b.finish(), "y");
    const Shape y_shape = graph.graph.type(graph.graph.outputs.front().value).shape;
    return run_chip(graph.graph,
                    {{"x", normal({8, 8}, 31)}, {compiler::kSeedGradientInput, normal(y_shape, 32)}});
  };
}

std::map<std::string_view, Probe> probes() {
  using K = OpKind;
  const Probe gelu = unary(K::Gelu), silu = unary(K::Silu), softmax_probe = softmax(), linear_probe = linear(),
              conv = conv2d(), ln = layer_norm(), attention = sdpa();
  const Probe matmul = single_op(K::Matmul, {normal({4, 16}, 40), normal({16, 8}, 41)});
  return {
      {"gelu_scale_1pct", gelu},
      {"gelu_scale_5pct", gelu},
      {"gelu_tanh_for_exact", gelu},
      {"softmax_scale_1pct", softmax_probe},
      {"softmax_scale_5pct", softmax_probe},
      {"softmax_temperature_1_05", softmax_probe},
      {"softmax_wrong_axis", softmax_probe},
      {"linear_scale_1pct", linear_probe},
      {"linear_scale_5pct", linear_probe},
      {"linear_bias_ignored", linear_probe},
      {"matmul_scale_1pct", matmul},
      {"matmul_scale_5pct", matmul},
      {"conv2d_scale_1pct", conv},
      {"conv2d_scale_5pct", conv},
      {"conv2d_bias_ignored", conv},
      {"silu_scale_1pct", silu},
      {"silu_scale_5pct", silu},
      {"relu_leaky", unary(K::Relu)},
      {"layer_norm_scale_1pct", ln},
      {"layer_norm_scale_5pct", ln},
      {"layer_norm_beta_ignored", ln},
      {"layer_norm_gamma_ignored", ln},
      {"layer_norm_variance_d_minus_1", ln},
      {"rms_norm_scale_5pct", single_op(K::RmsNorm, {normal({4, 16}, 42), positive({16}, 43)}, {{"eps", 1e-6}})},
      {"global_avg_pool2d_scale_5pct", single_op(K::GlobalAvgPool2d, {normal({1, 4, 4, 4}, 44)})},
      {"batch_norm_mean_ignored",
       single_op(K::BatchNorm,
                 {normal({1, 4, 4, 4}, 45), positive({4}, 46), normal({4}, 47), normal({4}, 48), positive({4}, 49)},
                 {{"eps", 1e-5}})},
      {"sdpa_mask_dropped", attention},
      {"sdpa_mask_transposed", attention},
      {"rope_table_off_by_one", single_op(K::Mul, {normal({1, 2, 8, 16}, 50), normal({8, 16}, 51)})},
      {"residual_add_dropped", single_op(K::Add, {normal({4, 16}, 52), normal({4, 16}, 53)})},
      {"slice_off_by_one",
       single_op(K::Slice, {normal({8, 16}, 54)}, {{"axis", int64_t{0}}, {"start", int64_t{2}}, {"end", int64_t{6}}})},
      {"concat_off_by_one", single_op(K::Concat, {normal({2, 8}, 55), normal({3, 8}, 56)}, {{"axis", int64_t{0}}})},
      {"embedding_row_off_by_one",
       single_op(K::Embedding, {Tensor::from_i64({6}, {0, 3, 9, 2, 2, 7}), normal({10, 8}, 57)})},
      {"topk_mask_one_short",
       single_op(K::TopkMask, {normal({4, 8}, 58)}, {{"k", int64_t{2}}, {"axis", int64_t{-1}}})},
      {"reduce_mean_wrong_count",
       single_op(K::ReduceMean, {normal({4, 16}, 59)}, {{"axes", std::vector<int64_t>{-1}}, {"keepdim", int64_t{1}}})},
      {"bf16_truncation", single_op(K::Add, {normal({64}, 60), normal({64}, 61)})},
      {"bfp8_exponent_from_next_block", gemm_weight(DType::BFP8_B)},
      {"all_reduce_one_chip_short", collective(K::AllReduce)},
      {"reduce_scatter_one_chip_short", collective(K::ReduceScatter)},
      {"vjp_softmax_x1_5",
       training([](GraphBuilder& b, ValueId h) { return b.op(OpKind::Softmax, {h}, {{"axis", int64_t{-1}}}); })},
      {"vjp_gelu_tanh_form", training([](GraphBuilder& b, ValueId h) { return b.op(OpKind::Gelu, {h}); })},
      {"vjp_layer_norm_no_mean_term",
       training([](GraphBuilder& b, ValueId h) {
         const ValueId gamma = b.weight("gamma", {8}, Initializer::normal(1.0, 0.3, 33));
         const ValueId beta = b.weight("beta", {8}, Initializer::normal(0.0, 0.2, 34));
         return b.op(OpKind::LayerNorm, {h, gamma, beta}, {{"eps", 1e-5}});
       })},
      {"vjp_matmul_transposed_operand",
       training([](GraphBuilder& b, ValueId h) {
         return b.matmul(h, b.weight("v", {8, 4}, Initializer::normal(0.0, 1.0, 35)));
       })},
  };
}

double max_abs_difference(const Tensor& a, const Tensor& b) {
  double worst = 0.0;
  for (int64_t i = 0; i < a.numel(); ++i) {
    worst = std::max(worst, std::fabs(a.element_as_double(i) - b.element_as_double(i)));
  }
  return worst;
}

bool all_finite(const Tensor& t) {
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (!std::isfinite(t.element_as_double(i))) return false;
  }
  return true;
}

TEST(MutantProbe, EveryCataloguedMutantChangesItsProbeAndKeepsShapes) {
  const std::map<std::string_view, Probe> all = probes();
  for (const MutantInfo& mutant : mutant_catalogue()) {
    SCOPED_TRACE(std::string(mutant.name));
    const auto probe = all.find(mutant.name);
    ASSERT_NE(probe, all.end()) << "mutant '" << mutant.name << "' has no probe in " << __FILE__;
    ASSERT_EQ(active_mutant(), MutantId::None);
    const Outputs normal_outputs = probe->second();
    Outputs mutated;
    {
      const ScopedMutant on(mutant.id);
      mutated = probe->second();
    }
    ASSERT_EQ(mutated.size(), normal_outputs.size());
    double difference = 0.0;
    for (size_t i = 0; i < mutated.size(); ++i) {
      ASSERT_EQ(mutated[i].shape(), normal_outputs[i].shape()) << "output " << i;
      ASSERT_EQ(mutated[i].dtype(), normal_outputs[i].dtype()) << "output " << i;
      EXPECT_TRUE(all_finite(mutated[i])) << "output " << i;
      difference = std::max(difference, max_abs_difference(mutated[i], normal_outputs[i]));
    }
    EXPECT_GT(difference, 0.0) << "mutant '" << mutant.name << "' does not change its probe's outputs";
  }
}

// The comparison failure a mutant's probe gives when its unmutated outputs are
// the golden: the message a case of the matrix records (compare phase), or
// "" when the default checks pass it. Training probes (VJP rules) return the
// forward output, then the weights' gradients.
std::string comparison_failure(const MutantInfo& mutant, const Outputs& golden, const Outputs& device) {
  const comparators::ComparisonConfig config;
  if (mutant.site == MutantSite::VjpRule) {
    auto side = [](const Outputs& outputs) {
      comparators::TrainingTensors t{outputs.front(), {}, {}, {}};
      for (size_t i = 1; i < outputs.size(); ++i) {
        t.with_gradient.push_back("w" + std::to_string(i));
        t.gradients.push_back(outputs[i]);
      }
      return t;
    };
    return comparators::compare_training("y", side(golden), side(device), config).message;
  }
  std::vector<std::string> names;
  for (size_t i = 0; i < golden.size(); ++i) names.push_back("out" + std::to_string(i));
  return comparators::compare_outputs(names, device, golden, config).message;
}

// Every failure a catalogued mutant causes has a shipped failure class
// (test_config/failure_reasons.yaml), never UNCLASSIFIED.
TEST(MutantProbe, EveryMutantsComparisonFailureHasAFailureClass) {
  std::vector<config::Diagnostic> problems;
  const reports::FailureClasses classes =
      reports::load_failure_classes(MESHTEST_SOURCE_DIR "/test_config/failure_reasons.yaml", problems);
  ASSERT_TRUE(problems.empty()) << problems.front().to_string();
  const std::map<std::string_view, Probe> all = probes();
  size_t failing = 0;
  for (const MutantInfo& mutant : mutant_catalogue()) {
    SCOPED_TRACE(std::string(mutant.name));
    const auto probe = all.find(mutant.name);
    ASSERT_NE(probe, all.end());
    const Outputs golden = probe->second();
    Outputs device;
    {
      const ScopedMutant on(mutant.id);
      device = probe->second();
    }
    reports::CaseResult r;
    r.test_id = std::string(mutant.name);
    r.outcome = reports::Outcome::Failed;
    r.phase = "compare";
    r.error_message = comparison_failure(mutant, golden, device);
    if (r.error_message.empty()) continue;  // not caught by the default checks: no failure to classify
    ++failing;
    const reports::Classification c = reports::classify(classes, r);
    EXPECT_NE(c.name, reports::kUnclassified) << r.error_message;
    EXPECT_EQ(c.component, "comparison") << c.name << ": " << r.error_message;
    // Without classes the same failure is UNCLASSIFIED: the check above can fail.
    EXPECT_EQ(reports::classify(reports::FailureClasses{}, r).name, reports::kUnclassified);
  }
  EXPECT_GE(failing, mutant_catalogue().size() / 2) << "most mutants should fail their probe's comparison";
}

TEST(MutantProbe, EveryProbeNamesACataloguedMutant) {
  for (const auto& [name, probe] : probes()) EXPECT_NE(find_mutant(name), nullptr) << name;
}

TEST(MutantCatalogue, HasAtLeastThirtyUniquelyNamedDescribedMutants) {
  std::set<std::string_view> names;
  for (const MutantInfo& mutant : mutant_catalogue()) {
    EXPECT_TRUE(names.insert(mutant.name).second) << "duplicate " << mutant.name;
    EXPECT_FALSE(mutant.description.empty()) << mutant.name;
    EXPECT_FALSE(mutant.mutant_class.empty()) << mutant.name;
    EXPECT_EQ(&mutant_info(mutant.id), &mutant);
  }
  EXPECT_GE(names.size(), 30u);
  EXPECT_EQ(find_mutant("no_such_mutant"), nullptr);
}

TEST(MutantCatalogue, SwitchIsOffUnlessSet) {
  EXPECT_EQ(active_mutant(), MutantId::None);
  EXPECT_EQ(active_mutant_name(), "");
  EXPECT_NO_THROW(check_mutant_environment());
}

TEST(MutantCatalogue, CompileCacheKeyNamesTheActiveMutant) {
  GraphBuilder b("cache_key");
  b.output("y", b.op(OpKind::Relu, {b.input("x", DType::F32, {4})}));
  const Graph graph = b.finish();
  const std::string normal_key = compiler::compile_cache_key(graph, {}, "n150 1x1");
  const ScopedMutant on(MutantId::ReluLeaky);
  EXPECT_NE(compiler::compile_cache_key(graph, {}, "n150 1x1"), normal_key);
}

}  // namespace
}  // namespace meshtest
