// MNIST image classifier: a 784-512-512-10 ReLU MLP (variant "mlp") with
// PyTorch nn.Linear names fc1/fc2/fc3 and nn.Linear's default initialisation.
// Input "image" [B,1,28,28] is flattened in-graph; output "logits" [B,10].
#include <string>

#include "core/error.h"
#include "core/graph_builder.h"
#include "core/rng.h"
#include "discovery/loader_sdk.h"
#include "models/common/init.h"
#include "models/common/linear.h"
#include "models/common/load_options.h"
#include "models/common/safetensors.h"
#include "models/common/variant_table.h"

namespace meshtest::models {
namespace {

constexpr const char* kLoader = "mnist/image_classification/native";
constexpr int64_t kPixels = 28 * 28;
constexpr int64_t kHidden = 512;
constexpr int64_t kClasses = 10;

struct MnistConfig {
  const char* name;
};

constexpr MnistConfig kConfigs[] = {{"mlp"}};
constexpr LoaderFamily kFamily{kLoader, "mnist", "generality", "cv_image_cls", "meshtest"};

class MnistLoader final : public TableLoader<MnistConfig> {
 public:
  MnistLoader() : TableLoader(kConfigs, kFamily) {}

  sdk::Model load_model(std::string_view variant, const sdk::LoadOptions& options) const override {
    config(variant);
    const DType dtype = model_dtype(options, kLoader);
    const int64_t batch = option_in_range(options.batch_size, 1, 1, 1 << 16, "batch_size", kLoader);
    GraphBuilder b("mnist_" + std::string(variant));
    LayerContext ctx{b, std::string(variant), dtype};
    ValueId x = b.input("image", dtype, {batch, 1, 28, 28});
    x = b.reshape(x, {batch, kPixels});
    x = b.relu(linear(ctx, "fc1", x, kHidden, torch_default_linear_init(kPixels)));
    x = b.relu(linear(ctx, "fc2", x, kHidden, torch_default_linear_init(kHidden)));
    x = linear(ctx, "fc3", x, kClasses, torch_default_linear_init(kHidden));
    b.output("logits", x);
    return finish_model(b, variant);
  }

  sdk::Inputs load_inputs(std::string_view variant, const sdk::LoadOptions& options) const override {
    config(variant);
    const DType dtype = model_dtype(options, kLoader);
    const int64_t batch = option_in_range(options.batch_size, 1, 1, 1 << 16, "batch_size", kLoader);
    // Normalised pixel intensities, as after transforms.Normalize.
    sdk::Inputs inputs;
    inputs["image"] = float_input(random_normal({batch, 1, 28, 28}, input_seed(variant, "image")), dtype);
    return inputs;
  }
};

}  // namespace
}  // namespace meshtest::models

MESHTEST_EXPORT_LOADER(meshtest::models::MnistLoader)
