// Simulated backend: compile (cache lookup, pass pipeline, cache store) and
// execute (weights materialized on first execution, then the chip runs; on a
// mesh each chip gets its shard of every split weight).
#include "runner/simulated_backend.h"

#include <spdlog/spdlog.h>

#include <tuple>

#include "compiler/compile_cache.h"
#include "core/error.h"
#include "runtime/device/simulated_chip.h"
#include "runtime/mesh/mesh_runtime.h"

namespace meshtest::runner {

namespace {

compiler::CompileInfo info_of(const compiler::CompileResult& result) {
  compiler::CompileInfo info;
  info.stats = result.stats;
  info.planned_peak_dram_bytes = result.program.planned_peak_dram_bytes;
  info.planned_peak_l1_bytes = result.program.planned_peak_l1_bytes;
  info.device_ops = static_cast<int64_t>(result.program.instrs.size());
  return info;
}

class SimulatedExecutable : public compiler::Executable {
 public:
  SimulatedExecutable(const Graph& graph, compiler::CompileResult result, compiler::CompileInfo info)
      : graph_(graph), program_(std::move(result.program)), info_(std::move(info)) {}
  const compiler::CompileInfo& info() const override { return info_; }

  const DeviceProgram& loaded_program() {
    if (!loaded_) {
      compiler::load_weights(graph_, program_);
      loaded_ = true;
    }
    return program_;
  }

 private:
  Graph graph_;  // shares weight storage with the caller's graph; needed for lazy weights
  DeviceProgram program_;
  compiler::CompileInfo info_;
  bool loaded_ = false;
};

// A per-chip program for a mesh; weights are cut from the global graph's
// weights on first execution (replicated ones converted once, shared).
class MeshExecutable : public compiler::Executable {
 public:
  MeshExecutable(const Graph& global, compiler::CompileResult result, compiler::CompileInfo info,
                 const runtime::ChipSpec& chip, bool enable_trace)
      : global_(global), plan_(std::move(*result.sharding)), info_(std::move(info)), runtime_(chip, enable_trace) {
    program_.mesh = plan_.mesh;
    program_.program = std::move(result.program);
    for (const auto& [name, s] : plan_.params) {
      const Param* p = global_.find_param(name);
      if (p != nullptr && p->kind == ParamKind::Input) program_.inputs[name] = s;
    }
    program_.outputs = plan_.outputs;
  }
  const compiler::CompileInfo& info() const override { return info_; }
  runtime::MeshRuntime& runtime() { return runtime_; }

  const runtime::MeshProgram& loaded_program() {
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
          if (it == shards.end()) {
            Tensor shard = shard_for_chip(mesh, whole, split->second, static_cast<int64_t>(c));
            it = shards.emplace(key, shard.dtype() == b.type.dtype ? shard : shard.to(b.type.dtype)).first;
          }
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

  Graph global_;
  compiler::ShardingPlan plan_;
  compiler::CompileInfo info_;
  runtime::MeshProgram program_;
  runtime::MeshRuntime runtime_;
  bool loaded_ = false;
};

class SimulatedBackend : public compiler::Backend {
 public:
  SimulatedBackend(runtime::ChipSpec chip, int chips, std::string cache_dir)
      : chip_(std::move(chip)), chips_(chips), cache_(std::move(cache_dir)) {}

  std::string name() const override { return "simulated"; }

  std::unique_ptr<compiler::Executable> compile(const Graph& graph, const compiler::CompileRequest& request) override {
    compiler::CompileOptions options = request.options;
    options.dram_capacity_bytes = chip_.dram_bytes;
    options.l1_capacity_bytes = chip_.l1_bytes_total();
    if (options.sharding) return compile_for_mesh(graph, options, request);
    std::optional<compiler::CompileResult> result;
    std::string key;
    std::string cache_warning;
    if (cache_.enabled()) {
      key = compiler::compile_cache_key(graph, options, chip_.arch + " 1x1");
      result = cache_.load(key, cache_warning);
      if (!cache_warning.empty()) spdlog::warn("{}", cache_warning);
    }
    const bool hit = result.has_value();
    std::vector<compiler::PassRun> passes;
    if (!result) {
      result = compiler::compile_program(graph, options, request.dump);
      passes = result->passes;
      if (cache_.enabled()) {
        if (const std::string w = cache_.store(key, *result); !w.empty()) spdlog::warn("{}", w);
      }
    }
    compiler::CompileInfo info = info_of(*result);
    info.cache_hit = hit;
    info.cache_warning = cache_warning;
    info.passes = std::move(passes);
    return std::make_unique<SimulatedExecutable>(graph, std::move(*result), std::move(info));
  }

  std::vector<Tensor> execute(compiler::Executable& executable, const std::map<std::string, Tensor>& inputs,
                              compiler::MemoryStats& stats) override {
    if (auto* mesh = dynamic_cast<MeshExecutable*>(&executable)) return execute_on_mesh(*mesh, inputs, stats);
    auto& exe = dynamic_cast<SimulatedExecutable&>(executable);
    runtime::SimulatedChip chip(chip_);
    std::vector<Tensor> outputs = chip.execute(exe.loaded_program(), inputs);
    stats.peak_dram_bytes = chip.last_stats().peak_dram_bytes;
    stats.peak_l1_bytes = chip.last_stats().peak_l1_bytes;
    stats.ops_executed = chip.last_stats().ops_executed;
    stats.per_chip_peak_dram_bytes = {stats.peak_dram_bytes};
    stats.device_bytes_leaked = chip.last_stats().dram_bytes_at_end;
    return outputs;
  }

 private:
  std::unique_ptr<compiler::Executable> compile_for_mesh(const Graph& graph, const compiler::CompileOptions& options,
                                                         const compiler::CompileRequest& request) {
    const Mesh& mesh = options.sharding->mesh;
    if (mesh.size() > chips_) {
      throw CompileError("mesh " + mesh.text() + " needs " + std::to_string(mesh.size()) + " chips, " + chip_.arch +
                         " has " + std::to_string(chips_));
    }
    compiler::CompileResult result = compiler::compile_program(graph, options, request.dump);
    compiler::CompileInfo info = info_of(result);
    info.passes = result.passes;
    info.mesh = mesh.text();
    info.sharding_fallbacks = result.sharding->fallbacks;
    info.collectives = result.sharding->collectives;
    return std::make_unique<MeshExecutable>(graph, std::move(result), std::move(info), chip_, request.enable_trace);
  }

  std::vector<Tensor> execute_on_mesh(MeshExecutable& exe, const std::map<std::string, Tensor>& inputs,
                                      compiler::MemoryStats& stats) {
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

  runtime::ChipSpec chip_;
  int chips_;
  compiler::CompileCache cache_;
};

}  // namespace

std::unique_ptr<compiler::Backend> make_simulated_backend(const runtime::ChipSpec& chip, int chips,
                                                          const std::string& cache_dir) {
  return std::make_unique<SimulatedBackend>(chip, chips, cache_dir);
}

}  // namespace meshtest::runner
