// The public mesh API of generated programs (installed with device_api.h in
// meshtest::meshtest_device): in a generated mesh program every chip runs its
// own function on its own thread, and the chips meet at each collective,
// computed by the mesh runtime's own collectives (runtime/mesh/collectives.h),
// so the program reproduces the in-process mesh bit for bit.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "core/attrs.h"
#include "core/sharding.h"
#include "core/tensor.h"

namespace meshtest::device {

class MeshChips {
 public:
  explicit MeshChips(Mesh mesh);
  ~MeshChips();
  MeshChips(const MeshChips&) = delete;
  MeshChips& operator=(const MeshChips&) = delete;

  const Mesh& mesh() const;
  // Chip `chip`'s operand of the collective named `op` (all_gather,
  // reduce_scatter, all_reduce, all_to_all, shard_slice) with `attrs`: waits
  // until every chip has given its own, returns this chip's result. Throws
  // meshtest::RuntimeError, on every chip, when the collective or another
  // chip failed.
  Tensor collective(int64_t chip, std::string_view op, const Tensor& operand, const Attrs& attrs);
  // Runs chip_programs[c] for every chip c, each on its own thread with its
// kernels single-threaded as in the mesh runtime; rethrows the first failure.
  void run(const std::vector<std::function<void()>>& chip_programs);

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace meshtest::device
