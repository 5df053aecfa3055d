// The pjrt backend: graph -> StableHLO -> plugin compile; tensors -> device
// buffers -> execute -> tensors.
#include "pjrt/pjrt_backend.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "core/error.h"
#include "core/sharding.h"
#include "frontends/stablehlo/stablehlo_writer.h"
#include "pjrt/case_program.h"
#include "pjrt/compile_option_keys.h"
#include "pjrt/pjrt_client.h"

namespace meshtest::pjrt {

namespace {

namespace shlo = frontends::stablehlo;

// Platforms whose plugins read tt-xla's compile-option keys.
bool reads_tt_options(const std::string& platform) { return platform == "meshtest" || platform == "tt"; }

// The case's settings as env_option_overrides, or as "not applied" notes.
void add_settings(const backend::DeviceSettings& o, bool enable_trace, const Client& client,
                  CompileOptions& proto, std::vector<std::string>& not_applied) {
  std::map<std::string_view, OptionOverride> settings = {
      {option_keys::kOptimizationLevel, int64_t{o.optimization_level}},
      {option_keys::kMathFidelity,
       std::string(option_keys::kMathFidelityNames.at(backend::math_fidelity_index(o.math_fidelity)))},
      {option_keys::kEnableFusion, o.enable_fusion},
      {option_keys::kEnableCompositeOps, o.enable_composite_ops},
      {option_keys::kEnableTrace, enable_trace},
  };
  // bf16 weights: the key is left out (tt-xla refuses any bf16 spelling).
  if (o.weight_dtype == DType::BFP8_B) settings[option_keys::kWeightDtype] = std::string(option_keys::kWeightDtypeBfp8);
  if (reads_tt_options(client.platform_name())) {
    for (const auto& [key, value] : settings) proto.env_option_overrides[std::string(key)] = value;
    return;
  }
  for (const auto& [key, value] : settings) {
    if (key == option_keys::kWeightDtype) continue;  // applied on the host (weight_for_device)
    not_applied.push_back(std::string(key) + "=" + option_override_text(value) + " (plugin '" +
                          client.platform_name() + "' does not read it)");
  }
}

// A weight as the device should hold it when the plugin does not take the
// weight dtype itself: rounded to bf16 or bfp8_b, in the argument's dtype.
Tensor weight_for_device(const Tensor& weight, DType weight_dtype, bool plugin_applies) {
  if (plugin_applies || weight.dtype() != DType::F32) return weight;
  return weight.to(weight_dtype).to(DType::F32);
}

class PjrtExecutable : public backend::Executable {
 public:
  PjrtExecutable(std::shared_ptr<Client> client, std::shared_ptr<LoadedExecutable> loaded, const Graph& graph,
                 shlo::WriteOptions write, backend::CompileInfo info, DType weight_dtype, bool plugin_applies_dtype)
      : client_(std::move(client)),
        loaded_(std::move(loaded)),
        graph_(graph),
        write_(std::move(write)),
        info_(std::move(info)),
        weight_dtype_(weight_dtype),
        plugin_applies_dtype_(plugin_applies_dtype) {}
  const backend::CompileInfo& info() const override { return info_; }

  std::vector<Tensor> execute(const std::map<std::string, Tensor>& inputs, backend::MemoryStats& stats) {
    const size_t devices = loaded_->devices();
    if (weights_.empty()) transfer_weights(devices);
    std::vector<std::vector<Buffer>> input_buffers(devices);
    std::vector<std::vector<const Buffer*>> arguments(devices);
    for (const Param* p : graph_.inputs()) {
      const auto it = inputs.find(p->name);
      if (it == inputs.end()) throw RuntimeError("pjrt backend: no tensor for input '" + p->name + "'");
      for (size_t d = 0; d < devices; ++d) input_buffers[d].push_back(client_->to_device(device_part(p->name, it->second, d), d));
    }
    for (size_t d = 0; d < devices; ++d) {
      for (const Buffer& b : input_buffers[d]) arguments[d].push_back(&b);
      for (const Buffer& b : weights_[d]) arguments[d].push_back(&b);
    }
    Execution run = client_->execute(*loaded_, arguments);
    stats.device_seconds = run.seconds;
    std::vector<Tensor> outputs;
    for (size_t i = 0; i < graph_.outputs.size(); ++i) {
      const TensorType& type = graph_.type(graph_.outputs[i].value);
      const DType dtype = type.dtype == DType::BFP8_B ? DType::F32 : type.dtype;
      outputs.push_back(client_->to_host(run.outputs.at(0).at(i), dtype, type.shape));
    }
    return outputs;
  }

 private:
  // Device d's part of parameter `name`: its shard when the program splits it.
  Tensor device_part(const std::string& name, const Tensor& whole, size_t d) const {
    const auto split = write_.shardings.find(name);
    if (!write_.mesh || split == write_.shardings.end()) return whole;
    return shard_for_chip(*write_.mesh, whole, split->second, static_cast<int64_t>(d));
  }

  // Weights go to the devices once per executable (timed executions reuse them).
  void transfer_weights(size_t devices) {
    weights_.resize(devices);
    for (const Param& p : graph_.params) {
      if (p.kind != ParamKind::Weight) continue;
      const Tensor data =
          weight_for_device(materialize(p, graph_.type(p.value)), weight_dtype_, plugin_applies_dtype_);
      for (size_t d = 0; d < devices; ++d) weights_[d].push_back(client_->to_device(device_part(p.name, data, d), d));
    }
  }

  std::shared_ptr<Client> client_;
  std::shared_ptr<LoadedExecutable> loaded_;
  Graph graph_;  // shares weight storage with the caller's
  shlo::WriteOptions write_;
  backend::CompileInfo info_;
  DType weight_dtype_;
  bool plugin_applies_dtype_;
  std::vector<std::vector<Buffer>> weights_;  // [device][weight], in params order
};

class PjrtBackend : public backend::Backend {
 public:
  explicit PjrtBackend(const backend::BackendConfig& config)
      : plugin_(config.pjrt_plugin), options_(parse_named_values(config.pjrt_options)) {
    check_pjrt_config(config);
  }

  std::string name() const override { return "pjrt"; }

  std::unique_ptr<backend::Executable> compile(const Graph& graph, const backend::CompileRequest& request) override {
    std::shared_ptr<Client> client = Client::shared(plugin_, options_);
    const ShardingRequest* sharding = request.sharding.get();
    const auto devices = static_cast<size_t>(sharding ? sharding->mesh.size() : 1);
    if (devices > client->devices().size()) {
      throw backend::DevicesUnavailable("mesh " + sharding->mesh.text() + " needs " + std::to_string(devices) +
                                        " devices; PJRT plugin '" + client->platform_name() + "' (" + plugin_ +
                                        ") has " + std::to_string(client->devices().size()));
    }
    shlo::WriteOptions write = write_options_for(sharding);
    write.composites = true;
    write.mark_weights = true;
    const std::string program = shlo::write_stablehlo(graph, write);

    CompileOptions proto;
    proto.num_partitions = static_cast<int64_t>(devices);
    proto.use_spmd_partitioning = devices > 1;
    std::vector<int64_t> ids;
    for (size_t d = 0; d < devices; ++d) ids.push_back(client->devices()[d].id);
    proto.device_assignment = {ids};
    backend::CompileInfo info;
    add_settings(request.settings, request.enable_trace, *client, proto, info.options_not_applied);
    std::shared_ptr<LoadedExecutable> loaded = client->compile(program, proto, graph.outputs.size(), info.cache_hit);
    info.mesh = sharding ? sharding->mesh.text() : "1x1";
    const std::string& version = client->platform_version();  // often starts with the name already
    info.platform = version.rfind(client->platform_name(), 0) == 0 ? version : client->platform_name() + " " + version;
    info.device_kind = client->devices().front().kind;
    info.devices = static_cast<int>(devices);
    const bool plugin_applies = reads_tt_options(client->platform_name());
    return std::make_unique<PjrtExecutable>(std::move(client), std::move(loaded), graph, std::move(write),
                                            std::move(info), request.settings.weight_dtype, plugin_applies);
  }

  std::vector<Tensor> execute(backend::Executable& executable, const std::map<std::string, Tensor>& inputs,
                              backend::MemoryStats& stats) override {
    return dynamic_cast<PjrtExecutable&>(executable).execute(inputs, stats);
  }

 private:
  std::string plugin_;
  std::vector<NamedValue> options_;
};

}  // namespace

void check_pjrt_config(const backend::BackendConfig& config) {
  if (config.pjrt_plugin.empty()) {
    throw Error("--backend pjrt needs a plugin: --pjrt-plugin PATH or MESHTEST_PJRT_PLUGIN (e.g. " 
                "build/pjrt/plugin/libpjrt_plugin_meshtest.so, or a jax_plugins/*/xla_*_plugin.so)");
  }
  parse_named_values(config.pjrt_options);
  open_plugin(config.pjrt_plugin);
}

std::unique_ptr<backend::Backend> make_pjrt_backend(const backend::BackendConfig& config) {
  return std::make_unique<PjrtBackend>(config);
}

}  // namespace meshtest::pjrt
