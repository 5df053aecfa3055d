// Simulated backend: compile (cache lookup, pass pipeline, cache store) and
// execute on the mesh runtime (weights materialized on first execution; each
// chip gets its shard of every split weight, replicated ones are shared).
#include "backend/simulated_backend.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <tuple>

#include "compiler/compile.h"
#include "compiler/compile_cache.h"
#include "compiler/pass.h"
#include "compiler/program_text.h"
#include "core/error.h"
#include "core/ir_text.h"
#include "runtime/device/kernel_variants.h"
#include "runtime/mesh/mesh_runtime.h"

namespace meshtest::backend {

namespace {

// The compiler's per-pass hook as a text dump (none when nobody listens).
compiler::DumpHook text_dump(const StageDump& dump) {
  if (!dump) return {};
  return [dump](std::string_view pass, const compiler::CompileUnit& unit) {
    dump(pass, unit.program ? compiler::print_program(*unit.program) : print_graph(unit.graph));
  };
}

// The case's device settings as the simulated compiler's options, with the
// chip's memory capacities (every setting applies).
compiler::CompileOptions compiler_options(const CompileRequest& request, const runtime::ChipSpec& chip) {
  compiler::CompileOptions o;
  const DeviceSettings& s = request.settings;
  o.optimization_level = s.optimization_level;
  o.weight_dtype = s.weight_dtype;
  try {
    o.math_fidelity = compiler::parse_math_fidelity(s.math_fidelity);
  } catch (const ParseError& e) {
    throw CompileError(std::string("device settings: ") + e.what());
  }
  o.enable_fusion = s.enable_fusion;
  o.enable_composite_ops = s.enable_composite_ops;
  o.sharding = request.sharding;
  o.dram_capacity_bytes = chip.dram_bytes;
  o.l1_capacity_bytes = chip.l1_bytes_total();
  return o;
}

CompileInfo info_of(const compiler::CompileResult& result) {
  CompileInfo info;
  info.stats = result.stats;
  info.planned_peak_dram_bytes = result.program.planned_peak_dram_bytes;
  info.planned_peak_l1_bytes = result.program.planned_peak_l1_bytes;
  info.device_ops = static_cast<int64_t>(result.program.instrs.size());
  info.kernel_variants = runtime::program_kernel_variants(result.program);
  if (result.sharding) {
    info.mesh = result.sharding->mesh.text();
    info.sharding_fallbacks = result.sharding->fallbacks;
    info.collectives = result.sharding->collectives;
  }
  return info;
}

// The 1x1 mesh's plan: every parameter and output whole on its one chip.
compiler::ShardingPlan one_chip_plan() {
  compiler::ShardingPlan plan;
  plan.mesh.shape = {1, 1};
  return plan;
}

// Chip `chip`'s shard of a split weight, in the buffer's device dtype.
Tensor chip_shard(const Mesh& mesh, const Tensor& whole, const Sharding& split, size_t chip, DType dtype) {
  Tensor shard = shard_for_chip(mesh, whole, split, static_cast<int64_t>(chip));
  return shard.dtype() == dtype ? shard : shard.to(dtype);
}

// Streamed weights (CompileRequest::stream_weights) of a per-chip program:
// a weight's whole is converted by the compiler's weight loading (in
// parallel), each chip cuts its shard of a split one, and a replicated one is
// shared by every chip. A bfp8_b split weight is cut from the f32 whole and
// then encoded, as its blocks depend on the shard's layout. Same data as the
// eager load, bit for bit (f32 -> bf16 rounds each element alone).
class GraphWeightSource : public runtime::WeightSource {
 public:
  GraphWeightSource(const Graph& global, const compiler::ShardingPlan& plan, const DeviceProgram& program)
      : global_(global), plan_(plan), program_(program) {}

  Tensor whole(int32_t id) const override {
    const DeviceBuffer& b = program_.buffers.at(static_cast<size_t>(id));
    const bool split = plan_.params.count(b.name) != 0;
    if (!split || (b.type.dtype != DType::BFP8_B && !program_.weights.count(b.id))) {
      return compiler::load_weight(global_, program_, b);  // the whole, converted
    }
    const Param* p = global_.find_param(b.name);
    if (p == nullptr) throw CompileError("weight '" + b.name + "' is not a parameter of the global graph");
    return materialize(*p, global_.type(p->value));
  }

  Tensor for_chip(const Tensor& whole, size_t chip, int32_t id) const override {
    const DeviceBuffer& b = program_.buffers.at(static_cast<size_t>(id));
    const auto split = plan_.params.find(b.name);
    return split == plan_.params.end() ? whole : chip_shard(plan_.mesh, whole, split->second, chip, b.type.dtype);
  }

 private:
  const Graph& global_;
  const compiler::ShardingPlan& plan_;
  const DeviceProgram& program_;
};

// A per-chip program for a mesh (one chip: the 1x1 mesh); weights are cut
// from the global graph's weights on first execution (replicated ones
// converted once, shared by every chip), or streamed (GraphWeightSource).
class SimulatedExecutable : public Executable {
 public:
  SimulatedExecutable(const Graph& global, compiler::CompileResult result, CompileInfo info,
                      const runtime::ChipSpec& chip, const CompileRequest& request)
      : global_(global),
        plan_(result.sharding ? std::move(*result.sharding) : one_chip_plan()),
        info_(std::move(info)),
        runtime_(chip, request.enable_trace),
        stream_weights_(request.stream_weights) {
    program_.mesh = plan_.mesh;
    program_.program = std::move(result.program);
    for (const auto& [name, s] : plan_.params) {
      const Param* p = global_.find_param(name);
      if (p != nullptr && p->kind == ParamKind::Input) program_.inputs[name] = s;
    }
    program_.outputs = plan_.outputs;
  }
  const CompileInfo& info() const override { return info_; }
  runtime::MeshRuntime& runtime() { return runtime_; }

  // The program as executions run it: its weights loaded, or streamed.
  const runtime::MeshProgram& loaded_program() {
    if (stream_weights_ && !program_.streamed) {
      program_.streamed = std::make_shared<GraphWeightSource>(global_, plan_, program_.program);
    } else if (!stream_weights_ && !loaded_) {
      load_weights();
    }
    return program_;
  }
  // The program with every weight in memory (generated code writes them out).
  const runtime::MeshProgram& materialized_program() {
    if (!loaded_) load_weights();
    return program_;
  }

 private:
  // Chip c's weights: split ones are cut from the global weight and converted
  // to the buffer's device dtype here (weights sharing storage, e.g. tied or
  // repeated layers, share their shards too); replicated ones go through the
  // compiler's weight loading once (chip 0) and are shared by every chip.
  void load_weights() {
    const Mesh& mesh = plan_.mesh;
    const auto chips = static_cast<size_t>(mesh.size());
    std::map<std::string, Tensor> global_split;  // split weights, materialized once
    for (const DeviceBuffer& b : program_.program.buffers) {
      if (b.kind != BufferKind::Weight || !plan_.params.count(b.name)) continue;
      const Param* p = global_.find_param(b.name);
      if (p == nullptr) throw CompileError("weight '" + b.name + "' is not a parameter of the global graph");
      global_split[b.name] = materialize(*p, global_.type(p->value));
    }
    std::map<std::tuple<const void*, DType, std::string>, Tensor> shards;  // one chip's shards by source
    program_.weights.assign(chips, {});
    for (size_t c = 0; c < chips; ++c) {
      shards.clear();
      DeviceProgram chip_program;
      chip_program.buffers = program_.program.buffers;
      chip_program.weights = program_.program.weights;
      Graph replicated;  // the replicated weights, for the compiler's loader
      replicated.name = global_.name;
      for (const DeviceBuffer& b : program_.program.buffers) {
        if (b.kind != BufferKind::Weight) continue;
        const auto split = plan_.params.find(b.name);
        if (split != plan_.params.end()) {
          const Tensor& whole = global_split.at(b.name);
          const auto key = std::make_tuple(whole.raw_data(), b.type.dtype, sharding_text(mesh, split->second));
          auto it = shards.find(key);
          if (it == shards.end()) it = shards.emplace(key, chip_shard(mesh, whole, split->second, c, b.type.dtype)).first;
          chip_program.weights[b.id] = it->second;
        } else if (c > 0) {
          chip_program.weights[b.id] = program_.weights[0].at(b.id);
        } else if (const Param* gp = global_.find_param(b.name)) {
          Param p = *gp;
          p.value = replicated.add_value(global_.type(gp->value), b.name);
          replicated.params.push_back(std::move(p));
        }
      }
      compiler::load_weights(replicated, chip_program);
      program_.weights[c] = std::move(chip_program.weights);
    }
    loaded_ = true;
  }

  Graph global_;  // shares weight storage with the caller's graph; needed for lazy weights
  compiler::ShardingPlan plan_;
  CompileInfo info_;
  runtime::MeshProgram program_;
  runtime::MeshRuntime runtime_;
  bool stream_weights_;
  bool loaded_ = false;
};

class SimulatedBackend : public Backend {
 public:
  explicit SimulatedBackend(const BackendConfig& config)
      : chip_(config.chip), chips_(config.chips), cache_(config.cache_dir) {}

  std::string name() const override { return std::string(kDefaultBackend); }

  std::unique_ptr<Executable> compile(const Graph& graph, const CompileRequest& request) override {
    const compiler::CompileOptions options = compiler_options(request, chip_);
    if (options.sharding && options.sharding->mesh.size() > chips_) {
      const Mesh& mesh = options.sharding->mesh;
      throw CompileError("mesh " + mesh.text() + " needs " + std::to_string(mesh.size()) + " chips, " + chip_.arch +
                         " has " + std::to_string(chips_));
    }
    // Only the 1x1 mesh without a sharding request is cached (see the header).
    const bool cached = cache_.enabled() && !options.sharding;
    std::optional<compiler::CompileResult> result;
    std::string key;
    std::string cache_warning;
    if (cached) {
      key = compiler::compile_cache_key(graph, options, chip_.arch + " 1x1");
      result = cache_.load(key, cache_warning);
      if (!cache_warning.empty()) spdlog::warn("{}", cache_warning);
    }
    const bool hit = result.has_value();
    if (!result) {
      result = compiler::compile_program(graph, options, text_dump(request.dump));
      if (cached) {
        if (const std::string w = cache_.store(key, *result); !w.empty()) spdlog::warn("{}", w);
      }
    }
    CompileInfo info = info_of(*result);
    info.cost = runtime::model_program_cost(result->program, chip_);
    info.cache_hit = hit;
    info.cache_warning = cache_warning;
    info.platform = "meshtest simulated";
    info.device_kind = chip_.arch + " (simulated)";
    info.devices = options.sharding ? static_cast<int>(options.sharding->mesh.size()) : 1;
    return std::make_unique<SimulatedExecutable>(graph, std::move(*result), std::move(info), chip_, request);
  }

  bool observe_ops(Executable& executable, OpObserver observer) override {
    auto& exe = dynamic_cast<SimulatedExecutable&>(executable);
    const runtime::MeshProgram& loaded = exe.loaded_program();
    const DeviceProgram& program = loaded.program;
    const Mesh* mesh = loaded.mesh.size() > 1 ? &loaded.mesh : nullptr;
    exe.runtime().set_observer([&program, mesh, observer = std::move(observer)](
                                   size_t chip, size_t i, const std::vector<const Tensor*>& operands,
                                   const Tensor& result) {
      observer(OpExecution{static_cast<int>(chip), i, program, program.instrs[i], operands, result, mesh});
    });
    return true;
  }

  std::vector<Tensor> execute(Executable& executable, const std::map<std::string, Tensor>& inputs,
                              MemoryStats& stats) override {
    auto& exe = dynamic_cast<SimulatedExecutable&>(executable);
    runtime::MeshRuntime& rt = exe.runtime();
    std::vector<Tensor> outputs;
    try {
      outputs = rt.execute(exe.loaded_program(), inputs);
    } catch (...) {
      stats.per_chip_peak_dram_bytes = rt.last_stats().peak_dram_bytes;
      throw;
    }
    const runtime::MeshStats& m = rt.last_stats();
    stats.per_chip_peak_dram_bytes = m.peak_dram_bytes;
    for (int64_t b : m.peak_dram_bytes) stats.peak_dram_bytes = std::max(stats.peak_dram_bytes, b);
    for (int64_t b : m.peak_l1_bytes) stats.peak_l1_bytes = std::max(stats.peak_l1_bytes, b);
    stats.ops_executed = m.ops_executed;
    stats.collectives_executed = m.collectives_executed;
    stats.bytes_moved_between_chips = m.bytes_moved_between_chips;
    stats.device_bytes_leaked = m.bytes_leaked;
    return outputs;
  }

  codegen::GeneratedProgram generate_program(Executable& executable, const std::map<std::string, Tensor>& inputs,
                                             const std::string& title) override {
    const runtime::MeshProgram& program = dynamic_cast<SimulatedExecutable&>(executable).materialized_program();
    return codegen::generate_cpp(program.program, program.weights, inputs,
                                 {program.mesh, program.inputs, program.outputs}, title);
  }

 private:
  runtime::ChipSpec chip_;
  int chips_;
  compiler::CompileCache cache_;
};

}  // namespace

std::string default_cache_dir() { return compiler::CompileCache::default_dir(); }

std::vector<std::string> simulated_compiler_passes() {
  std::vector<std::string> out;
  for (const compiler::PassInfo& p : compiler::pass_registry()) out.emplace_back(p.name);
  return out;
}

std::unique_ptr<Backend> make_simulated_backend(const BackendConfig& config) {
  return std::make_unique<SimulatedBackend>(config);
}

std::unique_ptr<Backend> make_simulated_backend(const runtime::ChipSpec& chip, int chips) {
  BackendConfig config;
  config.chip = chip;
  config.chips = chips;
  return make_simulated_backend(config);
}

}  // namespace meshtest::backend
