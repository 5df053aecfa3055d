// Private to core/: the op families, one file each under core/ops/, every one
// returning the definitions of its ops. The registry (core/op_registry.cpp)
// lists them all in one place: a new family is added there.
#pragma once

#include <vector>

#include "core/op_def.h"

namespace meshtest::ops {

std::vector<OpDef> unary_elementwise_ops();   // unary_elementwise.cpp
std::vector<OpDef> binary_elementwise_ops();  // binary_elementwise.cpp
std::vector<OpDef> conversion_ops();          // conversion.cpp: cast, constant
std::vector<OpDef> linalg_ops();              // linalg.cpp: matmul, linear
std::vector<OpDef> conv_ops();                // conv.cpp
std::vector<OpDef> pooling_ops();             // pooling.cpp
std::vector<OpDef> norm_ops();                // norms.cpp: batch_norm, layer_norm
std::vector<OpDef> softmax_ops();             // softmax.cpp
std::vector<OpDef> routing_ops();             // routing.cpp: topk_mask
std::vector<OpDef> shape_ops();               // shape.cpp: reshape, transpose, concat, slice
std::vector<OpDef> reduction_ops();           // reductions.cpp
std::vector<OpDef> embedding_ops();           // embedding.cpp: embedding, embedding_shard
std::vector<OpDef> collective_ops();          // collectives.cpp
std::vector<OpDef> backward_ops();            // backward.cpp
std::vector<OpDef> composite_ops();           // composites.cpp: rms_norm, sdpa
std::vector<OpDef> stablehlo_elementwise_ops();  // stablehlo_elementwise.cpp: ops 53..95
// StableHLO structural ops 96..110 (their shared checks: stablehlo_checks.h).
std::vector<OpDef> stablehlo_movement_ops();        // stablehlo_movement.cpp: broadcast_in_dim .. take_along_axis
std::vector<OpDef> stablehlo_gather_scatter_ops();  // stablehlo_gather_scatter.cpp: gather, scatter
std::vector<OpDef> stablehlo_linalg_ops();          // stablehlo_linalg.cpp: dot_general, convolution
std::vector<OpDef> stablehlo_reduction_ops();       // stablehlo_reductions.cpp: reduce .. sort_permutation

}  // namespace meshtest::ops
