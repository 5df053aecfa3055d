// Mesh coordinates, collective groups, shard shapes and host split/assemble.
#include "core/sharding.h"

#include <cstring>
#include <sstream>

#include "core/error.h"

namespace meshtest {

namespace {

size_t element_bytes(const Tensor& t) {
  if (t.dtype() == DType::BFP8_B) throw Error("bfp8_b tensors cannot be split or joined element-wise");
  return dtype_size(t.dtype());
}

// Copies the box of `small` (its whole extent) to/from `big` at `offsets`.
void copy_box(const Tensor& small, const Tensor& big, const Shape& offsets, bool into_big) {
  const size_t es = element_bytes(small);
  const Shape& ls = small.shape();
  const Shape& gs = big.shape();
  const size_t rank = ls.size();
  auto* sp = static_cast<char*>(const_cast<void*>(small.raw_data()));
  auto* gp = static_cast<char*>(const_cast<void*>(big.raw_data()));
  if (rank == 0) {
    std::memcpy(into_big ? gp : sp, into_big ? sp : gp, es);
    return;
  }
  if (small.numel() == 0) return;
  std::vector<int64_t> gstride(rank, 1);
  for (size_t d = rank - 1; d-- > 0;) gstride[d] = gstride[d + 1] * gs[d + 1];
  const int64_t row = ls[rank - 1];
  const int64_t rows = small.numel() / row;
  std::vector<int64_t> idx(rank, 0);
  for (int64_t r = 0; r < rows; ++r) {
    int64_t g = 0;
    for (size_t d = 0; d < rank; ++d) g += (idx[d] + offsets[d]) * gstride[d];
    char* gptr = gp + static_cast<size_t>(g) * es;
    char* sptr = sp + static_cast<size_t>(r * row) * es;
    std::memcpy(into_big ? gptr : sptr, into_big ? sptr : gptr, static_cast<size_t>(row) * es);
    for (size_t d = rank - 1; d-- > 0;) {  // odometer over all dims but the last
      if (++idx[d] < ls[d]) break;
      idx[d] = 0;
    }
  }
}

// Offsets of `chip`'s shard inside the global tensor.
Shape shard_offsets(const Mesh& mesh, const Shape& local, const Sharding& s, int64_t chip) {
  Shape off(local.size(), 0);
  for (size_t d = 0; d < local.size() && d < s.dims.size(); ++d) {
    if (!s.dims[d].empty()) off[d] = group_rank(mesh, s.dims[d], chip) * local[d];
  }
  return off;
}

}  // namespace

int64_t Mesh::size() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int Mesh::axis_index(const std::string& name) const {
  for (size_t i = 0; i < axis_names.size(); ++i) {
    if (axis_names[i] == name) return static_cast<int>(i);
  }
  return -1;
}

std::vector<int64_t> Mesh::coords(int64_t chip) const {
  std::vector<int64_t> c(shape.size(), 0);
  for (size_t d = shape.size(); d-- > 0;) {
    c[d] = chip % shape[d];
    chip /= shape[d];
  }
  return c;
}

std::string Mesh::text() const {
  std::string s;
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? "x" : "") + std::to_string(shape[i]);
  return s.empty() ? "1" : s;
}

bool Sharding::is_replicated() const {
  for (const auto& d : dims) {
    if (!d.empty()) return false;
  }
  return true;
}

int64_t axes_size(const Mesh& mesh, const std::vector<int>& axes) {
  int64_t n = 1;
  for (int a : axes) n *= mesh.shape.at(static_cast<size_t>(a));
  return n;
}

int64_t group_rank(const Mesh& mesh, const std::vector<int>& axes, int64_t chip) {
  const std::vector<int64_t> c = mesh.coords(chip);
  int64_t r = 0;
  for (int a : axes) r = r * mesh.shape[static_cast<size_t>(a)] + c[static_cast<size_t>(a)];
  return r;
}

std::vector<int64_t> group_members(const Mesh& mesh, const std::vector<int>& axes, int64_t chip) {
  std::vector<int64_t> members(static_cast<size_t>(axes_size(mesh, axes)), -1);
  const std::vector<int64_t> mine = mesh.coords(chip);
  for (int64_t other = 0; other < mesh.size(); ++other) {
    const std::vector<int64_t> c = mesh.coords(other);
    bool same = true;
    for (size_t d = 0; d < c.size(); ++d) {
      bool in_axes = false;
      for (int a : axes) in_axes = in_axes || a == static_cast<int>(d);
      if (!in_axes && c[d] != mine[d]) same = false;
    }
    if (same) members[static_cast<size_t>(group_rank(mesh, axes, other))] = other;
  }
  return members;
}

std::vector<int> parse_axes(const Mesh& mesh, const std::string& names) {
  std::vector<int> axes;
  std::stringstream in(names);
  for (std::string name; std::getline(in, name, ',');) {
    const int a = mesh.axis_index(name);
    if (a < 0) throw Error("mesh " + mesh.text() + " has no axis '" + name + "'");
    axes.push_back(a);
  }
  if (axes.empty()) throw Error("no mesh axes given");
  return axes;
}

std::string axes_text(const Mesh& mesh, const std::vector<int>& axes) {
  std::string s;
  for (int a : axes) s += (s.empty() ? "" : ",") + mesh.axis_names.at(static_cast<size_t>(a));
  return s;
}

std::string sharding_text(const Mesh& mesh, const Sharding& sharding) {
  std::string s = "[";
  for (size_t d = 0; d < sharding.dims.size(); ++d) {
    const auto& axes = sharding.dims[d];
    s += d ? ", " : "";
    s += axes.empty() ? "_" : axes.size() == 1 ? axes_text(mesh, axes) : "(" + axes_text(mesh, axes) + ")";
  }
  return s + "]";
}

Shape local_shape(const Mesh& mesh, const Shape& global, const Sharding& sharding) {
  Shape out = global;
  for (size_t d = 0; d < out.size() && d < sharding.dims.size(); ++d) {
    if (sharding.dims[d].empty()) continue;
    const int64_t n = axes_size(mesh, sharding.dims[d]);
    if (out[d] % n != 0) {
      throw Error("dim " + std::to_string(d) + " of " + shape_to_string(global) + " does not split into " +
                  std::to_string(n) + " shards over mesh axes " + axes_text(mesh, sharding.dims[d]));
    }
    out[d] /= n;
  }
  return out;
}

Tensor slice_block(const Tensor& t, int64_t dim, int64_t index, int64_t count) {
  Shape ls = t.shape();
  const auto d = static_cast<size_t>(dim);
  if (ls.at(d) % count != 0) throw Error("dim " + std::to_string(dim) + " does not split into " + std::to_string(count));
  ls[d] /= count;
  Tensor out(t.dtype(), ls);
  Shape off(ls.size(), 0);
  off[d] = index * ls[d];
  copy_box(out, t, off, false);
  return out;
}

Tensor concat_blocks(const std::vector<const Tensor*>& blocks, int64_t dim) {
  Shape gs = blocks.at(0)->shape();
  const auto d = static_cast<size_t>(dim);
  gs.at(d) *= static_cast<int64_t>(blocks.size());
  Tensor out(blocks[0]->dtype(), gs);
  Shape off(gs.size(), 0);
  for (size_t i = 0; i < blocks.size(); ++i) {
    off[d] = static_cast<int64_t>(i) * blocks[0]->shape()[d];
    copy_box(*blocks[i], out, off, true);
  }
  return out;
}

Tensor shard_for_chip(const Mesh& mesh, const Tensor& global, const Sharding& sharding, int64_t chip) {
  if (sharding.is_replicated()) return global;
  Tensor out(global.dtype(), local_shape(mesh, global.shape(), sharding));
  copy_box(out, global, shard_offsets(mesh, out.shape(), sharding, chip), false);
  return out;
}

Tensor assemble_shards(const Mesh& mesh, const std::vector<Tensor>& shards, const Sharding& sharding) {
  if (sharding.is_replicated()) return shards.at(0);
  Shape gs = shards.at(0).shape();
  std::vector<bool> used(mesh.shape.size(), false);
  for (size_t d = 0; d < gs.size() && d < sharding.dims.size(); ++d) {
    for (int a : sharding.dims[d]) used[static_cast<size_t>(a)] = true;
    gs[d] *= axes_size(mesh, sharding.dims[d]);
  }
  Tensor out(shards[0].dtype(), gs);
  for (int64_t chip = 0; chip < mesh.size(); ++chip) {
    const std::vector<int64_t> c = mesh.coords(chip);
    bool first_replica = true;
    for (size_t a = 0; a < c.size(); ++a) first_replica = first_replica && (used[a] || c[a] == 0);
    if (!first_replica) continue;
    const Tensor& s = shards[static_cast<size_t>(chip)];
    copy_box(s, out, shard_offsets(mesh, s.shape(), sharding, chip), true);
  }
  return out;
}

std::string ShardingRequest::fingerprint() const {
  std::string s = "mesh=" + mesh.text() + ":";
  for (const std::string& a : mesh.axis_names) s += a + ",";
  auto add_spec = [&s](const std::string& name, const NamedPartitionSpec& spec) {
    s += ";" + name + "=";
    for (const auto& dim : spec) {
      s += "(";
      for (const std::string& a : dim) s += a + ",";
      s += ")";
    }
  };
  for (const auto& [name, spec] : specs) add_spec(name, spec);
  s += ";outputs";
  for (const auto& [name, spec] : output_specs) add_spec(name, spec);
  return s;
}

}  // namespace meshtest
