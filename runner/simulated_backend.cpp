// Simulated backend: compile (cache lookup, pass pipeline, cache store) and
// execute (weights materialized on first execution, then the chip runs).
#include "runner/simulated_backend.h"

#include <spdlog/spdlog.h>

#include "compiler/compile_cache.h"
#include "runtime/device/simulated_chip.h"

namespace meshtest::runner {

namespace {

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

class SimulatedBackend : public compiler::Backend {
 public:
  SimulatedBackend(runtime::ChipSpec chip, std::string cache_dir)
      : chip_(std::move(chip)), cache_(std::move(cache_dir)) {}

  std::string name() const override { return "simulated"; }

  std::unique_ptr<compiler::Executable> compile(const Graph& graph, const compiler::CompileRequest& request) override {
    compiler::CompileOptions options = request.options;
    options.dram_capacity_bytes = chip_.dram_bytes;
    options.l1_capacity_bytes = chip_.l1_bytes_total();
    compiler::CompileInfo info;
    std::optional<compiler::CompileResult> result;
    std::string key;
    if (cache_.enabled()) {
      key = compiler::compile_cache_key(graph, options, chip_.arch + " 1x1");
      result = cache_.load(key, info.cache_warning);
      if (!info.cache_warning.empty()) spdlog::warn("{}", info.cache_warning);
      info.cache_hit = result.has_value();
    }
    if (!result) {
      result = compiler::compile_program(graph, options, request.dump);
      info.passes = result->passes;
      if (cache_.enabled()) {
        if (const std::string w = cache_.store(key, *result); !w.empty()) spdlog::warn("{}", w);
      }
    }
    info.stats = result->stats;
    info.planned_peak_dram_bytes = result->program.planned_peak_dram_bytes;
    info.planned_peak_l1_bytes = result->program.planned_peak_l1_bytes;
    info.device_ops = static_cast<int64_t>(result->program.instrs.size());
    return std::make_unique<SimulatedExecutable>(graph, std::move(*result), std::move(info));
  }

  std::vector<Tensor> execute(compiler::Executable& executable, const std::map<std::string, Tensor>& inputs,
                              compiler::MemoryStats& stats) override {
    auto& exe = dynamic_cast<SimulatedExecutable&>(executable);
    runtime::SimulatedChip chip(chip_);
    std::vector<Tensor> outputs = chip.execute(exe.loaded_program(), inputs);
    stats.peak_dram_bytes = chip.last_stats().peak_dram_bytes;
    stats.peak_l1_bytes = chip.last_stats().peak_l1_bytes;
    stats.ops_executed = chip.last_stats().ops_executed;
    return outputs;
  }

 private:
  runtime::ChipSpec chip_;
  compiler::CompileCache cache_;
};

}  // namespace

std::unique_ptr<compiler::Backend> make_simulated_backend(const runtime::ChipSpec& chip, const std::string& cache_dir) {
  return std::make_unique<SimulatedBackend>(chip, cache_dir);
}

}  // namespace meshtest::runner
