// Whether a case streams its weights (--stream-weights; README "Models larger
// than the host"): the golden and the chips make each weight when an op
// first needs it and free it after its last use, instead of materializing
// the whole model at load.
#pragma once

#include <cstdint>

#include "core/graph.h"
#include "runner/pipeline/compile_settings.h"

namespace meshtest::runner {

// Auto streams a model whose weights (in their declared dtypes) exceed this
// share of the host's physical memory: held whole, the golden's f32 copy and
// the chips' device copies would not fit beside each other.
constexpr double kStreamWeightsShareOfRam = 0.4;

// Bytes of `graph`'s weights in their declared dtypes (what loading them all holds).
int64_t weight_bytes(const Graph& graph);

// On / off as given; auto by the size of the model against `host_memory_bytes`.
bool streams_weights(WeightStreaming setting, const Graph& graph, int64_t host_memory_bytes);

// The host's physical memory (sysconf).
int64_t host_physical_memory_bytes();

}  // namespace meshtest::runner
