// Meshes and shardings, shared by the compiler's shard pass and the mesh
// runtime: a mesh of chips with named axes (row-major chip ids), how a
// tensor is split over it (per dim: the mesh axes it is split over, empty for
// replicated), and host-side split / assemble of tensors by that rule.
//
// A dim split over axes (a1, a2, ...) is cut into size(a1)*size(a2)*...
// equal blocks; a chip holds block number = row-major index of its
// coordinates along (a1, a2, ...) (the JAX / GSPMD convention).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "core/tensor.h"

namespace meshtest {

struct Mesh {
  std::vector<int64_t> shape;           // e.g. {2, 4}
  std::vector<std::string> axis_names;  // e.g. {"batch", "model"}

  int64_t size() const;                         // number of chips
  int axis_index(const std::string& name) const;  // -1 when unknown
  std::vector<int64_t> coords(int64_t chip) const;
  std::string text() const;  // "2x4"
  bool operator==(const Mesh& o) const { return shape == o.shape && axis_names == o.axis_names; }
};

// Per tensor dim: mesh axis indices it is split over (empty: replicated).
struct Sharding {
  std::vector<std::vector<int>> dims;

  static Sharding replicated(size_t rank) { return {std::vector<std::vector<int>>(rank)}; }
  bool is_replicated() const;
  bool operator==(const Sharding& o) const { return dims == o.dims; }
  bool operator!=(const Sharding& o) const { return dims != o.dims; }
};

// Chips along `axes` (the group size of a collective over them).
int64_t axes_size(const Mesh& mesh, const std::vector<int>& axes);
// Row-major index of `chip`'s coordinates along `axes` (its rank in the group).
int64_t group_rank(const Mesh& mesh, const std::vector<int>& axes, int64_t chip);
// The chips sharing every coordinate with `chip` except along `axes`, by rank.
std::vector<int64_t> group_members(const Mesh& mesh, const std::vector<int>& axes, int64_t chip);

// "model" / "batch,model" <-> axis indices; throws Error naming unknown axes.
std::vector<int> parse_axes(const Mesh& mesh, const std::string& names);
std::string axes_text(const Mesh& mesh, const std::vector<int>& axes);
// "[model, _, (batch,model)]" for messages and the IR printer.
std::string sharding_text(const Mesh& mesh, const Sharding& sharding);

// Shape of one chip's shard; throws Error when a split dim does not divide.
Shape local_shape(const Mesh& mesh, const Shape& global, const Sharding& sharding);

// Block `index` of `count` equal blocks along `dim` / blocks joined along `dim`
// (any dtype with a fixed element size; not bfp8_b).
Tensor slice_block(const Tensor& t, int64_t dim, int64_t index, int64_t count);
Tensor concat_blocks(const std::vector<const Tensor*>& blocks, int64_t dim);

// `chip`'s shard of the global tensor / the global tensor from every chip's
// shard (replicated dims are taken from the first chip of each block).
Tensor shard_for_chip(const Mesh& mesh, const Tensor& global, const Sharding& sharding, int64_t chip);
Tensor assemble_shards(const Mesh& mesh, const std::vector<Tensor>& shards, const Sharding& sharding);

// Per tensor dim: the mesh axis names it is split over (empty: replicated).
using NamedPartitionSpec = std::vector<std::vector<std::string>>;

// How a program is to be split over a mesh: the mesh and each split
// parameter's spec. What a case asks of the backend (the simulated chip's
// shard pass, a PJRT plugin's SPMD partitioner) for a mesh.
struct ShardingRequest {
  Mesh mesh;
  std::map<std::string, NamedPartitionSpec> specs;  // parameter name -> spec (absent: replicated)
  // Output name -> the split it must leave the chips in (absent: whatever
  // propagation gives). A whole result is cut in place (shard_slice), one
  // split otherwise is gathered first. Training: each weight's gradient in
  // its weight's split.
  std::map<std::string, NamedPartitionSpec> output_specs;

  std::string fingerprint() const;  // canonical text, for compile-cache keys
};

}  // namespace meshtest
