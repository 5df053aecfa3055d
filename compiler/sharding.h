// Sharding propagation (the `shard` pass): turns a global graph plus
// partition specs of its parameters into the per-chip (local) graph every
// chip of the mesh runs, with collectives inserted where shards must meet.
//
// Rules (Megatron / GSPMD style; one file per op family in compiler/sharding/,
// the table of which op takes which rule in compiler/sharding/sharding_rules.cpp):
//  - embedding with its table split over the vocabulary: each chip looks up
//    its own rows (embedding_shard), one all_reduce adds the parts;
//  - linear with a weight split on its output dim: column-parallel, result
//    split on its last dim; split on its input dim with the activation split
//    the same way: row-parallel, partial sums, one all_reduce (bias after);
//  - matmul splits carried through batch dims (attention split by heads),
//    a contraction split on both sides gives partial sums and one all_reduce;
//  - reshape / transpose move splits with the dims they belong to;
//  - elementwise ops and norms keep the split of their operands;
//  - reductions over a split dim: sum -> all_reduce;
//  - batch-only ops (conv, pools, batch_norm, their input gradients) keep a
//    dim-0 (data) split; weight gradients over a split batch
//    (conv2d_backward_weight, embedding_backward) are partial sums, one
//    all_reduce (the data-parallel gradient all-reduce).
//  - an operand whole (replicated) where the result is split follows the
//    split without communication: a constant fill (or elementwise op of fills
//    and broadcast dims) is made again in the shard shape, anything else is
//    cut in place by shard_slice (each chip keeps its block);
// Anything else gathers its split operands (all_gather) and runs replicated:
// always correct, never a crash, and recorded in ShardingPlan::fallbacks.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/sharding.h"

namespace meshtest::compiler {

// The request (core/sharding.h), under the names the compiler has used.
using meshtest::NamedPartitionSpec;
using meshtest::ShardingRequest;

struct ShardingPlan {
  Mesh mesh;
  std::map<std::string, Sharding> params;   // parameters that are split (inputs and weights)
  std::map<std::string, Sharding> outputs;  // outputs that stay split (assembled on the host)
  std::vector<std::string> fallbacks;       // "op #12 softmax: softmax over a split dim; gathered"
  int64_t collectives = 0;                  // collective ops inserted

  std::string fallbacks_text() const;  // "a; b; c"
};

// Text forms (meshtest-opt --mesh / --shard): a mesh "2x4:rows,cols"; a
// partition spec, one entry per dim: "model,_" ("_": replicated, "a+b": a
// tuple of axes). Throw ParseError.
Mesh parse_mesh(const std::string& text);
NamedPartitionSpec parse_partition_spec(const std::string& text);

// Rewrites `graph` in place into the local graph. Split weights lose their
// data and initializer (each chip's shard is cut from the global weight at
// load time, see ShardingPlan::params). Throws CompileError for a spec that
// names an unknown mesh axis or does not fit its parameter.
ShardingPlan shard_graph(Graph& graph, const ShardingRequest& request);

// The split the shard pass gives output `output` of `graph` under `request`
// (every dim empty: replicated), for an input that must meet that output in
// its layout: a training graph's upstream gradient (data parallel: the batch
// split; tensor parallel: e.g. a vocabulary-split logits).
NamedPartitionSpec output_partition_spec(const Graph& graph, const ShardingRequest& request, std::string_view output);
// The same for every output of `graph`, by output name (one propagation).
std::map<std::string, NamedPartitionSpec> output_partition_specs(const Graph& graph, const ShardingRequest& request);

}  // namespace meshtest::compiler
