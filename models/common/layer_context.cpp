// LayerContext: named, seeded, lazily initialised weights.
#include "models/common/layer_context.h"

#include "models/common/init.h"

namespace meshtest::models {

std::string join_name(std::string_view prefix, std::string_view name) {
  if (prefix.empty()) return std::string(name);
  std::string out(prefix);
  out += '.';
  out += name;
  return out;
}

ValueId LayerContext::weight(const std::string& name, Shape shape, Initializer init) {
  if (init.dist != Initializer::Dist::Constant) init.seed = param_seed(variant, name);
  return builder.weight(name, std::move(shape), init, dtype);
}

ValueId LayerContext::scalar(double value) { return builder.constant(value, {}, dtype); }

}  // namespace meshtest::models
