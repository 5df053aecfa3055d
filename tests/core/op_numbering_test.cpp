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
