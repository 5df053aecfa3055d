// Example loader from outside the meshtest tree: a two-layer classifier over
// 64 features, built only with the installed SDK (core + loader_sdk.h).
#include "core/graph_builder.h"
#include "core/rng.h"
#include "discovery/loader_sdk.h"

namespace {

using namespace meshtest;

class TinyClassifierLoader : public sdk::ModelLoader {
 public:
  std::vector<std::string> variants() const override { return {"small"}; }

  sdk::ModelInfo info(std::string_view variant) const override {
    return {"tiny_classifier", std::string(variant), "generality", "cv_image_cls", "example", "native"};
  }

  sdk::Model load_model(std::string_view variant, const sdk::LoadOptions& options) const override {
    const int64_t batch = options.batch_size.value_or(2);
    GraphBuilder b("tiny_classifier");
    const ValueId x = b.input("features", DType::F32, {batch, 64});
    const ValueId w1 = b.weight("fc1.weight", {128, 64}, Initializer::normal(0, 0.18, hash_seed("example/fc1.weight")));
    // A trained-looking bias (as the zoo's init::bias) keeps pre-activations off the ReLU kink,
    // where bf16 rounding flips whole rows of the fc1 gradient (training case: PCC 0.989 with zeros).
    const ValueId b1 = b.weight("fc1.bias", {128}, Initializer::normal(0, 0.5, hash_seed("example/fc1.bias")));
    const ValueId w2 = b.weight("fc2.weight", {10, 128}, Initializer::normal(0, 0.125, hash_seed("example/fc2.weight")));
    b.output("logits", b.linear(b.relu(b.linear(x, w1, b1)), w2));
    return {b.finish()};
  }

  sdk::Inputs load_inputs(std::string_view variant, const sdk::LoadOptions& options) const override {
    return {{"features", random_normal({options.batch_size.value_or(2), 64}, hash_seed("example/features"))}};
  }
};

}  // namespace

MESHTEST_EXPORT_LOADER(TinyClassifierLoader)
