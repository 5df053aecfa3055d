// A Llama-shaped decoder graph built with GraphBuilder, in the decomposed
// form a frontend emits (RMSNorm with casts, rotary embedding, grouped-query
// attention, SiLU MLP), with lazy weights: building it allocates no weight
// data. Used by the compile benchmarks and the compile-only tests.
#pragma once

#include <cstdint>

#include "core/graph.h"

namespace meshtest::bench {

struct LlamaShape {
  int64_t layers = 16;
  int64_t hidden = 2048;
  int64_t heads = 32;
  int64_t kv_heads = 8;
  int64_t intermediate = 8192;
  int64_t vocab = 128256;
  int64_t seq = 128;

  static LlamaShape llama_3_2_1b() { return {}; }
  static LlamaShape llama_3_1_8b() { return {32, 4096, 32, 8, 14336, 128256, 128}; }
};

Graph llama_shaped_graph(const LlamaShape& shape);

}  // namespace meshtest::bench
