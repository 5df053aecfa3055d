// Batch norm in training cases (models/common/batch_norm.h): the training run
// mode loads the training form (batch statistics, running statistics updated
// as outputs); its forward, gradients and running-statistics update agree
// with PyTorch's BatchNorm2d in train() (hand-computed here); running
// statistics are buffers, never in the gradient set (a loader that gives one
// a gradient fails the case); and a device that normalises with the running
// statistics in training (the batch_norm_running_stats_in_training mutant)
// fails the case.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "compiler/autodiff.h"
#include "core/graph_builder.h"
#include "core/mutation.h"
#include "core/rng.h"
#include "models/common/batch_norm.h"
#include "runner/pipeline/case_pipeline.h"
#include "runner/pipeline/training_steps.h"
#include "runtime/reference/reference_backward.h"
#include "tests/common/loader_case.h"

namespace meshtest::runner {
namespace {

using reports::Outcome;

const std::string kMeanOutput = std::string(sdk::kUpdatedBufferPrefix) + "bn.running_mean";
const std::string kVarOutput = std::string(sdk::kUpdatedBufferPrefix) + "bn.running_var";

// conv -> batch_norm -> relu -> global pool -> linear. Variant "leaky" has a
// buffer (updated as an output) that is also added to the logits: a loader
// bug that would train a buffer.
class BatchNormLoader : public sdk::ModelLoader {
 public:
  std::vector<std::string> variants() const override { return {"small", "leaky"}; }
  sdk::ModelInfo info(std::string_view v) const override { return {"bn_net", std::string(v), "red", "test"}; }
  sdk::Model load_model(std::string_view variant, const sdk::LoadOptions& o) const override {
    const int64_t n = o.batch_size.value_or(1);
    GraphBuilder b("bn_net");
    models::LayerContext ctx{b, "bn_net", DType::F32, o.training};
    const ValueId image = b.input("image", DType::F32, {n, 3, 8, 8});
    ValueId x = b.op(OpKind::Conv2d, {image, b.weight("conv.weight", {8, 3, 3, 3}, Initializer::normal(0, 0.3, 1))},
                     {{"padding", std::vector<int64_t>{1, 1}}});
    x = b.relu(models::batch_norm(ctx, "bn", x));
    x = b.reshape(b.op(OpKind::GlobalAvgPool2d, {x}), {n, 8});
    ValueId logits = b.linear(x, b.weight("fc.weight", {4, 8}, Initializer::normal(0, 0.5, 2)));
    if (variant == "leaky" && o.training) {  // a buffer that also feeds the trained output
      const ValueId buffer = b.weight("head.running_mean", {4}, Initializer::normal(0, 0.1, 3));
      b.output(std::string(sdk::kUpdatedBufferPrefix) + "head.running_mean", b.mul(buffer, b.constant(0.9)));
      logits = b.add(logits, buffer);
    }
    b.output("logits", logits);
    return {b.finish()};
  }
  sdk::Inputs load_inputs(std::string_view, const sdk::LoadOptions& o) const override {
    return {{"image", random_normal({o.batch_size.value_or(1), 3, 8, 8}, 42, 0.5f, 1.0f)}};
  }
  sdk::TrainingSpec training(std::string_view) const override { return {"logits"}; }
};

class TrainingBatchNorm : public ::testing::Test {
 protected:
  TrainingBatchNorm() {
    test_case.expectation.status = config::TestStatus::ExpectedPassing;
    options.compile.use_cache = false;
  }
  reports::CaseResult run() { return run_case(test_case, options); }

  std::shared_ptr<BatchNormLoader> model = std::make_shared<BatchNormLoader>();
  testing::LoaderCase one{model, "bn_net/native", "small", RunMode::Training};
  TestCase& test_case = one.test_case;
  PipelineOptions options;
};

std::vector<std::string> names_of_kind(const reports::CaseResult& r, const std::string& kind) {
  std::vector<std::string> names;
  for (const reports::OutputResult& o : r.outputs) {
    if (o.kind == kind) names.push_back(o.name);
  }
  return names;
}

TEST_F(TrainingBatchNorm, TrainingLoadsTheTrainingForm) {
  EXPECT_TRUE(training_load_options(config::TestEntry{}).training);
  const sdk::Model train = model->load_model("small", training_load_options(config::TestEntry{}));
  ASSERT_EQ(train.graph.outputs.size(), 3u);
  EXPECT_EQ(train.graph.outputs[0].name, kMeanOutput);
  EXPECT_EQ(train.graph.outputs[1].name, kVarOutput);
  const sdk::Model eval = model->load_model("small", sdk::LoadOptions{});
  EXPECT_EQ(eval.graph.outputs.size(), 1u);
}

TEST_F(TrainingBatchNorm, RunningStatisticsAreComparedAsOutputsAndNeverGetAGradient) {
  const reports::CaseResult r = run();
  EXPECT_EQ(r.outcome, Outcome::Passed) << r.error_message;
  EXPECT_EQ(names_of_kind(r, "gradient"), (std::vector<std::string>{"conv.weight", "bn.weight", "bn.bias", "fc.weight"}));
  EXPECT_EQ(names_of_kind(r, "buffer_update"), (std::vector<std::string>{"bn.running_mean", "bn.running_var"}));
  for (const reports::OutputResult& o : r.outputs) EXPECT_TRUE(o.passed) << o.kind << " " << o.name;
}

// The inference form differentiates the running statistics as weights: what
// the training form must not do, and what the case refuses when a loader does.
TEST_F(TrainingBatchNorm, ARunningStatisticWithAGradientFailsTheCase) {
  const sdk::Model eval = model->load_model("small", sdk::LoadOptions{});
  const compiler::TrainingGraph inference_form = compiler::build_training_graph(eval.graph, "logits");
  EXPECT_NE(std::find(inference_form.with_gradient.begin(), inference_form.with_gradient.end(), "bn.running_mean"),
            inference_form.with_gradient.end());

  testing::LoaderCase leaky{model, "bn_net/native", "leaky", RunMode::Training};
  leaky.test_case.expectation.status = config::TestStatus::ExpectedPassing;
  const reports::CaseResult r = run_case(leaky.test_case, options);
  EXPECT_EQ(r.outcome, Outcome::Failed);
  EXPECT_NE(r.error_message.find("buffer 'head.running_mean'"), std::string::npos) << r.error_message;
  EXPECT_NE(r.error_message.find("receives a gradient"), std::string::npos) << r.error_message;
}

TEST_F(TrainingBatchNorm, RunningStatisticsInTheTrainingForwardFailTheCase) {
  const ScopedMutant mutant(MutantId::BatchNormRunningStatsInTraining);
  const reports::CaseResult r = run();
  EXPECT_EQ(r.outcome, Outcome::Failed);
  EXPECT_EQ(r.bringup_status, "INCORRECT_RESULT");
}

// PyTorch's BatchNorm2d in train(), momentum 0.1, written out in f64 for one
// [N,C,H,W] input: y = (x - mean) / sqrt(var + eps) * gamma + beta with the
// biased batch variance; running = 0.9 running + 0.1 batch (variance
// unbiased); dx = gamma r / n (n dy - sum dy - xhat sum(dy xhat)).
struct PyTorchBatchNorm {
  std::vector<double> y, dx, dgamma, dbeta, running_mean, running_var;
};

PyTorchBatchNorm pytorch_batch_norm(const Shape& s, const std::vector<float>& x, const std::vector<float>& dy,
                                    const std::vector<float>& gamma, const std::vector<float>& beta,
                                    const std::vector<float>& rm, const std::vector<float>& rv, double eps) {
  const int64_t n_ = s[0], c_ = s[1], plane = s[2] * s[3];
  const double n = static_cast<double>(n_ * plane);
  PyTorchBatchNorm out;
  out.y.resize(x.size());
  out.dx.resize(x.size());
  auto at = [&](int64_t b, int64_t c, int64_t i) { return static_cast<size_t>((b * c_ + c) * plane + i); };
  for (int64_t c = 0; c < c_; ++c) {
    double mean = 0, var = 0;
    for (int64_t b = 0; b < n_; ++b)
      for (int64_t i = 0; i < plane; ++i) mean += x[at(b, c, i)];
    mean /= n;
    for (int64_t b = 0; b < n_; ++b)
      for (int64_t i = 0; i < plane; ++i) var += (x[at(b, c, i)] - mean) * (x[at(b, c, i)] - mean);
    var /= n;
    const double r = 1.0 / std::sqrt(var + eps);
    double sum_dy = 0, sum_dy_xhat = 0;
    for (int64_t b = 0; b < n_; ++b) {
      for (int64_t i = 0; i < plane; ++i) {
        const double xhat = (x[at(b, c, i)] - mean) * r;
        out.y[at(b, c, i)] = xhat * gamma[c] + beta[c];
        sum_dy += dy[at(b, c, i)];
        sum_dy_xhat += dy[at(b, c, i)] * xhat;
      }
    }
    for (int64_t b = 0; b < n_; ++b) {
      for (int64_t i = 0; i < plane; ++i) {
        const double xhat = (x[at(b, c, i)] - mean) * r;
        out.dx[at(b, c, i)] = gamma[c] * r / n * (n * dy[at(b, c, i)] - sum_dy - xhat * sum_dy_xhat);
      }
    }
    out.dgamma.push_back(sum_dy_xhat);
    out.dbeta.push_back(sum_dy);
    out.running_mean.push_back(0.9 * rm[c] + 0.1 * mean);
    out.running_var.push_back(0.9 * rv[c] + 0.1 * var * n / (n - 1));
  }
  return out;
}

void expect_near_all(const std::vector<double>& want, const Tensor& got, const std::string& what) {
  const std::vector<float> g = got.to_f32_vector();
  ASSERT_EQ(g.size(), want.size()) << what;
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(g[i], want[i], 2e-5 * (1 + std::fabs(want[i]))) << what << "[" << i << "]";
}

// Both f32 backward passes (the reference's own, and the compiler's autodiff
// graph run on the reference) against the f64 formulas. The gradient of x is
// read as the gradient of a weight the input is added to.
TEST(TrainingBatchNormSemantics, ForwardGradientsAndRunningStatisticsAreBatchNorm2dInTrain) {
  const Shape shape{3, 2, 2, 3};
  GraphBuilder b("bn");
  models::LayerContext ctx{b, "bn", DType::F32, true};
  const Tensor x_data = random_normal(shape, 11, 1.5f, 2.0f);
  const ValueId x = b.add(b.input("zero", DType::F32, shape), b.weight("x", x_data));
  models::BatchNormInit init;
  b.output("y", models::batch_norm(ctx, "bn", x, init));
  Graph g = b.finish();
  g.materialize_weights();
  const std::vector<std::string> kept = {kMeanOutput, kVarOutput};
  const Tensor seed = random_normal(shape, 12);
  const runtime::NamedTensors in = {{"zero", Tensor::from_f32(shape, std::vector<float>(18 * 2, 0.0f))}};
  const runtime::ReferenceTraining golden = runtime::run_reference_training(g, in, "y", seed, {}, kept);

  auto data = [&](const std::string& name) { return g.find_param(name)->data.to_f32_vector(); };
  const PyTorchBatchNorm want = pytorch_batch_norm(shape, x_data.to_f32_vector(), seed.to_f32_vector(),
                                                   data("bn.weight"), data("bn.bias"), data("bn.running_mean"),
                                                   data("bn.running_var"), init.eps);
  EXPECT_EQ(golden.with_gradient, (std::vector<std::string>{"x", "bn.weight", "bn.bias"}));
  EXPECT_EQ(golden.without_gradient, (std::vector<std::string>{"bn.running_mean", "bn.running_var"}));
  expect_near_all(want.y, golden.forward, "y");
  expect_near_all(want.dx, golden.gradients[0], "reference dx");
  expect_near_all(want.dgamma, golden.gradients[1], "reference dgamma");
  expect_near_all(want.dbeta, golden.gradients[2], "reference dbeta");
  ASSERT_EQ(golden.kept.size(), 2u);
  expect_near_all(want.running_mean, golden.kept[0], "running_mean");
  expect_near_all(want.running_var, golden.kept[1], "running_var");

  const compiler::TrainingGraph t = compiler::build_training_graph(g, "y", kept);
  EXPECT_EQ(t.with_gradient, golden.with_gradient);
  runtime::NamedTensors feeds = in;
  feeds[compiler::kSeedGradientInput] = seed;
  const std::vector<Tensor> autodiff = runtime::run_reference(t.graph, feeds);
  ASSERT_EQ(autodiff.size(), 1 + 3 + 2u);
  expect_near_all(want.dx, autodiff[1], "autodiff dx");
  expect_near_all(want.dgamma, autodiff[2], "autodiff dgamma");
  expect_near_all(want.dbeta, autodiff[3], "autodiff dbeta");
  expect_near_all(want.running_mean, autodiff[4], "autodiff running_mean");
  expect_near_all(want.running_var, autodiff[5], "autodiff running_var");
}

}  // namespace
}  // namespace meshtest::runner
