// Weight binding from a safetensors file ($MESHTEST_WEIGHTS_DIR).
#include "models/common/safetensors.h"

#include <iostream>

#include "core/error.h"
#include "models/common/known_extra_tensors.h"

namespace meshtest::models {

std::optional<std::string> weights_file(std::string_view variant) {
  return variant_safetensors_file("MESHTEST_WEIGHTS_DIR", variant);
}

void load_weights(Graph& graph, const std::string& path) {
  std::map<std::string, Tensor> tensors = read_safetensors(path);
  for (Param& p : graph.params) {
    if (p.kind != ParamKind::Weight) continue;
    const TensorType& declared = graph.type(p.value);
    const auto it = tensors.find(p.name);
    if (it == tensors.end()) throw Error(path + ": no tensor for weight '" + p.name + "'");
    p.data = fit_declared(path, "weight", p.name, it->second, declared.dtype, declared.shape);
    p.init.reset();
    tensors.erase(it);
  }
  std::string ignored;
  for (const auto& [name, t] : tensors) {
    if (!is_known_extra_tensor(name)) {
      throw Error(path + ": tensor '" + name +
                  "' is not a weight of the model (nor a known extra tensor: docs/explanation/device-numerics.md)");
    }
    ignored += (ignored.empty() ? "" : ", ") + name;
  }
  if (!ignored.empty()) {
    std::cerr << "warning: " << path << ": ignored " << tensors.size() << " known extra tensor"
              << (tensors.size() == 1 ? "" : "s") << ": " << ignored << "\n";
  }
}

sdk::Model finish_model(GraphBuilder& builder, std::string_view variant) {
  sdk::Model model{builder.finish()};
  if (const auto file = weights_file(variant)) load_weights(model.graph, *file);
  return model;
}

}  // namespace meshtest::models
