// The --stream-weights decision of a case.
#include "runner/pipeline/weight_streaming.h"

#include <unistd.h>

#include <algorithm>

namespace meshtest::runner {

int64_t weight_bytes(const Graph& graph) {
  int64_t bytes = 0;
  for (const Param* p : graph.weights()) {
    const TensorType& t = graph.type(p->value);
    bytes += shape_numel(t.shape) * static_cast<int64_t>(dtype_size(t.dtype));
  }
  return bytes;
}

bool streams_weights(WeightStreaming setting, const Graph& graph, int64_t host_memory_bytes) {
  switch (setting) {
    case WeightStreaming::On: return true;
    case WeightStreaming::Off: return false;
    case WeightStreaming::Auto: break;
  }
  const double threshold = std::min(static_cast<double>(kStreamWeightsAboveBytes),
                                    kStreamWeightsShareOfRam * static_cast<double>(host_memory_bytes));
  return static_cast<double>(weight_bytes(graph)) > threshold;
}

int64_t host_physical_memory_bytes() {
  return static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<int64_t>(sysconf(_SC_PAGE_SIZE));
}

}  // namespace meshtest::runner
