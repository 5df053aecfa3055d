// Converters of ONNX's shape and data-movement ops and reductions: Reshape,
// Flatten, Transpose, Concat, Split, Slice, Gather, (Un)Squeeze, Expand, Pad,
// Tile, Reduce*, and the ops whose result is known at import time (Shape,
// Size, Constant, ConstantOfShape, Range). Axes come from attributes or
// inputs as the opset says.
#include <onnx/onnx_pb.h>

#include <cmath>
#include <limits>
#include <numeric>

#include "frontends/onnx/node_context.h"

namespace meshtest::frontends::onnx_import {

namespace {

int64_t numel_of(const Shape& s, size_t from, size_t to) {
  int64_t n = 1;
  for (size_t d = from; d < to; ++d) n *= s[d];
  return n;
}

void reshape(NodeContext& n) {
  const Shape& in = n.shape(0);
  std::vector<int64_t> target = n.opset() < 5 ? n.attr_ints("shape", {}) : n.ints(1, "the target shape");
  const bool allowzero = n.attr_int("allowzero", 0) != 0;
  for (size_t d = 0; d < target.size(); ++d) {
    if (target[d] == 0 && !allowzero) {
      if (d >= in.size()) n.unsupported("shape entry 0 at a dimension the input lacks");
      target[d] = in[d];
    }
  }
  n.set(0, n.b().reshape(n.in(0), target));
}

void flatten(NodeContext& n) {
  const Shape& s = n.shape(0);
  int64_t a = n.attr_int("axis", 1);  // in [-rank, rank]
  if (a < 0) a += static_cast<int64_t>(s.size());
  if (a < 0 || a > static_cast<int64_t>(s.size())) n.unsupported("axis out of range");
  const auto axis = static_cast<size_t>(a);
  n.set(0, n.b().reshape(n.in(0), {numel_of(s, 0, axis), numel_of(s, axis, s.size())}));
}

void transpose(NodeContext& n) {
  std::vector<int64_t> perm(static_cast<size_t>(n.rank(0)));
  std::iota(perm.rbegin(), perm.rend(), 0);
  perm = n.attr_ints("perm", perm);
  n.set(0, n.b().transpose(n.in(0), perm));
}

void concat(NodeContext& n) {
  std::vector<ValueId> xs;
  for (size_t i = 0; i < n.num_inputs(); ++i) {
    if (n.has(i)) xs.push_back(n.in(i));
  }
  n.set(0, n.b().concat(xs, n.attr_int("axis", 0)));
}

// Axes of Squeeze/Unsqueeze/Reduce*: an attribute before `input_since`, an
// optional input from then on; empty when absent.
std::vector<int64_t> axes_of(NodeContext& n, int input_since, size_t input = 1) {
  if (n.opset() < input_since) return n.attr_ints("axes", {});
  return n.has(input) ? n.ints(input, "axes") : std::vector<int64_t>{};
}

void squeeze(NodeContext& n) {
  const Shape& s = n.shape(0);
  std::vector<int64_t> axes = axes_of(n, 13);
  std::vector<bool> drop(s.size(), false);
  for (int64_t a : axes) drop[static_cast<size_t>(normalize_axis(a, static_cast<int64_t>(s.size())))] = true;
  Shape out;
  for (size_t d = 0; d < s.size(); ++d) {
    const bool squeezed = axes.empty() ? s[d] == 1 : drop[d];
    if (squeezed && s[d] != 1) n.unsupported("squeezing dimension " + std::to_string(d) + " of size " + std::to_string(s[d]));
    if (!squeezed) out.push_back(s[d]);
  }
  n.set(0, n.b().reshape(n.in(0), out));
}

void unsqueeze(NodeContext& n) {
  const Shape& s = n.shape(0);
  const std::vector<int64_t> axes = axes_of(n, 13);
  const auto rank = static_cast<int64_t>(s.size() + axes.size());
  std::vector<bool> added(static_cast<size_t>(rank), false);
  for (int64_t a : axes) added[static_cast<size_t>(normalize_axis(a, rank))] = true;
  Shape out;
  size_t k = 0;
  for (int64_t d = 0; d < rank; ++d) out.push_back(added[static_cast<size_t>(d)] ? 1 : s.at(k++));
  n.set(0, n.b().reshape(n.in(0), out));
}

void split(NodeContext& n) {
  const Shape& s = n.shape(0);
  const int64_t axis = normalize_axis(n.attr_int("axis", 0), static_cast<int64_t>(s.size()));
  const int64_t dim = s[static_cast<size_t>(axis)];
  std::vector<int64_t> sizes = n.opset() < 13 ? n.attr_ints("split", {}) : (n.has(1) ? n.ints(1, "split") : std::vector<int64_t>{});
  const auto outputs = static_cast<int64_t>(n.num_outputs());
  if (outputs == 0) n.unsupported("no outputs");
  if (n.opset() >= 18) n.attr_int("num_outputs", outputs);
  if (sizes.empty()) {
    const int64_t chunk = (dim + outputs - 1) / outputs;  // the last chunk may be smaller (opset 18)
    for (int64_t i = 0; i < outputs; ++i) sizes.push_back(std::min(chunk, dim - i * chunk));
  }
  int64_t start = 0;
  for (size_t i = 0; i < sizes.size(); ++i) {
    n.set(i, n.b().slice(n.in(0), axis, start, start + sizes[i]));
    start += sizes[i];
  }
}

void slice(NodeContext& n) {
  const bool attrs = n.opset() < 10;
  const std::vector<int64_t> starts = attrs ? n.attr_ints("starts", {}) : n.ints(1, "starts");
  const std::vector<int64_t> ends = attrs ? n.attr_ints("ends", {}) : n.ints(2, "ends");
  std::vector<int64_t> axes = attrs ? n.attr_ints("axes", {}) : (n.has(3) ? n.ints(3, "axes") : std::vector<int64_t>{});
  const std::vector<int64_t> steps = n.has(4) ? n.ints(4, "steps") : std::vector<int64_t>(starts.size(), 1);
  if (axes.empty()) {
    axes.resize(starts.size());
    std::iota(axes.begin(), axes.end(), 0);
  }
  if (ends.size() != starts.size() || axes.size() != starts.size() || steps.size() != starts.size()) {
    n.unsupported("starts, ends, axes and steps differ in length");
  }
  ValueId x = n.in(0);
  for (size_t i = 0; i < starts.size(); ++i) {
    if (steps[i] <= 0) n.unsupported("a step <= 0");
    const int64_t axis = normalize_axis(axes[i], n.rank(0));
    const int64_t dim = n.b().shape(x)[static_cast<size_t>(axis)];
    auto clamp = [dim](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + dim : v, 0, dim); };
    x = n.b().slice(x, axis, clamp(starts[i]), clamp(ends[i]), steps[i]);
  }
  n.set(0, x);
}

// Gather: the axis moved first, flattened to a [D, rest] table, looked up
// by embedding, and the result laid out as data[:axis] + indices + data[axis+1:].
void gather(NodeContext& n) {
  GraphBuilder& b = n.b();
  const Shape s = n.shape(0);
  const auto rank = static_cast<int64_t>(s.size());
  const int64_t axis = normalize_axis(n.attr_int("axis", 0), rank);
  const int64_t dim = s[static_cast<size_t>(axis)];
  ValueId ids;
  Shape id_shape = n.shape(1);
  if (const Tensor* known = n.data(1)) {  // negative indices count from the end
    std::vector<int64_t> v = n.ints(1, "indices");
    for (int64_t& i : v) {
      if (i < -dim || i >= dim) n.unsupported("index " + std::to_string(i) + " out of range for size " + std::to_string(dim));
      if (i < 0) i += dim;
    }
    ids = n.constant(Tensor::from_i64(known->shape(), v));
  } else {
    ids = n.in(1);
  }
  std::vector<int64_t> perm{axis};
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis) perm.push_back(d);
  }
  ValueId table = axis == 0 ? n.in(0) : b.transpose(n.in(0), perm);
  const int64_t rest = numel_of(s, 0, s.size()) / std::max<int64_t>(dim, 1);
  table = b.reshape(table, {dim, rest});
  ValueId y = b.op(OpKind::Embedding, {ids, table});
  Shape moved = id_shape;  // indices dims, then data dims other than axis
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis) moved.push_back(s[static_cast<size_t>(d)]);
  }
  y = b.reshape(y, moved);
  if (axis > 0) {  // move the index dims to position axis
    const auto k = static_cast<int64_t>(id_shape.size());
    std::vector<int64_t> back;
    for (int64_t d = 0; d < axis; ++d) back.push_back(k + d);
    for (int64_t d = 0; d < k; ++d) back.push_back(d);
    for (int64_t d = k + axis; d < static_cast<int64_t>(moved.size()); ++d) back.push_back(d);
    y = b.transpose(y, back);
  }
  n.set(0, y);
}

void expand(NodeContext& n) {
  const Shape target = n.ints(1, "the shape");
  const Shape out = broadcast_shapes(n.shape(0), target);
  if (out == n.shape(0)) return n.set(0, n.in(0));
  n.set(0, n.b().add(n.in(0), n.b().constant(0.0, out, n.type(0).dtype)));
}

void tile(NodeContext& n) {
  const std::vector<int64_t> repeats = n.ints(1, "repeats");
  ValueId x = n.in(0);
  for (size_t d = 0; d < repeats.size(); ++d) {
    if (repeats[d] < 1 || repeats[d] > 4096) n.unsupported("repeats outside [1, 4096]");
    if (repeats[d] != 1) x = n.b().concat(std::vector<ValueId>(static_cast<size_t>(repeats[d]), x), static_cast<int64_t>(d));
  }
  n.set(0, x);
}

// x padded along `axis` by repeating edge values or reflecting (mode "edge"/"reflect").
ValueId pad_copies(GraphBuilder& b, ValueId x, int64_t axis, int64_t before, int64_t after, bool reflect) {
  const int64_t dim = b.shape(x)[static_cast<size_t>(axis)];
  std::vector<ValueId> parts;
  for (int64_t i = before; i >= 1; --i) {
    const int64_t src = reflect ? i : 0;
    parts.push_back(b.slice(x, axis, src, src + 1));
  }
  parts.push_back(x);
  for (int64_t i = 1; i <= after; ++i) {
    const int64_t src = reflect ? dim - 1 - i : dim - 1;
    parts.push_back(b.slice(x, axis, src, src + 1));
  }
  return parts.size() == 1 ? x : b.concat(parts, axis);
}

void pad(NodeContext& n) {
  const std::string mode = n.attr_string("mode", "constant");
  const bool attrs = n.opset() < 11;
  const std::vector<int64_t> pads = attrs ? n.attr_ints(n.opset() < 2 ? "paddings" : "pads", {}) : n.ints(1, "pads");
  const double value = attrs ? n.attr_float("value", 0.0) : (n.has(2) ? n.floats(2, "constant_value").at(0) : 0.0);
  std::vector<int64_t> axes = n.has(3) ? n.ints(3, "axes") : std::vector<int64_t>{};
  if (axes.empty()) {
    axes.resize(static_cast<size_t>(n.rank(0)));
    std::iota(axes.begin(), axes.end(), 0);
  }
  if (pads.size() != 2 * axes.size()) n.unsupported("pads must have 2 entries per padded axis");
  if (mode != "constant" && mode != "edge" && mode != "reflect") n.unsupported("mode '" + mode + "'");
  ValueId x = n.in(0);
  for (size_t i = 0; i < axes.size(); ++i) {
    const int64_t axis = normalize_axis(axes[i], n.rank(0));
    const int64_t before = pads[i];
    const int64_t after = pads[i + axes.size()];
    if (mode == "constant" || before < 0 || after < 0) {
      if (mode != "constant") n.unsupported("negative pads with mode '" + mode + "'");
      x = pad_axis(n.b(), x, axis, before, after, value);
    } else {
      if (mode == "reflect" && std::max(before, after) >= n.shape(0)[static_cast<size_t>(axis)]) {
        n.unsupported("reflect padding as wide as the dimension");
      }
      if (std::max(before, after) > 4096) n.unsupported("edge/reflect padding wider than 4096");
      x = pad_copies(n.b(), x, axis, before, after, mode == "reflect");
    }
  }
  n.set(0, x);
}

Converter reduce(OpKind kind, int axes_input_since, bool negate) {
  return [kind, axes_input_since, negate](NodeContext& n) {
    std::vector<int64_t> axes = axes_of(n, axes_input_since);
    const bool keepdims = n.attr_int("keepdims", 1) != 0;
    const bool noop = n.attr_int("noop_with_empty_axes", 0) != 0;
    if (axes.empty()) {
      if (noop) return n.set(0, n.in(0));
      axes.resize(static_cast<size_t>(n.rank(0)));
      std::iota(axes.begin(), axes.end(), 0);
    }
    GraphBuilder& b = n.b();
    const Attrs attrs{{"axes", axes}, {"keepdim", int64_t{keepdims}}};
    ValueId x = negate ? b.op(OpKind::Neg, {n.in(0)}) : n.in(0);
    ValueId y = b.op(kind, {x}, attrs);
    n.set(0, negate ? b.op(OpKind::Neg, {y}) : y);
  };
}

void shape_op(NodeContext& n) {
  const Shape& s = n.shape(0);
  const auto rank = static_cast<int64_t>(s.size());
  auto clamp = [rank](int64_t v) { return std::clamp<int64_t>(v < 0 ? v + rank : v, 0, rank); };
  const int64_t start = clamp(n.attr_int("start", 0));
  const int64_t end = clamp(n.attr_int("end", rank));
  std::vector<int64_t> dims;
  for (int64_t d = start; d < end; ++d) dims.push_back(s[static_cast<size_t>(d)]);
  n.set_data(0, i64_tensor(dims, {static_cast<int64_t>(dims.size())}));
}

void constant(NodeContext& n) {
  if (auto t = n.attr_tensor("value")) return n.set_data(0, *t);
  if (n.has_attr("value_float")) return n.set_data(0, f32_tensor({static_cast<float>(n.attr_float("value_float", 0))}, {}));
  if (n.has_attr("value_int")) return n.set_data(0, i64_tensor({n.attr_int("value_int", 0)}, {}));
  if (n.has_attr("value_floats")) {
    const std::vector<double> v = n.attr_floats("value_floats", {});
    return n.set_data(0, f32_tensor(std::vector<float>(v.begin(), v.end()), {static_cast<int64_t>(v.size())}));
  }
  if (n.has_attr("value_ints")) {
    const std::vector<int64_t> v = n.attr_ints("value_ints", {});
    return n.set_data(0, i64_tensor(v, {static_cast<int64_t>(v.size())}));
  }
  n.unsupported("a constant that is not a dense tensor, float(s) or int(s)");
}

void constant_of_shape(NodeContext& n) {
  const Shape shape = n.ints(0, "the shape");
  for (int64_t d : shape) {
    if (d < 0) n.unsupported("a negative dimension in " + shape_to_string(shape));
  }
  const std::optional<Tensor> value = n.attr_tensor("value");
  const DType dtype = value ? value->dtype() : DType::F32;
  const double v = value ? value->element_as_double(0) : 0.0;
  if (shape_numel(shape) > (int64_t{1} << 16)) return n.set(0, n.b().constant(v, shape, dtype));
  Tensor t(dtype, shape);
  for (int64_t i = 0; i < t.numel(); ++i) {
    switch (dtype) {
      case DType::I64: t.data<int64_t>()[i] = static_cast<int64_t>(v); break;
      case DType::I32: t.data<int32_t>()[i] = static_cast<int32_t>(v); break;
      case DType::Bool: t.data<uint8_t>()[i] = v != 0; break;
      default: t.data<float>()[i] = static_cast<float>(v); break;
    }
  }
  n.set_data(0, t);
}

void range(NodeContext& n) {
  const double start = n.floats(0, "start").at(0);
  const double limit = n.floats(1, "limit").at(0);
  const double delta = n.floats(2, "delta").at(0);
  if (delta == 0 || !std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta)) n.unsupported("a non-finite or zero step");
  const auto count = static_cast<int64_t>(std::max(0.0, std::ceil((limit - start) / delta)));
  if (count > (int64_t{1} << 24)) n.unsupported("a range of " + std::to_string(count) + " elements");
  if (is_floating(n.type(0).dtype)) {
    std::vector<float> v;
    for (int64_t i = 0; i < count; ++i) v.push_back(static_cast<float>(start + static_cast<double>(i) * delta));
    return n.set_data(0, f32_tensor(v, {count}));
  }
  std::vector<int64_t> v;
  for (int64_t i = 0; i < count; ++i) v.push_back(static_cast<int64_t>(start) + i * static_cast<int64_t>(delta));
  Tensor t = i64_tensor(v, {count});
  n.set_data(0, n.type(0).dtype == DType::I64 ? t : t.to(n.type(0).dtype));
}

}  // namespace

void add_shape_converters(ConverterTable& t) {
  t["Reshape"] = reshape;
  t["Flatten"] = flatten;
  t["Transpose"] = transpose;
  t["Concat"] = concat;
  t["Squeeze"] = squeeze;
  t["Unsqueeze"] = unsqueeze;
  t["Split"] = split;
  t["Slice"] = slice;
  t["Gather"] = gather;
  t["Expand"] = expand;
  t["Tile"] = tile;
  t["Pad"] = pad;
  t["ReduceMean"] = reduce(OpKind::ReduceMean, 18, false);
  t["ReduceSum"] = reduce(OpKind::ReduceSum, 13, false);
  t["ReduceMax"] = reduce(OpKind::ReduceMax, 18, false);
  t["ReduceMin"] = reduce(OpKind::ReduceMax, 18, true);
  t["Shape"] = shape_op;
  t["Size"] = [](NodeContext& n) { n.set_data(0, i64_tensor({shape_numel(n.shape(0))}, {})); };
  t["Constant"] = constant;
  t["ConstantOfShape"] = constant_of_shape;
  t["Range"] = range;
}

}  // namespace meshtest::frontends::onnx_import
