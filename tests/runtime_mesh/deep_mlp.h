// A deep stack of lazily initialized linear + relu layers (shared by the
// streamed-weights tests and their memory probe): `layers` weights of
// [width, width] f32, optionally Megatron-split in pairs on a mesh.
#pragma once

#include <cmath>
#include <memory>
#include <string>

#include "compiler/sharding.h"
#include "core/graph_builder.h"

namespace meshtest::testing {

inline std::string deep_mlp_weight(int layer) { return "layers." + std::to_string(layer) + ".weight"; }

inline Graph deep_mlp(int layers, int64_t width, int64_t tokens) {
  GraphBuilder b("deep_mlp");
  ValueId h = b.input("x", DType::F32, {tokens, width});
  const double stddev = std::sqrt(2.0 / static_cast<double>(width));
  for (int i = 0; i < layers; ++i) {
    const ValueId w = b.weight(deep_mlp_weight(i), {width, width}, Initializer::normal(0, stddev, 100 + i));
    h = b.relu(b.linear(h, w));
  }
  b.output("y", h);
  return b.finish();
}

// Even layers column-parallel, odd layers row-parallel (an all_reduce every pair).
inline std::shared_ptr<ShardingRequest> deep_mlp_megatron(int layers, Mesh mesh) {
  auto r = std::make_shared<ShardingRequest>();
  r->mesh = std::move(mesh);
  for (int i = 0; i < layers; ++i) {
    if (i % 2 == 0) r->specs[deep_mlp_weight(i)] = {{"model"}, {}};
    else r->specs[deep_mlp_weight(i)] = {{}, {"model"}};
  }
  return r;
}

}  // namespace meshtest::testing
