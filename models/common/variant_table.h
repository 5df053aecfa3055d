// Variant tables: each loader keeps a constexpr array of configs whose first
// member is `const char* name`; these helpers list and find them and fill the
// ModelInfo, so no loader repeats the lookup code.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "discovery/loader_sdk.h"

namespace meshtest::models {

template <class Config>
std::vector<std::string> variant_names(std::span<const Config> configs) {
  std::vector<std::string> names;
  for (const Config& c : configs) names.emplace_back(c.name);
  return names;
}

template <class Config>
const Config& find_variant(std::span<const Config> configs, std::string_view variant, std::string_view loader) {
  for (const Config& c : configs) {
    if (variant == c.name) return c;
  }
  throw Error(std::string(loader) + ": unknown variant '" + std::string(variant) + "'");
}

inline sdk::ModelInfo model_info(std::string model, std::string_view variant, std::string group, std::string task,
                                 std::string source) {
  sdk::ModelInfo info;
  info.model = std::move(model);
  info.variant = std::string(variant);
  info.group = std::move(group);
  info.task = std::move(task);
  info.source = std::move(source);
  return info;
}

}  // namespace meshtest::models
