// Reference data-movement kernels for any element dtype: reshape, transpose
// and slice (strided copies), concat, and embedding lookup with range checks.
#include <algorithm>
#include <cstring>

#include "core/error.h"
#include "runtime/reference/reference_kernels.h"
#include "runtime/reference/reference_strided_loop.h"

namespace meshtest::runtime::reference {

namespace {

template <class T>
void copy_runs(const T* src, T* dst, const StridedPlan<1>& plan) {
  for_each_strided_run(
      plan, [&](int64_t pos, const std::array<int64_t, 1>& off, int64_t len, const std::array<int64_t, 1>& step) {
        const T* s = src + off[0];
        T* d = dst + pos;
        if (step[0] == 1) {
          std::memcpy(d, s, static_cast<size_t>(len) * sizeof(T));
        } else {
          for (int64_t i = 0; i < len; ++i) d[i] = s[i * step[0]];
        }
      });
}

template <class Id>
Tensor gather_rows(const Tensor& ids, const Tensor& table) {
  const Id* pid = ids.data<Id>();
  const int64_t count = ids.numel();
  const int64_t vocab = table.dim(0);
  // Validate first (sequentially) so the reported id is the first bad one.
  for (int64_t i = 0; i < count; ++i) {
    if (pid[i] < 0 || pid[i] >= vocab) {
      throw RuntimeError("id " + std::to_string(pid[i]) + " out of range [0, " + std::to_string(vocab) + ")");
    }
  }
  Shape shape = ids.shape();
  shape.push_back(table.dim(1));
  Tensor out(table.dtype(), shape);
  const size_t row_bytes = static_cast<size_t>(table.dim(1)) * element_bytes(table.dtype());
  const auto* src = static_cast<const uint8_t*>(table.raw_data());
  auto* dst = static_cast<uint8_t*>(out.raw_data());
  parallel_ranges(count, std::max<int64_t>(1, kElementGrain / std::max<int64_t>(table.dim(1), 1)),
                  [&](int64_t i0, int64_t i1) {
                    for (int64_t i = i0; i < i1; ++i) {
                      std::memcpy(dst + static_cast<size_t>(i) * row_bytes,
                                  src + static_cast<size_t>(pid[i]) * row_bytes, row_bytes);
                    }
                  });
  return out;
}

}  // namespace

Tensor copy_strided(const Tensor& x, const Shape& shape, const std::vector<int64_t>& strides, int64_t base) {
  Tensor out(x.dtype(), shape);
  if (out.numel() == 0) return out;
  const StridedPlan<1> plan = make_strided_plan<1>(shape, {strides}, {base});
  switch (element_bytes(x.dtype())) {
    case 1:
      copy_runs(static_cast<const uint8_t*>(x.raw_data()), static_cast<uint8_t*>(out.raw_data()), plan);
      break;
    case 2:
      copy_runs(static_cast<const uint16_t*>(x.raw_data()), static_cast<uint16_t*>(out.raw_data()), plan);
      break;
    case 4:
      copy_runs(static_cast<const uint32_t*>(x.raw_data()), static_cast<uint32_t*>(out.raw_data()), plan);
      break;
    case 8:
      copy_runs(static_cast<const uint64_t*>(x.raw_data()), static_cast<uint64_t*>(out.raw_data()), plan);
      break;
    default:
      throw RuntimeError("unsupported element size");
  }
  return out;
}

Tensor reshape(const Tensor& x, const Attrs& attrs) {
  const Shape shape = attrs.get_ints("shape");
  for (int64_t d : shape) {
    if (d < 0) throw RuntimeError("reshape target must be fully resolved, got " + shape_to_string(shape));
  }
  if (shape_numel(shape) != x.numel()) {
    throw RuntimeError("cannot reshape " + shape_to_string(x.shape()) + " to " + shape_to_string(shape));
  }
  return x.reshaped(shape);  // shares storage: tensors are immutable by convention
}

Tensor transpose(const Tensor& x, const Attrs& attrs) {
  const std::vector<int64_t>& perm = attrs.get_ints("perm");
  const int64_t rank = x.rank();
  if (static_cast<int64_t>(perm.size()) != rank) {
    throw RuntimeError("transpose perm must have " + std::to_string(rank) + " entries");
  }
  const std::vector<int64_t> in_strides = shape_strides(x.shape());
  std::vector<bool> seen(static_cast<size_t>(rank), false);
  Shape shape(static_cast<size_t>(rank));
  std::vector<int64_t> strides(static_cast<size_t>(rank));
  for (int64_t i = 0; i < rank; ++i) {
    int64_t p = perm[static_cast<size_t>(i)];
    if (p < 0) p += rank;
    if (p < 0 || p >= rank || seen[static_cast<size_t>(p)]) throw RuntimeError("transpose perm is not a permutation");
    seen[static_cast<size_t>(p)] = true;
    shape[static_cast<size_t>(i)] = x.dim(p);
    strides[static_cast<size_t>(i)] = in_strides[static_cast<size_t>(p)];
  }
  return copy_strided(x, shape, strides, 0);
}

Tensor slice(const Tensor& x, const Attrs& attrs) {
  const int64_t rank = x.rank();
  int64_t axis = attrs.get_int("axis");
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) throw RuntimeError("slice axis out of range for " + shape_to_string(x.shape()));
  const int64_t dim = x.dim(axis);
  const int64_t step = attrs.get_int("step", 1);
  if (step <= 0) throw RuntimeError("slice step must be positive");
  // Python semantics: negative bounds count from the end, then clamp to [0, dim].
  auto clamp = [dim](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + dim : v, 0, dim); };
  const int64_t start = clamp(attrs.get_int("start", 0));
  const int64_t end = clamp(attrs.get_int("end", dim));
  const int64_t len = end > start ? (end - start + step - 1) / step : 0;
  std::vector<int64_t> strides = shape_strides(x.shape());
  Shape shape = x.shape();
  shape[static_cast<size_t>(axis)] = len;
  const int64_t base = start * strides[static_cast<size_t>(axis)];
  strides[static_cast<size_t>(axis)] *= step;
  return copy_strided(x, shape, strides, base);
}

Tensor concat(const std::vector<Tensor>& xs, const Attrs& attrs) {
  if (xs.empty()) throw RuntimeError("concat needs at least one operand");
  const Tensor& first = xs.front();
  const int64_t rank = first.rank();
  int64_t axis = attrs.get_int("axis");
  if (axis < 0) axis += rank;
  if (axis < 0 || axis >= rank) throw RuntimeError("concat axis out of range for " + shape_to_string(first.shape()));
  Shape shape = first.shape();
  shape[static_cast<size_t>(axis)] = 0;
  for (const Tensor& t : xs) {
    bool compatible = t.dtype() == first.dtype() && t.rank() == rank;
    for (int64_t d = 0; compatible && d < rank; ++d) compatible = d == axis || t.dim(d) == first.dim(d);
    if (!compatible) {
      throw RuntimeError("concat operands " + shape_to_string(first.shape()) + " and " + shape_to_string(t.shape()) +
                         " differ outside axis " + std::to_string(axis));
    }
    shape[static_cast<size_t>(axis)] += t.dim(axis);
  }
  Tensor out(first.dtype(), shape);
  const size_t esize = element_bytes(first.dtype());
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= shape[static_cast<size_t>(d)];
  for (int64_t d = axis + 1; d < rank; ++d) inner *= shape[static_cast<size_t>(d)];
  const size_t out_row = static_cast<size_t>(shape[static_cast<size_t>(axis)] * inner) * esize;
  auto* dst = static_cast<uint8_t*>(out.raw_data());
  parallel_ranges(
      outer, std::max<int64_t>(1, kElementGrain / std::max<int64_t>(shape[static_cast<size_t>(axis)] * inner, 1)),
      [&](int64_t o0, int64_t o1) {
        for (int64_t o = o0; o < o1; ++o) {
          size_t at = static_cast<size_t>(o) * out_row;
          for (const Tensor& t : xs) {
            const size_t bytes = static_cast<size_t>(t.dim(axis) * inner) * esize;
            if (bytes == 0) continue;
            std::memcpy(dst + at, static_cast<const uint8_t*>(t.raw_data()) + static_cast<size_t>(o) * bytes, bytes);
            at += bytes;
          }
        }
      });
  return out;
}

Tensor embedding(const Tensor& ids, const Tensor& table) {
  if (table.rank() != 2) throw RuntimeError("embedding table must have rank 2, got " + shape_to_string(table.shape()));
  switch (ids.dtype()) {
    case DType::I32:
      return gather_rows<int32_t>(ids, table);
    case DType::I64:
      return gather_rows<int64_t>(ids, table);
    default:
      break;
  }
  throw RuntimeError("embedding ids must be i32 or i64, got " + std::string(dtype_name(ids.dtype())));
}

}  // namespace meshtest::runtime::reference
