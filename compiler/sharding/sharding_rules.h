// Private to compiler/sharding*: the sharding rules, one file per op family
// (in the spirit of MLIR's sharding interface: each op says how its operands
// and result shard), and the table that maps every op to its rule
// (sharding_rules.cpp). A rule emits the op's local form into the context and
// returns its result's split, or nullopt with `why` set: the driver
// (propagation.cpp) then gathers the operands and runs the op replicated.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/sharding/shard_context.h"
#include "core/op_table.h"

namespace meshtest::compiler::sharding {

using ShardingRule = std::optional<Local> (*)(ShardContext& cx, const Op& op, std::vector<Local>& in,
                                               std::string& why);

// Every op's rule, or why it has none (sharding_rules.cpp).
const OpTable<ShardingRule>& sharding_rules();

// elementwise_rules.cpp
std::optional<Local> same_split_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why);
std::optional<Local> broadcast_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why);
std::optional<Local> constant_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why);
// linalg_rules.cpp
std::optional<Local> linear_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why);
std::optional<Local> matmul_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why);
// embedding_rules.cpp
std::optional<Local> embedding_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why);
std::optional<Local> embedding_backward_rule(ShardContext& cx, const Op& op, std::vector<Local>& in,
                                             std::string& why);
// shape_rules.cpp
std::optional<Local> reshape_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why);
std::optional<Local> transpose_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why);
std::optional<Local> concat_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why);
std::optional<Local> whole_axis_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why);
std::optional<Local> slice_backward_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why);
// norm_rules.cpp
std::optional<Local> norm_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why);
// reduction_rules.cpp
std::optional<Local> reduce_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why);
// batch_rules.cpp
std::optional<Local> attention_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why);
std::optional<Local> data_parallel_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why);
std::optional<Local> data_parallel_two_operand_rule(ShardContext& cx, const Op& op, std::vector<Local>& in,
                                                    std::string& why);
std::optional<Local> weight_gradient_rule(ShardContext& cx, const Op& op, std::vector<Local>& in, std::string& why);

}  // namespace meshtest::compiler::sharding
