// Inputs replaced from $MESHTEST_INPUTS_DIR/<variant>.safetensors.
#include "runner/pipeline/input_file.h"

#include "core/error.h"
#include "core/safetensors.h"

namespace meshtest::runner {

void apply_input_file(std::string_view variant, sdk::Inputs& inputs) {
  const std::optional<std::string> path = variant_safetensors_file("MESHTEST_INPUTS_DIR", variant);
  if (!path) return;
  for (const auto& [name, t] : read_safetensors(*path)) {
    const auto it = inputs.find(name);
    if (it == inputs.end()) {
      std::string known;
      for (const auto& [input, generated] : inputs) known += (known.empty() ? "" : ", ") + input;
      throw Error(*path + ": tensor '" + name + "' names no input of the model (its inputs: " + known + ")");
    }
    it->second = fit_declared(*path, "input", name, t, it->second.dtype(), it->second.shape());
  }
}

}  // namespace meshtest::runner
