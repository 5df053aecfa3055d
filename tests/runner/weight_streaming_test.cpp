// --stream-weights per case: on / off as given, auto by the model's weight
// bytes (above 1 GiB, or a share of the host's memory); streamed, the inference steps leave the
// model's weights lazy and ask the backend to stream; the YAML seq_len
// reaches an inference case's loader.
#include <gtest/gtest.h>

#include "core/graph_builder.h"
#include "runner/pipeline/inference_steps.h"
#include "runner/pipeline/weight_streaming.h"

namespace meshtest::runner {
namespace {

// 1000 f32 weight elements: 4000 bytes.
Graph small_model() {
  GraphBuilder b("m");
  const ValueId x = b.input("x", DType::F32, {2, 10});
  b.output("y", b.linear(x, b.weight("w", {100, 10}, Initializer::normal(0, 1, 1))));
  return b.finish();
}

TEST(WeightStreaming, OnAndOffAsGivenAutoByTheModelAgainstTheHost) {
  const Graph g = small_model();
  EXPECT_EQ(weight_bytes(g), 4000);
  EXPECT_TRUE(streams_weights(WeightStreaming::On, g, int64_t{1} << 40));
  EXPECT_FALSE(streams_weights(WeightStreaming::Off, g, 1));
  EXPECT_TRUE(streams_weights(WeightStreaming::Auto, g, 9000));    // 4000 > 40% of 9000
  EXPECT_FALSE(streams_weights(WeightStreaming::Auto, g, 11000));  // 4000 < 40% of 11000
}

// Above 1 GiB of weights auto streams whatever the host's memory (faster
// than loading: recycled buffers instead of fresh pages); at or below, a
// large host loads them.
TEST(WeightStreaming, AutoStreamsEveryModelAboveOneGibibyte) {
  GraphBuilder b("big");
  const ValueId x = b.input("x", DType::F32, {2, 16384});
  b.output("y", b.linear(x, b.weight("w", {16384 + 1, 16384}, Initializer::normal(0, 1, 1))));
  const Graph big = b.finish();
  EXPECT_GT(weight_bytes(big), kStreamWeightsAboveBytes);
  EXPECT_TRUE(streams_weights(WeightStreaming::Auto, big, int64_t{1} << 40));
  GraphBuilder s("at_limit");
  const ValueId y = s.input("x", DType::F32, {2, 16384});
  s.output("y", s.linear(y, s.weight("w", {16384, 16384}, Initializer::normal(0, 1, 1))));
  const Graph at_limit = s.finish();
  EXPECT_EQ(weight_bytes(at_limit), kStreamWeightsAboveBytes);
  EXPECT_FALSE(streams_weights(WeightStreaming::Auto, at_limit, int64_t{1} << 40));
}

TEST(WeightStreaming, StreamedInferenceKeepsTheWeightsLazy) {
  for (const WeightStreaming setting : {WeightStreaming::On, WeightStreaming::Off}) {
    PipelineOptions options;
    options.compile.stream_weights = setting;
    const std::unique_ptr<RunModeSteps> steps = inference_steps({}, options);
    sdk::Model model;
    model.graph = small_model();
    steps->model_loaded(model);
    const bool on = setting == WeightStreaming::On;
    EXPECT_EQ(steps->stream_weights(), on);
    EXPECT_EQ(model.graph.find_param("w")->data.defined(), !on);
  }
}

// Auto below the threshold: the golden's weights are made at load, and the
// chips convert their copies on read (streamed from the held weights).
TEST(WeightStreaming, AutoSmallModelHoldsTheWeightsAndTheChipsConvertOnRead) {
  PipelineOptions options;
  options.compile.stream_weights = WeightStreaming::Auto;
  const std::unique_ptr<RunModeSteps> steps = inference_steps({}, options);
  sdk::Model model;
  model.graph = small_model();
  steps->model_loaded(model);
  EXPECT_TRUE(steps->stream_weights());
  EXPECT_TRUE(model.graph.find_param("w")->data.defined());
  // A perf run times repeated executions: its chips convert once, up front.
  options.perf_iterations = 3;
  const std::unique_ptr<RunModeSteps> perf = inference_steps({}, options);
  sdk::Model perf_model;
  perf_model.graph = small_model();
  perf->model_loaded(perf_model);
  EXPECT_FALSE(perf->stream_weights());
  EXPECT_TRUE(perf_model.graph.find_param("w")->data.defined());
}

TEST(WeightStreaming, InferenceTakesTheYamlSequenceLength) {
  TestCase c;
  EXPECT_FALSE(inference_load_options(c).seq_len.has_value());
  c.expectation.seq_len = 32;  // the real-size cases' 32 tokens
  EXPECT_EQ(inference_load_options(c).seq_len, 32);
}

}  // namespace
}  // namespace meshtest::runner
