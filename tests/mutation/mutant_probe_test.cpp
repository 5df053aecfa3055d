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
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "comparators/metrics.h"
#include "comparators/training_comparison.h"
#include "compiler/autodiff.h"
#include "compiler/compile.h"
#include "compiler/compile_cache.h"
#include "core/graph_builder.h"
#include "core/ir_text.h"
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

// A collective over the "model" axis of a 4-chip mesh (1x4, or 2x2 where the
// axis is a proper subgroup), one bf16 operand per chip.
Probe collective(OpKind kind, Shape mesh_shape = {1, 4}) {
  return [=] {
    const Mesh mesh{mesh_shape, {"batch", "model"}};
    std::vector<Tensor> operands;
    for (uint64_t c = 0; c < 4; ++c) operands.push_back(normal({8, 4}, 20 + c).to(DType::BF16));
    std::vector<const Tensor*> ptrs;
    for (const Tensor& t : operands) ptrs.push_back(&t);
    Attrs attrs{{"axes", std::string("model")}};
    if (kind == OpKind::ReduceScatter || kind == OpKind::AllGather) attrs.set("dim", int64_t{0});
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

// A graph of tests/filecheck (the passes' golden inputs) compiled at -O1 (fuse,
// const-eval), float inputs normal.
Probe filecheck_graph(const std::string& file) {
  return [=] {
    std::ifstream in(std::string(MESHTEST_SOURCE_DIR) + "/tests/filecheck/" + file);
    std::stringstream text;
    text << in.rdbuf();
    const Graph graph = parse_graph(text.str(), file);
    NamedTensors feed;
    uint64_t seed = 70;
    for (const Param* p : graph.inputs()) feed[p->name] = normal(graph.type(p->value).shape, ++seed);
    compiler::CompileOptions options;
    options.optimization_level = 1;
    return run_chip(graph, feed, options);
  };
}

// A graph made by `build` from input "x" of `shape` (holding `x`) at -O1.
Probe optimized(const Tensor& x, const std::function<ValueId(GraphBuilder&, ValueId)>& build) {
  return [=] {
    GraphBuilder b("optimized_probe");
    b.output("y", build(b, b.input("x", DType::F32, x.shape())));
    compiler::CompileOptions options;
    options.optimization_level = 1;
    return run_chip(b.finish(), {{"x", x}}, options);
  };
}

// The decomposed RMSNorm the fuse pass matches: x * rsqrt(mean(x^2) + 1e-6) * w.
ValueId decomposed_rms_norm(GraphBuilder& b, ValueId x) {
  const ValueId ms = b.op(OpKind::ReduceMean, {b.mul(x, x)}, {{"axes", std::vector<int64_t>{-1}}, {"keepdim", int64_t{1}}});
  const ValueId inv = b.op(OpKind::Rsqrt, {b.add(ms, b.constant(1e-6))});
  return b.mul(b.mul(x, inv), b.weight("w", {16}, Initializer::normal(1.0, 0.2, 65)));
}

// A training-form batch norm (models/common/batch_norm.h): batch statistics
// by reduce_sum, beside running statistics named as the layer's.
Probe training_batch_norm() {
  return [] {
    GraphBuilder b("training_batch_norm");
    const Shape shape{2, 4, 3, 3};
    const ValueId x = b.input("x", DType::F32, shape);
    const Attrs over_nhw{{"axes", std::vector<int64_t>{0, 2, 3}}, {"keepdim", int64_t{0}}};
    const ValueId inv_n = b.constant(1.0 / 18.0);
    const ValueId mean = b.mul(b.op(OpKind::ReduceSum, {x}, over_nhw), inv_n);
    const ValueId centered = b.sub(x, b.reshape(mean, {4, 1, 1}));
    const ValueId var = b.mul(b.op(OpKind::ReduceSum, {b.mul(centered, centered)}, over_nhw), inv_n);
    const ValueId gamma = b.weight("bn.weight", {4}, Initializer::uniform(0.5, 1.5, 95));
    const ValueId beta = b.weight("bn.bias", {4}, Initializer::normal(0.0, 0.2, 96));
    const ValueId running_mean = b.weight("bn.running_mean", {4}, Initializer::normal(0.0, 0.1, 97));
    const ValueId running_var = b.weight("bn.running_var", {4}, Initializer::uniform(0.5, 1.5, 98));
    b.output("y", b.op(OpKind::BatchNorm, {x, gamma, beta, mean, var}, {{"eps", 1e-5}}));
    b.output("running", b.add(running_mean, running_var));  // keeps the running statistics in the graph
    return run_chip(b.finish(), {{"x", random_normal(shape, 99, 2.0f, 1.5f)}});
  };
}

// Training through an embedding whose ids repeat: the table's gradient.
Probe embedding_training() {
  return [] {
    GraphBuilder b("embedding_training");
    const ValueId ids = b.input("ids", DType::I64, {6});
    const ValueId table = b.weight("table", {10, 8}, Initializer::normal(0.0, 1.0, 37));
    b.output("y", b.op(OpKind::Embedding, {ids, table}));
    const compiler::TrainingGraph graph = compiler::build_training_graph(b.finish(), "y");
    return run_chip(graph.graph, {{"ids", Tensor::from_i64({6}, {1, 4, 1, 7, 4, 1})},
                                  {compiler::kSeedGradientInput, normal({6, 8}, 38)}});
  };
}

std::map<std::string_view, Probe> probes() {
  using K = OpKind;
  const Probe gelu = unary(K::Gelu), silu = unary(K::Silu), softmax_probe = softmax(), linear_probe = linear(),
              conv = conv2d(), ln = layer_norm(), attention = sdpa();
  const Probe matmul = single_op(K::Matmul, {normal({4, 16}, 40), normal({16, 8}, 41)});
  const Probe rms = single_op(K::RmsNorm, {normal({4, 16}, 42), positive({16}, 43)}, {{"eps", 1e-6}});
  const Probe batch_norm = single_op(
      K::BatchNorm, {normal({1, 4, 4, 4}, 45), positive({4}, 46), normal({4}, 47), normal({4}, 48), positive({4}, 49)},
      {{"eps", 1e-5}});
  const Probe reduce_sum = single_op(K::ReduceSum, {normal({4, 64}, 66)},
                                     {{"axes", std::vector<int64_t>{-1}}, {"keepdim", int64_t{1}}});
  const Probe cache_append =  // a decode step: 5 cached positions and 1 new, 2 heads
      single_op(K::Concat, {normal({1, 2, 5, 8}, 67), normal({1, 2, 1, 8}, 68)}, {{"axis", int64_t{2}}});
  auto layer_norm_of = [](const Tensor& x) {
    return single_op(K::LayerNorm, {x, positive({x.dim(-1)}, 10), normal({x.dim(-1)}, 11)}, {{"eps", 1e-5}});
  };
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
      {"rms_norm_scale_5pct", rms},
      {"global_avg_pool2d_scale_5pct", single_op(K::GlobalAvgPool2d, {normal({1, 4, 4, 4}, 44)})},
      {"batch_norm_mean_ignored", batch_norm},
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
      // Issue 33's classes.
      {"rms_norm_weight_ignored", rms},
      {"sdpa_scale_ignored", attention},
      {"rms_norm_mean_subtracted", rms},
      {"tanh_half_argument", unary(K::Tanh)},
      {"sdpa_mask_row_off_by_one", attention},
      {"sdpa_scale_1_over_d", attention},
      {"gqa_kv_head_rotated", single_op(K::Matmul, {normal({1, 2, 2, 4, 8}, 69), normal({1, 2, 1, 8, 4}, 70)})},
      {"max_pool2d_window_shifted",
       single_op(K::MaxPool2d, {normal({1, 2, 8, 8}, 71)},
                 {{"kernel", std::vector<int64_t>{2, 2}}, {"stride", std::vector<int64_t>{2, 2}}})},
      {"reduce_sum_skips_last_element", reduce_sum},
      {"reduce_sum_bf16_accumulation", reduce_sum},
      {"linear_bf16_accumulation",  // K = 128: four 32-wide tiles
       single_op(K::Linear, {normal({4, 128}, 72), normal({8, 128}, 73), normal({8}, 74)})},
      {"conv2d_bf16_accumulation",  // 16 input channels, 3x3: four partials of 4 channels
       single_op(K::Conv2d, {normal({1, 16, 6, 6}, 75), normal({4, 16, 3, 3}, 76), normal({4}, 77)})},
      {"layer_norm_bf16_statistics", layer_norm_of(normal({4, 256}, 78))},
      {"softmax_bf16_accumulation", single_op(K::Softmax, {normal({4, 256}, 79)}, {{"axis", int64_t{-1}}})},
      {"all_reduce_bf16_accumulation", collective(K::AllReduce)},
      {"div_via_bf16_reciprocal", single_op(K::Div, {normal({64}, 80), positive({64}, 81)})},
      {"bfp8_encoder_truncates", gemm_weight(DType::BFP8_B)},
      {"batch_norm_shift_uses_gamma", batch_norm},
      {"batch_norm_eps_1e_3",  // channels of small variance (about 2e-3), where eps matters
       single_op(K::BatchNorm,
                 {normal({1, 4, 4, 4}, 82), positive({4}, 46), normal({4}, 47), normal({4}, 48),
                  random_normal({4}, 83, 2e-3f, 2e-4f)},
                 {{"eps", 1e-5}})},
      {"fuse_layer_norm_gamma_beta_swapped", filecheck_graph("fuse_norms.mtir")},
      {"fuse_sdpa_divisor_as_scale", filecheck_graph("fuse_attention.mtir")},
      {"fuse_gelu_tanh_marked_exact", filecheck_graph("fuse_gelu.mtir")},
      {"fuse_rms_norm_eps_dropped",  // rows of mean square about 1e-5, where eps 1e-6 matters
       optimized(random_normal({4, 16}, 84, 0.0f, 3e-3f), decomposed_rms_norm)},
      {"const_eval_transpose_perm_inverted",  // a weight [2,3,4] folded through perm {1,2,0}
       optimized(normal({3, 4, 2}, 85),
                 [](GraphBuilder& b, ValueId x) {
                   const ValueId w = b.weight("w", {2, 3, 4}, Initializer::normal(0.0, 1.0, 86));
                   return b.add(x, b.transpose(w, {1, 2, 0}));
                 })},
      {"all_gather_chunk_order_rotated", collective(K::AllGather)},
      {"reduce_scatter_chunk_mismatch", collective(K::ReduceScatter)},
      {"all_reduce_mean_for_sum", collective(K::AllReduce)},
      {"all_reduce_over_whole_mesh", collective(K::AllReduce, {2, 2})},
      {"vjp_silu_sigmoid_only", training([](GraphBuilder& b, ValueId h) { return b.op(OpKind::Silu, {h}); })},
      {"vjp_div_denominator_sign",
       training([](GraphBuilder& b, ValueId h) {
         return b.div(h, b.weight("d", {8, 8}, Initializer::normal(2.0, 0.2, 87)));
       })},
      {"vjp_reduce_mean_undivided",
       training([](GraphBuilder& b, ValueId h) {
         return b.op(OpKind::ReduceMean, {h}, {{"axes", std::vector<int64_t>{-1}}, {"keepdim", int64_t{1}}});
       })},
      {"rsqrt_fast_approx", single_op(K::Rsqrt, {positive({256}, 88)})},
      {"layer_norm_fast_rsqrt", layer_norm_of(normal({8, 64}, 89))},
      {"rms_norm_fast_rsqrt", single_op(K::RmsNorm, {normal({8, 64}, 90), positive({64}, 91)}, {{"eps", 1e-6}})},
      {"softmax_approx_exp", softmax_probe},
      {"gelu_sigmoid_approx", gelu},
      {"softmax_no_max_subtraction",  // logits up to about 150: exp overflows without the max
       single_op(K::Softmax, {random_normal({4, 16}, 92, 0.0f, 60.0f)}, {{"axis", int64_t{-1}}})},
      {"layer_norm_eps_ignored", layer_norm_of(random_normal({4, 16}, 93, 0.0f, 2e-3f))},
      {"layer_norm_one_pass_variance", layer_norm_of(random_normal({4, 64}, 94, 300.0f, 2.0f))},
      {"embedding_grad_overwrite", embedding_training()},
      {"kv_cache_write_one_position_early", cache_append},
      {"kv_cache_stale_row", cache_append},
      {"kv_cache_wrong_head", cache_append},
      {"batch_norm_running_stats_in_training", training_batch_norm()},
      {"matmul_bf16_accumulation",  // K = 128 over a batch of 2: four 32-wide tiles
       single_op(K::Matmul, {normal({2, 4, 128}, 95), normal({2, 128, 8}, 96)})},
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
      comparators::TrainingTensors t;
      t.forward = outputs.front();
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

TEST(MutantCatalogue, HasAtLeastSeventyUniquelyNamedDescribedMutants) {
  std::set<std::string_view> names;
  for (const MutantInfo& mutant : mutant_catalogue()) {
    EXPECT_TRUE(names.insert(mutant.name).second) << "duplicate " << mutant.name;
    EXPECT_FALSE(mutant.description.empty()) << mutant.name;
    EXPECT_FALSE(mutant.mutant_class.empty()) << mutant.name;
    EXPECT_EQ(&mutant_info(mutant.id), &mutant);
  }
  EXPECT_GE(names.size(), 70u);
  EXPECT_EQ(find_mutant("no_such_mutant"), nullptr);
}

// Every class has a member (most have several), and the reference page lists every
// mutant with its class and site (docs/reference/mutation-catalogue.md).
TEST(MutantCatalogue, EveryClassHasMembersAndThePageListsEveryMutant) {
  std::map<std::string_view, int> members;
  for (const MutantInfo& mutant : mutant_catalogue()) ++members[mutant.mutant_class];
  for (std::string_view c : mutant_classes()) EXPECT_GE(members[c], 1) << "class " << c << " has no mutant";
  EXPECT_GE(mutant_classes().size(), 10u);
  std::ifstream in(MESHTEST_SOURCE_DIR "/docs/reference/mutation-catalogue.md");
  std::stringstream page;
  page << in.rdbuf();
  for (const MutantInfo& mutant : mutant_catalogue()) {
    const std::string row = "| `" + std::string(mutant.name) + "` | " + std::string(mutant.mutant_class) + " | " +
                            std::string(mutant_site_name(mutant.site)) + " |";
    EXPECT_NE(page.str().find(row), std::string::npos) << "mutation-catalogue.md has no row starting " << row;
  }
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
