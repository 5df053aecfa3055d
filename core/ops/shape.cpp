// Shape ops (data movement): reshape, transpose, concat, slice.
#include <algorithm>

#include "core/ops/families.h"
#include "core/ops/type_checks.h"

namespace meshtest::ops {

TensorType infer_slice(const TensorType& x, const OpAttrs& attrs) {
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = normalize_axis(attrs.get_int("axis"), rank);
  const int64_t dim = x.shape[static_cast<size_t>(axis)];
  const int64_t step = attrs.get_int("step");
  if (step <= 0) fail("slice step must be positive");
  auto clamp = [dim](int64_t v) {
    if (v < 0) v += dim;
    return std::clamp<int64_t>(v, 0, dim);
  };
  const int64_t start = clamp(attrs.get_int("start"));
  const int64_t end = clamp(attrs.has("end") ? attrs.get_int("end") : dim);
  const int64_t len = end > start ? (end - start - 1) / step + 1 : 0;
  Shape out = x.shape;
  out[static_cast<size_t>(axis)] = len;
  return {x.dtype, out};
}

std::vector<AttrSpec> slice_attrs() {
  return {required_int("axis"), optional_int("start", 0), optional_int("end"), optional_int("step", 1)};
}

namespace {

TensorType reshape_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  const auto shape = attrs.get_ints("shape");
  for (int64_t d : shape) {
    if (d < 0) fail("reshape target must be fully resolved, got " + shape_to_string(shape));
  }
  if (checked_numel(shape) != checked_numel(in[0].shape)) {
    fail("cannot reshape " + type_to_string(in[0]) + " to " + shape_to_string(shape));
  }
  return {in[0].dtype, shape};
}

TensorType transpose_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  const auto perm = attrs.get_ints("perm");
  const size_t rank = in[0].shape.size();
  if (perm.size() != rank) fail("transpose perm must have " + std::to_string(rank) + " entries");
  std::vector<bool> seen(rank, false);
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t p = normalize_axis(perm[i], static_cast<int64_t>(rank));
    if (seen[static_cast<size_t>(p)]) fail("transpose perm is not a permutation");
    seen[static_cast<size_t>(p)] = true;
    out[i] = in[0].shape[static_cast<size_t>(p)];
  }
  return {in[0].dtype, out};
}

TensorType concat_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  const int64_t rank = static_cast<int64_t>(in[0].shape.size());
  const int64_t axis = normalize_axis(attrs.get_int("axis"), rank);
  Shape out = in[0].shape;
  for (size_t i = 1; i < in.size(); ++i) {
    if (in[i].dtype != in[0].dtype || static_cast<int64_t>(in[i].shape.size()) != rank) {
      fail("concat operands must share dtype and rank");
    }
    for (int64_t d = 0; d < rank; ++d) {
      if (d != axis && in[i].shape[static_cast<size_t>(d)] != out[static_cast<size_t>(d)]) {
        fail("concat operands differ outside axis " + std::to_string(axis));
      }
    }
    out[static_cast<size_t>(axis)] = checked_add(out[static_cast<size_t>(axis)], in[i].shape[static_cast<size_t>(axis)]);
  }
  return {in[0].dtype, out};
}

TensorType slice_type(const std::vector<TensorType>& in, const OpAttrs& attrs) { return infer_slice(in[0], attrs); }

}  // namespace

std::vector<OpDef> shape_ops() {
  return {
      {OpKind::Reshape, "reshape", OpFamily::Shape, 1, 1, {required_ints("shape")}, reshape_type,
       "reshape(x){shape}: shape fully resolved (no -1 in the IR)"},
      {OpKind::Transpose, "transpose", OpFamily::Shape, 1, 1, {required_ints("perm")}, transpose_type,
       "transpose(x){perm}: result dim i is x's dim perm[i]"},
      {OpKind::Concat, "concat", OpFamily::Shape, 1, -1, {required_int("axis")}, concat_type,
       "concat(x0, x1, ...){axis}"},
      {OpKind::Slice, "slice", OpFamily::Shape, 1, 1, slice_attrs(), slice_type,
       "slice(x){axis, start, end, step}: python semantics: negative start/end count from the end, clamped; "
       "step > 0"},
  };
}

}  // namespace meshtest::ops
