// The golden follows the device's top-k routing (runner/pipeline/
// device_routing.h): on a router whose experts lie within bf16's resolution of
// each other, the golden's own choices differ from the device's on many rows
// and the outputs fail (PCC far below 0.99) unless the golden follows the
// device; following, they agree, the case passes through run_case and records
// how many choices it followed. The checks that keep a wrong device from
// hiding behind it fail when they should: a mask that is not the top-k of the
// chip's own operand, and router probabilities that drifted.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <sstream>

#include "comparators/metrics.h"
#include "core/graph_builder.h"
#include "core/rng.h"
#include "core/sharding.h"
#include "discovery/discovery.h"
#include "runner/engine/console_report.h"
#include "runner/pipeline/case_pipeline.h"
#include "runner/pipeline/compile_phase.h"
#include "runner/pipeline/device_routing.h"
#include "runtime/reference/reference_executor.h"
#include "tests/common/loader_case.h"

namespace meshtest::runner {
namespace {

using reports::Outcome;

constexpr int64_t kRows = 512;
constexpr int64_t kHidden = 16;
constexpr int64_t kExperts = 8;
constexpr int64_t kOut = 32;

// x -> linear(gate) -> softmax -> top-2 mask -> renormalised weights -> the
// chosen experts' vectors mixed (matmul with [experts, out]). The gate is
// small, so the 8 probabilities sit near 1/8 and bf16 (8 significant bits)
// ties or reorders many of them: the device chooses other experts than the
// f32 golden on a large share of rows.
class RouterLoader : public sdk::ModelLoader {
 public:
  std::vector<std::string> variants() const override { return {"near_ties"}; }
  sdk::ModelInfo info(std::string_view v) const override { return {"router", std::string(v), "red", "test"}; }
  sdk::Model load_model(std::string_view, const sdk::LoadOptions&) const override {
    GraphBuilder b("router");
    const ValueId x = b.input("x", DType::F32, {kRows, kHidden});
    const ValueId logits =
        b.linear(x, b.weight("moe.gate.weight", {kExperts, kHidden}, Initializer::normal(0, 0.02, hash_seed("gate"))));
    const ValueId probs = b.softmax(logits, -1);
    const ValueId mask = b.op(OpKind::TopkMask, {probs}, {{"k", int64_t{2}}, {"axis", int64_t{1}}});
    ValueId w = b.mul(probs, mask);
    w = b.div(w, b.op(OpKind::ReduceSum, {w}, {{"axes", std::vector<int64_t>{1}}, {"keepdim", int64_t{1}}}));
    const ValueId experts =
        b.weight("moe.experts.weight", {kExperts, kOut}, Initializer::normal(0, 1.0, hash_seed("experts")));
    b.output("y", b.op(OpKind::Matmul, {w, experts}));
    return {b.finish()};
  }
  sdk::Inputs load_inputs(std::string_view, const sdk::LoadOptions&) const override {
    return {{"x", random_normal({kRows, kHidden}, 7)}};
  }
  sdk::TrainingSpec training(std::string_view) const override { return {"y"}; }
};

struct DeviceRun {
  sdk::Model model;
  sdk::Inputs inputs;
  std::vector<Tensor> device;
};

// Compiles and runs the model on one simulated chip, `routing` watching.
DeviceRun run_on_device(DeviceRouting& routing) {
  RouterLoader loader;
  DeviceRun run{loader.load_model("near_ties", {}), loader.load_inputs("near_ties", {}), {}};
  run.model.graph.materialize_weights();
  CompileSettings settings;
  settings.use_cache = false;
  CompiledCase compiled = compile_graph(run.model.graph, settings, CompileTarget{});
  EXPECT_TRUE(compiled.backend->observe_ops(*compiled.executable,
                                            [&routing](const backend::OpExecution& e) { routing.observe(e); }));
  backend::MemoryStats stats;
  run.device = compiled.backend->execute(*compiled.executable, run.inputs, stats);
  return run;
}

double pcc(const Tensor& device, const Tensor& golden) {
  return comparators::compare_tensors("y", device, golden, comparators::ComparisonConfig{}).pcc;
}

TEST(DeviceRouting, TheGoldenFollowsTheDevicesNearTiesAndOnlyThenAgrees) {
  DeviceRouting routing;
  const DeviceRun run = run_on_device(routing);
  const std::vector<Tensor> own = runtime::run_reference(run.model.graph, run.inputs);
  const std::vector<Tensor> followed =
      runtime::run_reference(run.model.graph, run.inputs, routing.golden_hook(run.model.graph));
  EXPECT_EQ(routing.device_failure(), "");
  ASSERT_EQ(routing.routers().size(), 1u);
  const RouterComparison& r = routing.routers()[0];
  EXPECT_EQ(r.name, "moe.gate");
  EXPECT_TRUE(r.device_mask_used);
  EXPECT_EQ(r.rows, kRows);
  EXPECT_GT(r.followed, kRows / 20) << "the model should make bf16 flip many choices";
  EXPECT_LT(pcc(run.device[0], own[0]), 0.99) << "its own choices: the honest device fails";
  EXPECT_GT(pcc(run.device[0], followed[0]), 0.999) << "the device's choices: it agrees";
  const RouterVerdict verdict = compare_routers(routing.routers(), comparators::ComparisonConfig{});
  EXPECT_EQ(verdict.failure, "");
  ASSERT_EQ(verdict.metrics.size(), 1u);
  EXPECT_GT(verdict.metrics[0].pcc, 0.99);
}

TEST(DeviceRouting, RouterProbabilitiesThatDriftedFail) {
  DeviceRouting routing;
  const DeviceRun run = run_on_device(routing);
  runtime::run_reference(run.model.graph, run.inputs, routing.golden_hook(run.model.graph));
  std::vector<RouterComparison> drifted = routing.routers();
  drifted[0].device = random_normal(drifted[0].device.shape(), 3, 0.125f, 0.01f);  // other probabilities
  const RouterVerdict verdict = compare_routers(drifted, comparators::ComparisonConfig{});
  EXPECT_NE(verdict.failure.find("router moe.gate"), std::string::npos) << verdict.failure;
}

// A chip's mask that is not the top-k of its own operand (here: the top-1
// only, as the mutant topk_mask_one_short) is a device failure by itself,
// whatever the golden would have chosen.
TEST(DeviceRouting, AMaskThatIsNotTheTopKOfItsOwnOperandFails) {
  DeviceRouting routing;
  const Tensor operand = random_normal({4, kExperts}, 11);
  const Attrs top2{{"k", int64_t{2}}, {"axis", int64_t{1}}};
  const Tensor top1 = runtime::run_reference_op(Op{OpKind::TopkMask, {}, kNoValue, {{"k", int64_t{1}}, {"axis", int64_t{1}}}},
                                                {operand});
  DeviceProgram program;
  DeviceInstr instr{OpKind::TopkMask, {}, -1, top2, "op #3 topk_mask", {}};
  const std::vector<const Tensor*> operands{&operand};
  routing.observe(backend::OpExecution{1, 0, program, instr, operands, top1});
  EXPECT_EQ(routing.device_failure(),
            "device op #3 topk_mask on chip 1: 4 of 4 rows select other entries than the top-2 of its own operand");
}

// Data parallel: each chip routes its own rows. The shards are placed by
// their probabilities (here chip 0 holds the second block and chip 1 the
// first), assembled, and the golden follows the one row where the device's
// probabilities order the 2nd and 3rd expert the other way.
TEST(DeviceRouting, ShardsOfASplitMaskArePlacedByTheirOwnRowsAndFollowed) {
  GraphBuilder b("split");
  const ValueId x = b.input("x", DType::F32, {4, kExperts});
  const ValueId probs = b.softmax(x, -1);
  const Attrs top2{{"k", int64_t{2}}, {"axis", int64_t{1}}};
  b.output("y", b.mul(probs, b.op(OpKind::TopkMask, {probs}, top2)));
  const Graph graph = b.finish();
  const Tensor input = random_normal({4, kExperts}, 5);
  const Tensor golden_probs = runtime::run_reference_op(Op{OpKind::Softmax, {}, kNoValue, {{"axis", int64_t{-1}}}}, {input});
  // The device's probabilities: the golden's, with row 3's 2nd and 3rd largest swapped.
  std::vector<float> device_values = golden_probs.to_f32_vector();
  float* row3 = device_values.data() + 3 * kExperts;
  std::vector<int64_t> order(kExperts);
  for (int64_t i = 0; i < kExperts; ++i) order[static_cast<size_t>(i)] = i;
  std::sort(order.begin(), order.end(), [&](int64_t a, int64_t c) { return row3[a] > row3[c]; });
  std::swap(row3[order[1]], row3[order[2]]);
  const Tensor device_probs = Tensor::from_f32({4, kExperts}, device_values);
  const Tensor first = slice_block(device_probs, 0, 0, 2), second = slice_block(device_probs, 0, 1, 2);
  const Op topk{OpKind::TopkMask, {}, kNoValue, top2};
  const Tensor first_mask = runtime::run_reference_op(topk, {first});
  const Tensor second_mask = runtime::run_reference_op(topk, {second});
  DeviceProgram program;
  DeviceInstr instr{OpKind::TopkMask, {}, -1, top2, "op #1 topk_mask", {}};
  DeviceRouting routing;
  const std::vector<const Tensor*> chip0{&second}, chip1{&first};
  routing.observe(backend::OpExecution{0, 0, program, instr, chip0, second_mask});
  routing.observe(backend::OpExecution{1, 0, program, instr, chip1, first_mask});
  const std::vector<Tensor> followed = runtime::run_reference(graph, {{"x", input}}, routing.golden_hook(graph));
  EXPECT_EQ(routing.device_failure(), "");
  ASSERT_EQ(routing.routers().size(), 1u);
  EXPECT_TRUE(routing.routers()[0].device_mask_used);
  EXPECT_EQ(routing.routers()[0].rows, 4);
  EXPECT_EQ(routing.routers()[0].followed, 1);
  const Tensor device_mask = runtime::run_reference_op(topk, {device_probs});
  const Tensor expected = runtime::run_reference_op(Op{OpKind::Mul, {}, kNoValue, {}}, {golden_probs, device_mask});
  EXPECT_EQ(followed[0].to_f32_vector(), expected.to_f32_vector());
}

// Through the pipeline: the case passes, its golden ran after the device, and
// the record counts the choices and the router's probabilities as an output.
TEST(DeviceRouting, ACaseThatRoutesPassesAndRecordsTheChoicesFollowed) {
  testing::LoaderCase one{std::make_shared<RouterLoader>(), "router/native", "near_ties", RunMode::Inference};
  TestCase& test_case = one.test_case;
  test_case.expectation.status = config::TestStatus::ExpectedPassing;
  PipelineOptions options;
  options.compile.use_cache = false;
  const reports::CaseResult r = run_case(test_case, options);
  EXPECT_EQ(r.outcome, Outcome::Passed) << r.error_message;
  EXPECT_EQ(r.routing_rows, kRows);
  EXPECT_GT(r.routing_followed, kRows / 20);
  ASSERT_EQ(r.outputs.size(), 2u);
  EXPECT_EQ(r.outputs[0].kind, "output");
  EXPECT_EQ(r.outputs[1].kind, "router");
  EXPECT_EQ(r.outputs[1].name, "moe.gate");
  EXPECT_GT(r.outputs[0].pcc, 0.999);
  std::ostringstream console;
  print_case_line(console, r);
  EXPECT_NE(console.str().find("routing: the golden followed the device in " + std::to_string(r.routing_followed) +
                               " of 512 top-k choices where its own differed"),
            std::string::npos)
      << console.str();
}

// Training: the forward follows the device's choices, and so does the
// autodiff check's run of the compiler's joint graph, so the expert and
// router gradients compare (the golden's own choices send a row's gradient
// to other experts).
TEST(DeviceRouting, ATrainingCaseThatRoutesPassesWithEveryGradient) {
  testing::LoaderCase one{std::make_shared<RouterLoader>(), "router/native", "near_ties", RunMode::Training};
  one.test_case.expectation.status = config::TestStatus::ExpectedPassing;
  PipelineOptions options;
  options.compile.use_cache = false;
  const reports::CaseResult r = run_case(one.test_case, options);
  EXPECT_EQ(r.outcome, Outcome::Passed) << r.error_message;
  EXPECT_GT(r.routing_followed, 0);
  bool router_recorded = false;
  for (const reports::OutputResult& o : r.outputs) router_recorded |= o.kind == "router";
  EXPECT_TRUE(router_recorded);
}

}  // namespace
}  // namespace meshtest::runner
