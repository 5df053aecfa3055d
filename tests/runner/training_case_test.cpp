// Training cases through run_case: the forward output and every parameter
// gradient are compared and recorded, batch size 2 unless the YAML says
// otherwise, a wrong VJP rule in the compiler fails the case naming the
// parameter, a model that fits for inference can run out of device memory in
// training, the golden/device gradient sets must agree, and --optimizer-step
// compares the weights after one SGD step.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

#include "compiler/autodiff.h"
#include "core/error.h"
#include "core/graph_builder.h"
#include "core/rng.h"
#include "discovery/discovery.h"
#include "tests/common/loader_case.h"
#include "runner/pipeline/case_pipeline.h"
#include "runner/pipeline/training_steps.h"

namespace meshtest::runner {
namespace {

using reports::Outcome;

// conv -> batch_norm -> relu -> global pool -> linear (the logits), and a
// residual MLP head (`embedding`, not differentiated) whose second linear
// weight is near the identity, so an error scaling one path of the residual
// changes the direction of the first weight's gradient (PCC), not only its
// length. One weight is unused.
class TrainableLoader : public sdk::ModelLoader {
 public:
  std::vector<std::string> variants() const override { return {"small"}; }
  sdk::ModelInfo info(std::string_view v) const override { return {"trainable", std::string(v), "red", "test"}; }
  sdk::Model load_model(std::string_view, const sdk::LoadOptions& o) const override {
    last_batch = o.batch_size.value_or(1);
    const int64_t n = last_batch;
    GraphBuilder b("trainable");
    const ValueId image = b.input("image", DType::F32, {n, 3, 16, 16});
    ValueId x = b.op(OpKind::Conv2d, {image, b.weight("conv.weight", {8, 3, 3, 3}, init(0.2, "conv.weight"))},
                     {{"padding", std::vector<int64_t>{1, 1}}});
    x = b.op(OpKind::BatchNorm,
             {x, b.weight("bn.weight", {8}, Initializer::uniform(0.5, 1.5, 3)),
              b.weight("bn.bias", {8}, init(0.1, "bn.bias")), b.weight("bn.running_mean", {8}, init(0.1, "bn.rm")),
              b.weight("bn.running_var", {8}, Initializer::uniform(0.5, 1.5, 4))},
             {{"eps", 1e-5}});
    x = b.reshape(b.op(OpKind::GlobalAvgPool2d, {b.relu(x)}), {n, 8});
    const ValueId h = b.linear(x, b.weight("fc1.weight", {16, 8}, init(0.3, "fc1.weight")));
    std::vector<float> near_identity = random_normal({16, 16}, 5, 0.0f, 0.1f).to_f32_vector();
    for (int64_t i = 0; i < 16; ++i) near_identity[static_cast<size_t>(i * 16 + i)] += 1.0f;
    const ValueId y = b.sub(b.linear(h, b.weight("fc2.weight", Tensor::from_f32({16, 16}, near_identity))), h);
    b.weight("unused.weight", {4}, init(1.0, "unused"));
    b.output("logits", y);
    return {b.finish()};
  }
  sdk::Inputs load_inputs(std::string_view, const sdk::LoadOptions& o) const override {
    return {{"image", random_normal({o.batch_size.value_or(1), 3, 16, 16}, 42)}};
  }
  sdk::TrainingSpec training(std::string_view) const override { return {"logits"}; }

  static Initializer init(double stddev, const char* name) { return Initializer::normal(0, stddev, hash_seed(name)); }
  mutable int64_t last_batch = 0;
};

class TrainingCase : public ::testing::Test {
 protected:
  TrainingCase() {
    test_case.expectation.status = config::TestStatus::ExpectedPassing;
    options.compile.use_cache = false;
  }
  void TearDown() override { ::unsetenv(compiler::kWrongVjpEnv); }
  reports::CaseResult run() { return run_case(test_case, options); }

  std::shared_ptr<TrainableLoader> model = std::make_shared<TrainableLoader>();
  testing::LoaderCase one{model, "trainable/native", "small", RunMode::Training};
  TestCase& test_case = one.test_case;
  PipelineOptions options;
};

const std::vector<std::string> kTrainedWeights = {"conv.weight",    "bn.weight",  "bn.bias",   "bn.running_mean",
                                                  "bn.running_var", "fc1.weight", "fc2.weight"};

TEST_F(TrainingCase, PassesAndRecordsTheOutputAndEveryGradient) {
  const reports::CaseResult r = run();
  EXPECT_EQ(r.outcome, Outcome::Passed) << r.error_message;
  EXPECT_EQ(r.run_mode, "training");
  EXPECT_EQ(r.bringup_status, "PASSED");
  EXPECT_EQ(r.execution_pass, "");
  EXPECT_EQ(model->last_batch, kDefaultTrainingBatchSize);
  ASSERT_EQ(r.outputs.size(), 1 + kTrainedWeights.size());
  EXPECT_EQ(r.outputs[0].kind, "output");
  EXPECT_EQ(r.outputs[0].name, "logits");
  for (size_t i = 0; i < kTrainedWeights.size(); ++i) {
    const reports::OutputResult& g = r.outputs[i + 1];
    EXPECT_EQ(g.kind, "gradient");
    EXPECT_EQ(g.name, kTrainedWeights[i]);
    EXPECT_TRUE(g.passed) << g.name;
    EXPECT_GE(g.pcc, 0.99) << g.name;
  }
  EXPECT_GT(r.seconds.golden, 0.0);
  EXPECT_GT(r.device_ops, 0);
}

TEST_F(TrainingCase, SgdStepComparesEveryUpdatedWeight) {
  options.sgd_learning_rate = 0.5;
  const reports::CaseResult r = run();
  EXPECT_EQ(r.outcome, Outcome::Passed) << r.error_message;
  ASSERT_EQ(r.outputs.size(), 1 + 2 * kTrainedWeights.size());
  for (size_t i = 0; i < kTrainedWeights.size(); ++i) {
    const reports::OutputResult& u = r.outputs[1 + kTrainedWeights.size() + i];
    EXPECT_EQ(u.kind, "updated_weight");
    EXPECT_EQ(u.name, kTrainedWeights[i]);
    EXPECT_TRUE(u.passed) << u.name;
  }
}

TEST_F(TrainingCase, YamlBatchSizeOverridesTheDefault) {
  test_case.expectation.batch_size = 3;
  const reports::CaseResult r = run();
  EXPECT_EQ(r.outcome, Outcome::Passed) << r.error_message;
  EXPECT_EQ(model->last_batch, 3);
}

TEST_F(TrainingCase, WrongVjpRuleFailsNamingTheParameter) {
  ::setenv(compiler::kWrongVjpEnv, "linear", 1);
  const reports::CaseResult r = run();
  EXPECT_EQ(r.outcome, Outcome::Failed);
  EXPECT_EQ(r.bringup_status, "INCORRECT_RESULT");
  EXPECT_EQ(r.phase, "compare");
  // The autodiff check blames the compiler's backward graph, then the
  // device comparison names the parameter by PCC.
  EXPECT_EQ(r.error_message.rfind("autodiff check: gradient of ", 0), 0u) << r.error_message;
  EXPECT_NE(r.error_message.find("; gradient of "), std::string::npos) << r.error_message;
  EXPECT_NE(r.error_message.find("PCC"), std::string::npos) << r.error_message;
  EXPECT_EQ(r.execution_pass, "BACKWARD");  // the forward output is still right
  ASSERT_FALSE(r.outputs.empty());
  EXPECT_TRUE(r.outputs[0].passed);
  // The YAML's execution_pass is what the record keeps when set.
  test_case.expectation.execution_pass = "FORWARD";
  EXPECT_EQ(run().execution_pass, "FORWARD");
}

TEST_F(TrainingCase, AFailingForwardOutputIsTheForwardPass) {
  test_case.expectation.assert_atol = true;  // bf16 on the device never matches f32 exactly
  test_case.expectation.required_atol = 0.0;
  const reports::CaseResult r = run();
  EXPECT_EQ(r.outcome, Outcome::Failed);
  EXPECT_EQ(r.execution_pass, "FORWARD");
  EXPECT_EQ(r.error_message.rfind("output 'logits'", 0), 0u) << r.error_message;
}

TEST_F(TrainingCase, FitsForInferenceButRunsOutOfMemoryInTraining) {
  TestCase inference = test_case;
  inference.run_mode = RunMode::Inference;
  inference.id = "trainable/native-small-single_device-inference";
  // Planned peaks (what the compiler checks against the chip) from compile-only runs.
  options.compile.compile_only = true;
  const int64_t inference_peak = run_case(inference, options).peak_device_dram_bytes;
  const int64_t training_peak = run().peak_device_dram_bytes;
  // The joint graph keeps activations for backward and holds every gradient.
  ASSERT_GT(inference_peak, 0);
  ASSERT_GT(training_peak, inference_peak);

  options.compile.compile_only = false;
  options.chip.dram_bytes = inference_peak;
  const reports::CaseResult inferred = run_case(inference, options);
  EXPECT_EQ(inferred.outcome, Outcome::Passed) << inferred.error_message;
  const reports::CaseResult r = run();
  EXPECT_EQ(r.outcome, Outcome::Failed);
  EXPECT_EQ(r.failure_kind, reports::FailureKind::Oom);
  EXPECT_EQ(r.phase, "compile");
  EXPECT_EQ(r.bringup_status, "FAILED_TTMLIR_COMPILATION");
  EXPECT_NE(r.error_message.find("out of device DRAM"), std::string::npos) << r.error_message;
}

TEST_F(TrainingCase, CompileOnlyStopsAfterCompilingTheJointGraph) {
  options.compile.compile_only = true;
  const reports::CaseResult r = run();
  EXPECT_EQ(r.outcome, Outcome::Skipped);
  EXPECT_EQ(r.phase, "compile");
  EXPECT_GT(r.device_ops, 0);
}

TEST(TrainingOptions, OptimizerStepIsSgdWithAPositiveRate) {
  EXPECT_DOUBLE_EQ(parse_optimizer_step("sgd:0.01"), 0.01);
  EXPECT_DOUBLE_EQ(parse_optimizer_step("sgd:1e-3"), 1e-3);
  for (const char* bad : {"adam:0.01", "sgd:", "sgd:0", "sgd:-1", "sgd:0.1x", "sgd:nan", "0.01"}) {
    EXPECT_THROW(parse_optimizer_step(bad), ParseError) << bad;
  }
}

TEST(TrainingOptions, BatchTwoUnlessTheYamlSaysAndAFixedSeedGradient) {
  config::TestEntry e;
  EXPECT_EQ(training_load_options(e).batch_size, 2);
  EXPECT_FALSE(training_load_options(e).seq_len.has_value());
  e.batch_size = 8;
  e.seq_len = 16;
  EXPECT_EQ(training_load_options(e).batch_size, 8);
  EXPECT_EQ(training_load_options(e).seq_len, 16);
  EXPECT_EQ(training_seed_gradient({3, 5}).to_f32_vector(), training_seed_gradient({3, 5}).to_f32_vector());
}

}  // namespace
}  // namespace meshtest::runner
