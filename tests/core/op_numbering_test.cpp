// Freezes the number of every existing op. OpKind values cross binary
// boundaries (loader plugins are compiled against them, compile-cache files
// store them; see OpKind in core/ops.h), so a new op is appended with the
// next number and added at the end of this list; an existing line never
// changes.
#include <gtest/gtest.h>

#include <string_view>
#include <utility>

#include "core/ops.h"

namespace meshtest {
namespace {

constexpr std::pair<std::string_view, int> kFrozenNumbers[] = {
    {"relu", 0},
    {"gelu", 1},
    {"tanh", 2},
    {"exp", 3},
    {"log", 4},
    {"sqrt", 5},
    {"rsqrt", 6},
    {"neg", 7},
    {"sigmoid", 8},
    {"silu", 9},
    {"erf", 10},
    {"sin", 11},
    {"cos", 12},
    {"add", 13},
    {"sub", 14},
    {"mul", 15},
    {"div", 16},
    {"maximum", 17},
    {"cast", 18},
    {"constant", 19},
    {"matmul", 20},
    {"linear", 21},
    {"conv2d", 22},
    {"max_pool2d", 23},
    {"avg_pool2d", 24},
    {"global_avg_pool2d", 25},
    {"batch_norm", 26},
    {"layer_norm", 27},
    {"softmax", 28},
    {"embedding", 29},
    {"reshape", 30},
    {"transpose", 31},
    {"concat", 32},
    {"slice", 33},
    {"reduce_sum", 34},
    {"reduce_mean", 35},
    {"reduce_max", 36},
    {"all_gather", 37},
    {"reduce_scatter", 38},
    {"all_reduce", 39},
    {"all_to_all", 40},
    {"rms_norm", 41},
    {"sdpa", 42},
    {"topk_mask", 43},
    {"greater", 44},
    {"conv2d_backward_input", 45},
    {"conv2d_backward_weight", 46},
    {"max_pool2d_backward", 47},
    {"avg_pool2d_backward", 48},
    {"embedding_backward", 49},
    {"slice_backward", 50},
    {"shard_slice", 51},
    {"embedding_shard", 52},
    {"abs", 53},
    {"sign", 54},
    {"floor", 55},
    {"ceil", 56},
    {"round_afz", 57},
    {"round_even", 58},
    {"expm1", 59},
    {"log1p", 60},
    {"cbrt", 61},
    {"tan", 62},
    {"not", 63},
    {"popcnt", 64},
    {"clz", 65},
    {"is_finite", 66},
    {"minimum", 67},
    {"power", 68},
    {"remainder", 69},
    {"atan2", 70},
    {"and", 71},
    {"or", 72},
    {"xor", 73},
    {"shift_left", 74},
    {"shift_right_arithmetic", 75},
    {"shift_right_logical", 76},
    {"compare", 77},
    {"select", 78},
    {"clamp", 79},
    {"next_after", 80},
    {"sinh", 81},
    {"cosh", 82},
    {"asin", 83},
    {"acos", 84},
    {"atan", 85},
    {"asinh", 86},
    {"acosh", 87},
    {"atanh", 88},
    {"erfc", 89},
    {"erf_inv", 90},
    {"lgamma", 91},
    {"digamma", 92},
    {"bitcast_convert", 93},
    {"reduce_precision", 94},
    {"iota", 95},
    {"broadcast_in_dim", 96},
    {"pad", 97},
    {"reverse", 98},
    {"dynamic_slice", 99},
    {"dynamic_update_slice", 100},
    {"gather", 101},
    {"scatter", 102},
    {"dot_general", 103},
    {"convolution", 104},
    {"reduce", 105},
    {"reduce_arg", 106},
    {"reduce_window", 107},
    {"select_and_scatter", 108},
    {"sort_permutation", 109},
    {"take_along_axis", 110},
};

TEST(OpNumbering, ExistingOpsKeepTheirNumbers) {
  for (const auto& [name, number] : kFrozenNumbers) {
    const std::optional<OpKind> kind = find_op(name);
    ASSERT_TRUE(kind.has_value()) << "op '" << name << "' was removed: ops are never removed (loader ABI)";
    EXPECT_EQ(static_cast<int>(*kind), number) << "op '" << name << "' was renumbered: append new ops instead";
  }
}

TEST(OpNumbering, EveryOpIsFrozenHere) {
  EXPECT_EQ(all_ops().size(), std::size(kFrozenNumbers))
      << "a new op's name and number belong at the end of kFrozenNumbers";
  EXPECT_EQ(static_cast<size_t>(kLastOp) + 1, all_ops().size());
}

}  // namespace
}  // namespace meshtest
