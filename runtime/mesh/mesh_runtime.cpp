// Mesh runtime: per-chip ChipRuns in lock-step, collectives between steps,
// trace record/replay, per-chip memory and leak accounting.
#include "runtime/mesh/mesh_runtime.h"

#include <tbb/parallel_for.h>

#include <functional>
#include <memory>
#include <optional>

#include "core/error.h"
#include "runtime/device/simulated_chip.h"
#include "runtime/mesh/collectives.h"
#include "runtime/mesh/single_threaded_kernels.h"

namespace meshtest::runtime {

namespace {

// oneTBB spreads the chips over the cores; each chip's kernels run on one
// thread (single_threaded_kernels.h).
void for_each_chip(size_t chips, const std::function<void(size_t)>& fn) {
  if (chips == 1) return fn(0);
  tbb::parallel_for(
      size_t{0}, chips,
      [&](size_t c) {
        SingleThreadedKernels one_thread;
        fn(c);
      },
      tbb::simple_partitioner());
}

}  // namespace

MeshRuntime::MeshRuntime(ChipSpec chip, bool enable_trace) : chip_(std::move(chip)), enable_trace_(enable_trace) {}

std::vector<Tensor> MeshRuntime::execute(const MeshProgram& mp, const std::map<std::string, Tensor>& inputs) {
  const Mesh& mesh = mp.mesh;
  const auto chips = static_cast<size_t>(mesh.size());
  if (!mp.streamed && mp.weights.size() != chips) {
    throw RuntimeError("mesh " + mesh.text() + ": weights for " + std::to_string(mp.weights.size()) + " chips, need " +
                       std::to_string(chips));
  }
  stats_ = MeshStats{};
  const DeviceProgram& program = mp.program;
  std::optional<StreamedWeights> streamed;  // outlives the runs that feed from it
  if (mp.streamed) streamed.emplace(mp.streamed, chips);
  std::vector<std::unique_ptr<ChipRun>> runs(chips);
  const std::map<int32_t, Tensor> no_weights;
  for (size_t c = 0; c < chips; ++c) {
    runs[c] = streamed ? std::make_unique<ChipRun>(chip_, static_cast<int>(c), program, no_weights, streamed->feed(c))
                       : std::make_unique<ChipRun>(chip_, static_cast<int>(c), program, mp.weights[c]);
    if (observer_) {
      runs[c]->set_observer([this, c](size_t i, const std::vector<const Tensor*>& operands, const Tensor& result) {
        observer_(c, i, operands, result);
      });
    }
  }
  auto collect_stats = [&] {
    stats_.peak_dram_bytes.assign(chips, 0);
    stats_.peak_l1_bytes.assign(chips, 0);
    for (size_t c = 0; c < chips; ++c) {
      stats_.peak_dram_bytes[c] = runs[c]->stats().peak_dram_bytes;
      stats_.peak_l1_bytes[c] = runs[c]->stats().peak_l1_bytes;
    }
    stats_.ops_executed = runs[0]->stats().ops_executed;
  };

  try {
    // Upload: each chip its shard of every input.
    ++stats_.parallel_steps;
    for_each_chip(chips, [&](size_t c) {
      std::map<std::string, Tensor> local;
      for (const auto& [name, t] : inputs) {
        const auto it = mp.inputs.find(name);
        local[name] = it == mp.inputs.end() ? t : shard_for_chip(mesh, t, it->second, static_cast<int64_t>(c));
      }
      runs[c]->upload(local);
    });

    auto run_collective_step = [&](size_t i) {
      const DeviceInstr& instr = program.instrs[i];
      std::vector<const Tensor*> operands(chips);
      for (size_t c = 0; c < chips; ++c) operands[c] = &runs[c]->operand(i, 0);
      CollectiveResult r;
      try {
        r = run_collective(instr.kind, instr.attrs, mesh, operands);
      } catch (const Error& e) {
        throw RuntimeError("mesh " + mesh.text() + ", " + instr.origin + ": " + e.what());
      }
      for (size_t c = 0; c < chips; ++c) runs[c]->complete(i, std::move(r.per_chip[c]));
      ++stats_.collectives_executed;
      stats_.bytes_moved_between_chips += r.bytes_moved;
    };

    // Whether every chip holds the same operand tensors for instruction i.
    auto operands_shared = [&](size_t i) {
      for (size_t k = 0; k < program.instrs[i].inputs.size(); ++k) {
        const void* first = runs[0]->operand(i, k).raw_data();
        for (size_t c = 1; c < chips; ++c) {
          if (runs[c]->operand(i, k).raw_data() != first) return false;
        }
      }
      return true;
    };
    // Runs instruction i once (chip 0) and hands the result to every chip;
    // false when the result was released at once (then nothing was done on
    // the other chips yet).
    auto run_shared_step = [&](size_t i) {
      runs[0]->run(i);
      const Tensor* r = runs[0]->result(i);
      if (r == nullptr) {
        for (size_t c = 1; c < chips; ++c) runs[c]->run(i);
        return;
      }
      const Tensor result = *r;
      for (size_t c = 1; c < chips; ++c) runs[c]->complete(i, result);
    };

    const bool replay = enable_trace_ && traced_ && traced_program_ == &program;
    if (replay) {
      stats_.replayed = true;
      for (const Step& s : trace_) {
        if (s.collective) {
          run_collective_step(s.begin);
          continue;
        }
        if (s.shared) {
          run_shared_step(s.begin);
          continue;
        }
        ++stats_.parallel_steps;
        for_each_chip(chips, [&](size_t c) {
          for (size_t i = s.begin; i < s.end; ++i) runs[c]->run(i);
        });
      }
    } else {
      std::vector<Step> recorded;
      for (size_t i = 0; i < program.instrs.size(); ++i) {
        if (is_collective(program.instrs[i].kind)) {
          run_collective_step(i);
          recorded.push_back({i, i + 1, true, false});
          continue;
        }
        if (chips > 1 && operands_shared(i)) {
          run_shared_step(i);
          recorded.push_back({i, i + 1, false, true});
          continue;
        }
        ++stats_.parallel_steps;
        for_each_chip(chips, [&](size_t c) { runs[c]->run(i); });
        if (recorded.empty() || recorded.back().collective || recorded.back().shared) {
          recorded.push_back({i, i + 1, false, false});
        }
        else recorded.back().end = i + 1;
      }
      if (enable_trace_) {
        trace_ = std::move(recorded);
        traced_ = true;
        traced_program_ = &program;
      }
    }

    // Download and assemble.
    std::vector<std::vector<Tensor>> per_chip(chips);
    ++stats_.parallel_steps;
    for_each_chip(chips, [&](size_t c) { per_chip[c] = runs[c]->download(); });
    collect_stats();
    for (size_t c = 0; c < chips; ++c) stats_.bytes_leaked += runs[c]->stats().dram_bytes_at_end;
    std::vector<Tensor> outputs;
    for (size_t o = 0; o < program.outputs.size(); ++o) {
      std::vector<Tensor> shards(chips);
      for (size_t c = 0; c < chips; ++c) shards[c] = per_chip[c][o];
      const auto it = mp.outputs.find(program.outputs[o].first);
      outputs.push_back(it == mp.outputs.end() ? shards[0] : assemble_shards(mesh, shards, it->second));
    }
    return outputs;
  } catch (...) {
    collect_stats();
    throw;
  }
}

}  // namespace meshtest::runtime
