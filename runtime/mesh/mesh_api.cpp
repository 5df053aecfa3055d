// The mesh API of generated programs (see mesh_api.h): a rendezvous per collective.
#include "runtime/mesh/mesh_api.h"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "core/error.h"
#include "core/ops.h"
#include "runtime/mesh/collectives.h"
#include "runtime/mesh/single_threaded_kernels.h"

namespace meshtest::device {

struct MeshChips::State {
  Mesh mesh;
  std::mutex mutex;
  std::condition_variable arrived_all;
  std::vector<Tensor> operands;
  std::vector<Tensor> results;
  size_t arrived = 0;
  uint64_t generation = 0;  // collectives completed
  std::string failure;      // the first failure; empty while none
};

MeshChips::MeshChips(Mesh mesh) : state_(std::make_unique<State>()) {
  state_->mesh = std::move(mesh);
  state_->operands.resize(static_cast<size_t>(state_->mesh.size()));
}

MeshChips::~MeshChips() = default;

const Mesh& MeshChips::mesh() const { return state_->mesh; }

Tensor MeshChips::collective(int64_t chip, std::string_view op, const Tensor& operand, const Attrs& attrs) {
  State& s = *state_;
  std::unique_lock<std::mutex> lock(s.mutex);
  if (!s.failure.empty()) throw RuntimeError(s.failure);
  s.operands.at(static_cast<size_t>(chip)) = operand;
  const uint64_t generation = s.generation;
  if (++s.arrived == s.operands.size()) {  // the last chip to arrive computes it for all
    try {
      const std::optional<OpKind> kind = find_op(op);
      if (!kind || !runtime::is_collective(*kind)) throw RuntimeError("'" + std::string(op) + "' is not a collective");
      std::vector<const Tensor*> in;
      for (const Tensor& t : s.operands) in.push_back(&t);
      s.results = runtime::run_collective(*kind, attrs, s.mesh, in).per_chip;
    } catch (const std::exception& e) {
      s.failure = "mesh " + s.mesh.text() + ", " + std::string(op) + ": " + e.what();
    }
    s.arrived = 0;
    ++s.generation;
    s.arrived_all.notify_all();
  } else {
    s.arrived_all.wait(lock, [&] { return s.generation != generation || !s.failure.empty(); });
  }
  if (!s.failure.empty()) throw RuntimeError(s.failure);
  return s.results[static_cast<size_t>(chip)];
}

void MeshChips::run(const std::vector<std::function<void()>>& chip_programs) {
  State& s = *state_;
  std::vector<std::thread> threads;
  for (size_t c = 0; c < chip_programs.size(); ++c) {
    threads.emplace_back([&s, &chip_programs, c] {
      const runtime::SingleThreadedKernels one_thread;  // as the mesh runtime runs a chip's kernels
      try {
        chip_programs[c]();
      } catch (const std::exception& e) {
        const std::lock_guard<std::mutex> lock(s.mutex);
        if (s.failure.empty()) s.failure = "chip " + std::to_string(c) + ": " + e.what();
        s.arrived_all.notify_all();  // releases the chips waiting at a collective
      }
    });
  }
  for (std::thread& t : threads) t.join();
  if (!s.failure.empty()) throw RuntimeError(s.failure);
}

}  // namespace meshtest::device
