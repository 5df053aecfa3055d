// Collectives: groups from the mesh, data moved with core/sharding.h's block
// helpers, sums in f32 (bf16, f32) or exact integers (i32, i64). The
// collective mutants of core/mutation.h live here too.
#include "runtime/mesh/collectives.h"

#include "core/error.h"
#include "core/mutation.h"

namespace meshtest::runtime {

namespace {

// Elementwise sum of the group's tensors, in rank order, in the operands' dtype
// (bf16 accumulated in f32 and rounded once, or with `bf16_adds` rounded
// after every add: the all_reduce_bf16_accumulation mutant).
Tensor sum_group(const std::vector<const Tensor*>& members, bool bf16_adds = false) {
  const Tensor& first = *members.at(0);
  Tensor out(first.dtype(), first.shape());
  const int64_t n = first.numel();
  switch (first.dtype()) {
    case DType::BF16: {
      std::vector<float> acc(static_cast<size_t>(n), 0.0f);
      for (const Tensor* t : members) {
        const uint16_t* p = t->data<uint16_t>();
        for (int64_t i = 0; i < n; ++i) {
          float& a = acc[static_cast<size_t>(i)];
          a += bf16_to_f32(p[i]);
          if (bf16_adds) a = bf16_to_f32(f32_to_bf16(a));
        }
      }
      uint16_t* o = out.data<uint16_t>();
      for (int64_t i = 0; i < n; ++i) o[i] = f32_to_bf16(acc[static_cast<size_t>(i)]);
      return out;
    }
    case DType::F32: {
      float* o = out.data<float>();
      for (int64_t i = 0; i < n; ++i) o[i] = 0.0f;
      for (const Tensor* t : members) {
        const float* p = t->data<float>();
        for (int64_t i = 0; i < n; ++i) o[i] += p[i];
      }
      return out;
    }
    case DType::I32:
    case DType::I64: {
      const bool wide = first.dtype() == DType::I64;
      for (int64_t i = 0; i < n; ++i) {
        int64_t s = 0;
        for (const Tensor* t : members) s += wide ? t->data<int64_t>()[i] : t->data<int32_t>()[i];
        if (wide) out.data<int64_t>()[i] = s;
        else out.data<int32_t>()[i] = static_cast<int32_t>(s);
      }
      return out;
    }
    default:
      throw RuntimeError("cannot sum " + std::string(dtype_name(first.dtype())) + " tensors across chips");
  }
}

// The members a reduction sums: all of them, or under the
// all_reduce_one_chip_short / reduce_scatter_one_chip_short mutants
// (core/mutation.h) all but the last.
std::vector<const Tensor*> summed_members(OpKind kind, std::vector<const Tensor*> members) {
  const bool short_by_one = (kind == OpKind::AllReduce && mutant_active(MutantId::AllReduceOneChipShort)) ||
                            (kind == OpKind::ReduceScatter && mutant_active(MutantId::ReduceScatterOneChipShort));
  if (short_by_one && members.size() > 1) members.pop_back();
  return members;
}

// all_reduce's result: the sum, or under the all_reduce_mean_for_sum mutant
// the mean (floating dtypes).
Tensor all_reduce_result(const std::vector<const Tensor*>& members) {
  Tensor sum = sum_group(members, mutant_active(MutantId::AllReduceBf16Accumulation));
  if (!mutant_active(MutantId::AllReduceMeanForSum) || !is_floating(sum.dtype())) return sum;
  Tensor mean(DType::F32, sum.shape());
  for (int64_t i = 0; i < sum.numel(); ++i) {
    mean.data<float>()[i] = static_cast<float>(sum.element_as_double(i) / static_cast<double>(members.size()));
  }
  return mean.to(sum.dtype());
}

// The group's axes, or under the all_reduce_over_whole_mesh mutant every
// axis of the mesh for an all_reduce.
std::vector<int> group_axes(OpKind kind, const Mesh& mesh, std::vector<int> axes) {
  if (kind != OpKind::AllReduce || !mutant_active(MutantId::AllReduceOverWholeMesh)) return axes;
  std::vector<int> all;
  for (size_t a = 0; a < mesh.shape.size(); ++a) all.push_back(static_cast<int>(a));
  return all;
}

// Position r of a gather or scatter holds block `r`, or under the
// all_gather_chunk_order_rotated / reduce_scatter_chunk_mismatch mutants
// block r+1 (mod the group size).
int64_t block_at(OpKind kind, int64_t r, int64_t g) {
  const bool rotated = (kind == OpKind::AllGather && mutant_active(MutantId::AllGatherChunkOrderRotated)) ||
                       (kind == OpKind::ReduceScatter && mutant_active(MutantId::ReduceScatterChunkMismatch));
  return rotated ? (r + 1) % g : r;
}

}  // namespace

bool is_collective(OpKind kind) {
  return kind == OpKind::AllGather || kind == OpKind::ReduceScatter || kind == OpKind::AllReduce ||
         kind == OpKind::AllToAll || kind == OpKind::ShardSlice;
}

CollectiveResult run_collective(OpKind kind, const Attrs& attrs, const Mesh& mesh,
                                const std::vector<const Tensor*>& operands) {
  check_mutant_environment();
  if (static_cast<int64_t>(operands.size()) != mesh.size()) {
    throw RuntimeError("collective needs one operand per chip: " + std::to_string(operands.size()) + " for mesh " +
                       mesh.text());
  }
  std::vector<int> axes;
  try {
    axes = group_axes(kind, mesh, parse_axes(mesh, attrs.get_string("axes")));
  } catch (const Error& e) {
    throw RuntimeError(std::string(op_name(kind)) + ": " + e.what());
  }
  const int64_t g = axes_size(mesh, axes);
  const int64_t rank = static_cast<int64_t>(operands[0]->shape().size());
  auto dim_attr = [&](const char* name) { return normalize_axis(attrs.get_int(name), rank); };
  CollectiveResult result;
  result.per_chip.resize(operands.size());
  for (int64_t chip = 0; chip < mesh.size(); ++chip) {
    if (group_rank(mesh, axes, chip) != 0) continue;  // one pass per group, led by its rank 0
    const std::vector<int64_t> members = group_members(mesh, axes, chip);
    std::vector<const Tensor*> in;
    for (int64_t m : members) {
      const Tensor* t = operands[static_cast<size_t>(m)];
      if (t->shape() != operands[static_cast<size_t>(chip)]->shape() || t->dtype() != operands[static_cast<size_t>(chip)]->dtype()) {
        throw RuntimeError(std::string(op_name(kind)) + ": chip " + std::to_string(m) + " holds " +
                           type_to_string({t->dtype(), t->shape()}) + ", chip " + std::to_string(chip) + " holds " +
                           type_to_string({operands[static_cast<size_t>(chip)]->dtype(),
                                           operands[static_cast<size_t>(chip)]->shape()}));
      }
      in.push_back(t);
    }
    const auto bytes = static_cast<int64_t>(in[0]->nbytes());
    try {
      switch (kind) {
        case OpKind::AllGather: {
          std::vector<const Tensor*> ordered;
          for (int64_t r = 0; r < g; ++r) ordered.push_back(in[static_cast<size_t>(block_at(kind, r, g))]);
          const Tensor gathered = concat_blocks(ordered, dim_attr("dim"));
          for (int64_t m : members) result.per_chip[static_cast<size_t>(m)] = gathered;
          result.bytes_moved += g * (g - 1) * bytes;
          break;
        }
        case OpKind::AllReduce: {
          const Tensor sum = all_reduce_result(summed_members(kind, in));
          for (int64_t m : members) result.per_chip[static_cast<size_t>(m)] = sum;
          result.bytes_moved += 2 * (g - 1) * bytes;  // ring: reduce-scatter + all-gather
          break;
        }
        case OpKind::ReduceScatter: {
          const Tensor sum = sum_group(summed_members(kind, in));
          const int64_t dim = dim_attr("dim");
          for (int64_t r = 0; r < g; ++r) {
            result.per_chip[static_cast<size_t>(members[static_cast<size_t>(r)])] =
                slice_block(sum, dim, block_at(kind, r, g), g);
          }
          result.bytes_moved += (g - 1) * bytes;
          break;
        }
        case OpKind::ShardSlice: {  // each member cuts its own block: nothing moves
          const int64_t dim = dim_attr("dim");
          for (int64_t r = 0; r < g; ++r) {
            const size_t m = static_cast<size_t>(members[static_cast<size_t>(r)]);
            result.per_chip[m] = slice_block(*in[static_cast<size_t>(r)], dim, r, g);
          }
          break;
        }
        case OpKind::AllToAll: {
          const int64_t split = dim_attr("split_dim");
          const int64_t concat = dim_attr("concat_dim");
          for (int64_t r = 0; r < g; ++r) {
            std::vector<Tensor> received;
            for (int64_t src = 0; src < g; ++src) received.push_back(slice_block(*in[static_cast<size_t>(src)], split, r, g));
            std::vector<const Tensor*> ptrs;
            for (const Tensor& t : received) ptrs.push_back(&t);
            result.per_chip[static_cast<size_t>(members[static_cast<size_t>(r)])] = concat_blocks(ptrs, concat);
          }
          result.bytes_moved += (g - 1) * bytes;
          break;
        }
        default:
          throw RuntimeError(std::string(op_name(kind)) + " is not a collective");
      }
    } catch (const RuntimeError&) {
      throw;
    } catch (const Error& e) {
      throw RuntimeError(std::string(op_name(kind)) + " over '" + attrs.get_string("axes") + "': " + e.what());
    }
  }
  return result;
}

}  // namespace meshtest::runtime
