// Whether a case streams its weights (--stream-weights; docs/explanation/streamed-weights.md): the golden and the chips make each weight when an op
// first needs it and free it after its last use, instead of materializing
// the whole model at load.
#pragma once

#include <cstdint>

#include "core/graph.h"
#include "runner/pipeline/compile_settings.h"

namespace meshtest::runner {

// Auto streams a model whose weights (in their declared dtypes) exceed
// kStreamWeightsAboveBytes, or kStreamWeightsShareOfRam of the host's
// physical memory where that is less. Held whole, a large model's f32 golden
// copy and the chips' copies may not fit beside each other; and above 1 GiB
// streaming is also the faster path: making each weight twice into recycled
// buffers (core/buffer_pool.h) costs less than faulting in fresh pages for
// both copies (llama_3_2_1b, 4.9 GB: 14.5 CPU-s and 1.8 GB peak RSS streamed,
// 26 CPU-s and 7.5 GB loaded). Below it the two are within noise (bert_base,
// 0.44 GB) and loading keeps one copy for the golden and the device.
constexpr int64_t kStreamWeightsAboveBytes = int64_t{1} << 30;
constexpr double kStreamWeightsShareOfRam = 0.4;

// Bytes of `graph`'s weights in their declared dtypes (what loading them all holds).
int64_t weight_bytes(const Graph& graph);

// On / off as given; auto by the size of the model (and `host_memory_bytes`).
bool streams_weights(WeightStreaming setting, const Graph& graph, int64_t host_memory_bytes);

// The host's physical memory (sysconf).
int64_t host_physical_memory_bytes();

}  // namespace meshtest::runner
