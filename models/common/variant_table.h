// Variant tables: each zoo loader keeps a constexpr array of configs whose
// first member is `const char* name`, and derives from TableLoader with its
// family's fixed metadata. TableLoader answers variants(), info() and
// training() from those, so a loader only writes what differs: load_model,
// load_inputs and, for families that shard, mesh_config / shard_spec.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"
#include "discovery/loader_sdk.h"

namespace meshtest::models {

// What every variant of one loader shares.
struct LoaderFamily {
  const char* loader;  // "vit/native": the loader's folder, prefixes its error messages
  const char* model;   // ModelInfo::model
  const char* group;   // red | generality | priority | vulcan
  const char* task;    // cv_image_cls, nlp_causal_lm, ...
  const char* source;  // where the architecture comes from
  const char* training_output = "logits";  // the output that drives backward
};

template <class Config>
const Config& find_variant(std::span<const Config> configs, std::string_view variant, std::string_view loader) {
  for (const Config& c : configs) {
    if (variant == c.name) return c;
  }
  throw Error(std::string(loader) + ": unknown variant '" + std::string(variant) + "'");
}

template <class Config>
class TableLoader : public sdk::ModelLoader {
 public:
  TableLoader(std::span<const Config> configs, const LoaderFamily& family) : configs_(configs), family_(family) {}

  std::vector<std::string> variants() const override {
    std::vector<std::string> names;
    for (const Config& c : configs_) names.emplace_back(c.name);
    return names;
  }

  sdk::ModelInfo info(std::string_view variant) const override {
    sdk::ModelInfo info;
    info.model = family_.model;
    info.variant = config(variant).name;
    info.group = family_.group;
    info.task = family_.task;
    info.source = family_.source;
    return info;
  }

  sdk::TrainingSpec training(std::string_view variant) const override {
    config(variant);  // an unknown variant is an error here too
    return {family_.training_output};
  }

 protected:
  // The variant's config; throws meshtest::Error naming the loader when unknown.
  const Config& config(std::string_view variant) const { return find_variant(configs_, variant, family_.loader); }
  const char* loader_name() const { return family_.loader; }

 private:
  std::span<const Config> configs_;
  LoaderFamily family_;
};

}  // namespace meshtest::models
