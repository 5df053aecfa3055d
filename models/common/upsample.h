// Nearest-neighbour 2-D upsampling by an integer factor (nn.Upsample(mode=
// "nearest")), composed from reshape and a broadcast add of zeros: no params.
#pragma once

#include "core/graph_builder.h"

namespace meshtest::models {

// x [N, C, H, W] -> [N, C, H*factor, W*factor]
ValueId upsample_nearest(GraphBuilder& b, ValueId x, int64_t factor);

}  // namespace meshtest::models
