// --stream-weights per case: on / off as given, auto by the model's weight
// bytes against the host's memory; streamed, the inference steps leave the
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

TEST(WeightStreaming, InferenceTakesTheYamlSequenceLength) {
  TestCase c;
  EXPECT_FALSE(inference_load_options(c).seq_len.has_value());
  c.expectation.seq_len = 32;  // the real-size cases' 32 tokens
  EXPECT_EQ(inference_load_options(c).seq_len, 32);
}

}  // namespace
}  // namespace meshtest::runner
