// Mesh configs and shard specs for the transformer families.
//
// Mesh: (1, N) with axes ("batch", "model") when the head count divides N,
// otherwise (2, N/2) when N is even and the heads divide N/2, otherwise
// (N/m, m) for the largest m >= 2 dividing both (the "batch" rows replicate),
// otherwise an error that says why (the "model" axis must split the heads evenly).
//
// Shard specs are rules on parameter-name suffixes: the first rule whose
// suffix ends the name decides the parameter's PartitionSpec; parameters no
// rule matches are replicated (left out of the spec).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "discovery/loader_sdk.h"

namespace meshtest::models {

inline constexpr const char* kModelAxis = "model";

sdk::MeshConfig heads_mesh(int64_t num_heads, int num_devices, std::string_view loader);

struct ShardRule {
  std::string suffix;
  sdk::PartitionSpec spec;
};

// PyTorch Linear weight [out, in] / bias [out]:
sdk::PartitionSpec column_parallel_weight();  // out split over "model"
sdk::PartitionSpec column_parallel_bias();    // [out] split over "model"
sdk::PartitionSpec row_parallel_weight();     // in split over "model"
// HF Conv1D weight [in, out] (GPT-2): the same splits, dims swapped.
sdk::PartitionSpec conv1d_column_parallel_weight();
sdk::PartitionSpec conv1d_row_parallel_weight();
// The Linear splits over the whole mesh ("batch" then "model"): a layer whose
// weights would otherwise repeat on every "batch" row (fewer kv heads than
// chips: Llama 3.1 70B on 32 chips is a 4x8 mesh) splits over every chip; on
// a (1, N) mesh the same as the "model" splits.
sdk::PartitionSpec column_parallel_weight_whole_mesh();
sdk::PartitionSpec row_parallel_weight_whole_mesh();

sdk::ShardSpec shard_by_rules(const Graph& graph, const std::vector<ShardRule>& rules);

}  // namespace meshtest::models
