// The known-extra table (docs/explanation/device-numerics.md: the rule, its matches, why).
#include "models/common/known_extra_tensors.h"

namespace meshtest::models {
namespace {

enum class Match { Suffix, Contains };

struct KnownExtra {
  Match match;
  std::string_view text;
};

constexpr KnownExtra kKnownExtras[] = {
    {Match::Suffix, "num_batches_tracked"},  // BatchNorm step counter (resnet, mobilenet_v2, unet)
    {Match::Suffix, ".position_ids"},        // constant arange buffer (bert, vit)
    {Match::Suffix, ".inv_freq"},            // RoPE frequencies (llama, mixtral)
    {Match::Contains, "pooler."},            // the pooler head (bert, vit) the zoo's models lack
};

bool matches(const KnownExtra& rule, std::string_view name) {
  if (rule.match == Match::Suffix) return name.ends_with(rule.text);
  return name.find(rule.text) != std::string_view::npos;
}

}  // namespace

bool is_known_extra_tensor(std::string_view name) {
  for (const KnownExtra& rule : kKnownExtras) {
    if (matches(rule, name)) return true;
  }
  return false;
}

}  // namespace meshtest::models
