// The model loader SDK: what a model author implements (ModelLoader) and how a
// loader plugin exports it (MESHTEST_EXPORT_LOADER). This is the C++
// counterpart of a `loader.py` with a `ModelLoader` class.
//
// Contract:
//  - variants() and info() must be cheap: no graph building, no weights.
//  - load_model() returns the graph with its weights (lazy initializers are
//    fine: the runner materializes them before execution).
//  - load_inputs() returns one tensor per graph input, keyed by input name.
//  - Throwing from any method is allowed: the runner turns it into a reported
//    result naming the loader and the phase.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph.h"
#include "core/tensor.h"

namespace meshtest::sdk {

struct ModelInfo {
  std::string model;               // e.g. "resnet"
  std::string variant;             // e.g. "resnet50"
  std::string group = "generality";  // red | generality | priority | vulcan
  std::string task;                // e.g. "cv_image_cls", "nlp_masked_lm"
  std::string source = "meshtest";   // where the architecture comes from
  std::string framework = "native";
};

// A causal LM's phase (the LLM matrix, docs/how-to/select-tests.md):
//  Full     the loader's ordinary forward pass over seq_len tokens.
//  Prefill  the same forward pass that also outputs its KV cache: per layer
//           "present.<l>.key" / "present.<l>.value" [B, kv_heads, S, head_dim].
//  Decode   one new token at position S against that cache: inputs
//           "input_ids" [B, 1], "past_key_values.<l>.key" / ".value" (the
//           prefill's present.<l>.*, S = seq_len positions) and the loader's
//           own position inputs; outputs "logits" [B, 1, vocab] and the
//           cache grown by one position (present.<l>.*, S + 1).
// A decode phase's load_inputs() leaves out the past_key_values.* inputs: the
// runner fills each from the matching present.* output of the prefill model
// (same options, phase Prefill) run on that model's own inputs.
enum class LmPhase { Full, Prefill, Decode };
inline constexpr const char* kPastKeyValuesPrefix = "past_key_values.";
inline constexpr const char* kPresentPrefix = "present.";

struct LoadOptions {
  std::optional<DType> dtype_override;  // weights and float inputs
  std::optional<int64_t> batch_size;
  std::optional<int64_t> seq_len;
  std::optional<int64_t> num_layers;  // cut a deep model down
  LmPhase phase = LmPhase::Full;      // causal LMs only; other loaders ignore it
  // The training run mode: layers that behave differently under
  // model.train() take their training form (batch norm: batch statistics, and
  // the updated running statistics as extra outputs named
  // kUpdatedBufferPrefix + buffer name).
  bool training = false;
};

// A training-mode forward graph's outputs named kUpdatedBufferPrefix + NAME
// are the new value of the buffer (a weight that is state, not a parameter,
// e.g. a batch norm's running_mean) NAME after one training step. The training
// graph keeps them as outputs and compares them as outputs; they are never
// differentiated (the loader must not route them into the trained output).
inline constexpr const char* kUpdatedBufferPrefix = "updated_buffer/";

struct Model {
  Graph graph;
};

using Inputs = std::map<std::string, Tensor>;  // graph input name -> tensor

struct MeshConfig {
  std::vector<int64_t> shape;           // e.g. {1, 8}
  std::vector<std::string> axis_names;  // e.g. {"batch", "model"}
};

// Per tensor dim: the mesh axes it is split over (empty: replicated).
using DimSharding = std::vector<std::string>;
using PartitionSpec = std::vector<DimSharding>;
using ShardSpec = std::map<std::string, PartitionSpec>;  // parameter name -> spec

struct TrainingSpec {
  std::string output;  // graph output that drives backward; empty: the first
};

class ModelLoader {
 public:
  virtual ~ModelLoader() = default;
  // Named variants; an empty list means one unnamed variant ("").
  virtual std::vector<std::string> variants() const = 0;
  virtual ModelInfo info(std::string_view variant) const = 0;
  virtual Model load_model(std::string_view variant, const LoadOptions& options) const = 0;
  virtual Inputs load_inputs(std::string_view variant, const LoadOptions& options) const = 0;
  virtual std::optional<MeshConfig> mesh_config(std::string_view /*variant*/, int /*num_devices*/) const {
    return std::nullopt;
  }
  virtual std::optional<ShardSpec> shard_spec(std::string_view /*variant*/, const Model& /*model*/) const {
    return std::nullopt;
  }
  virtual TrainingSpec training(std::string_view /*variant*/) const { return {}; }
};

// ---- Plugin ABI ----
// A loader plugin (loader.so) exports three C symbols. The runner checks the
// version before calling anything else and refuses a mismatch with a reported
// result. Bump the version whenever ModelLoader or a type above changes
// layout; the C++ ABI across the boundary is GCC's (same toolchain).
// 2: the op table (core/ops.h) gained collectives and backward ops, which
// renumbered OpKind: a plugin built against version 1 would build wrong ops.
// 3: Attrs (every op's attributes) holds its map behind a shared pointer
// (copy on write): a version 2 plugin would lay out its graphs' ops wrongly.
// Adding an op needs no bump: ops are appended to OpKind, never renumbered
// (the rule is at OpKind in core/ops.h; tests/core/op_numbering_test.cpp
// freezes the numbers), and op definitions stay inside core.
// 4: LoadOptions::phase (the LLM matrix's prefill / decode).
// 5: LoadOptions::training (training-mode layers: batch norm's batch statistics).
constexpr uint32_t kLoaderAbiVersion = 5;
constexpr const char* kAbiVersionSymbol = "meshtest_loader_abi_version";
constexpr const char* kCreateSymbol = "meshtest_create_loader";
constexpr const char* kDestroySymbol = "meshtest_destroy_loader";

using AbiVersionFn = uint32_t (*)();
using CreateLoaderFn = ModelLoader* (*)();
using DestroyLoaderFn = void (*)(ModelLoader*);

}  // namespace meshtest::sdk

// Use once per plugin, at namespace scope: MESHTEST_EXPORT_LOADER(MyLoader)
#define MESHTEST_EXPORT_LOADER(LoaderClass)                                                            \
  extern "C" __attribute__((visibility("default"))) uint32_t meshtest_loader_abi_version() {          \
    return ::meshtest::sdk::kLoaderAbiVersion;                                                         \
  }                                                                                                    \
  extern "C" __attribute__((visibility("default"))) ::meshtest::sdk::ModelLoader* meshtest_create_loader() { \
    return new LoaderClass();                                                                          \
  }                                                                                                    \
  extern "C" __attribute__((visibility("default"))) void meshtest_destroy_loader(                     \
      ::meshtest::sdk::ModelLoader* loader) {                                                          \
    delete loader;                                                                                     \
  }
