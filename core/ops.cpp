// Op table lookups and result-type inference for every op of the IR.
#include "core/ops.h"

#include <algorithm>
#include <array>

#include "core/error.h"

namespace meshtest {

namespace {

struct OpRow {
  OpKind kind;
  std::string_view name;
  int min_inputs;
  int max_inputs;
};

constexpr OpRow kOps[] = {
#define MESHTEST_OP_ROW(e, name, lo, hi) {OpKind::e, name, lo, hi},
    MESHTEST_OPS(MESHTEST_OP_ROW)
#undef MESHTEST_OP_ROW
};

const OpRow& row(OpKind kind) { return kOps[static_cast<size_t>(kind)]; }

[[noreturn]] void fail(const std::string& message) { throw CompileError(message); }

// Shape arithmetic on untrusted sizes (e.g. from IR text): overflow is an error, not UB.
int64_t checked_add(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_add_overflow(a, b, &r)) fail("shape arithmetic overflows int64");
  return r;
}
int64_t checked_sub(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_sub_overflow(a, b, &r)) fail("shape arithmetic overflows int64");
  return r;
}
int64_t checked_mul(int64_t a, int64_t b) {
  int64_t r;
  if (__builtin_mul_overflow(a, b, &r)) fail("shape arithmetic overflows int64");
  return r;
}
int64_t checked_numel(const Shape& shape) {
  try {
    return shape_numel(shape);
  } catch (const Error& e) {
    fail(e.what());
  }
}

void require_rank(const TensorType& t, int64_t rank, const char* what) {
  if (static_cast<int64_t>(t.shape.size()) != rank) {
    fail(std::string(what) + " must have rank " + std::to_string(rank) + ", got " + type_to_string(t));
  }
}

void require_float(const TensorType& t, const char* what) {
  if (!is_floating(t.dtype)) fail(std::string(what) + " must be floating point, got " + type_to_string(t));
}

void require_same_dtype(const std::vector<TensorType>& in, size_t first, size_t last) {
  for (size_t i = first + 1; i <= last && i < in.size(); ++i) {
    if (in[i].dtype != in[first].dtype) {
      fail("operand dtypes differ: " + type_to_string(in[first]) + " vs " + type_to_string(in[i]));
    }
  }
}

std::vector<int64_t> pair_attr(const Attrs& attrs, const std::string& name, int64_t fallback) {
  auto v = attrs.get_ints(name, {fallback, fallback});
  if (v.size() != 2) fail("attribute '" + name + "' must have 2 values");
  return v;
}

int64_t pooled_extent(int64_t in, int64_t kernel, int64_t stride, int64_t pad, int64_t dilation) {
  if (stride <= 0) fail("stride must be positive");
  const int64_t effective = checked_add(checked_mul(dilation, checked_sub(kernel, 1)), 1);
  const int64_t out = checked_add(checked_sub(checked_add(in, checked_mul(2, pad)), effective) / stride, 1);
  if (out <= 0) fail("window larger than padded input (" + std::to_string(in) + ")");
  return out;
}

// The dtype named by a string attribute; an unknown name is a CompileError here
// (parse_dtype throws ParseError, which callers of infer_type do not expect).
DType dtype_attr(const std::string& text) {
  try {
    return parse_dtype(text);
  } catch (const ParseError& e) {
    fail(std::string("attribute 'dtype': ") + e.what());
  }
}

TensorType infer_pool(const TensorType& x, const Attrs& attrs) {
  require_rank(x, 4, "pool input");
  const auto kernel = pair_attr(attrs, "kernel", 1);
  const auto stride = pair_attr(attrs, "stride", 1);
  const auto pad = pair_attr(attrs, "padding", 0);
  if (checked_mul(pad[0], 2) > kernel[0] || checked_mul(pad[1], 2) > kernel[1]) {
    fail("padding must be at most half the kernel");
  }
  return {x.dtype, {x.shape[0], x.shape[1], pooled_extent(x.shape[2], kernel[0], stride[0], pad[0], 1),
                    pooled_extent(x.shape[3], kernel[1], stride[1], pad[1], 1)}};
}

TensorType infer_matmul(const TensorType& a, const TensorType& b) {
  if (a.shape.size() < 2 || b.shape.size() < 2) fail("matmul operands must have rank >= 2");
  const int64_t k_a = a.shape.back();
  const int64_t k_b = b.shape[b.shape.size() - 2];
  if (k_a != k_b) fail("matmul contraction mismatch: " + type_to_string(a) + " @ " + type_to_string(b));
  Shape batch_a(a.shape.begin(), a.shape.end() - 2);
  Shape batch_b(b.shape.begin(), b.shape.end() - 2);
  Shape out = broadcast_shapes(batch_a, batch_b);
  out.push_back(a.shape[a.shape.size() - 2]);
  out.push_back(b.shape.back());
  return {a.dtype, out};
}

TensorType infer_conv2d(const std::vector<TensorType>& in, const Attrs& attrs) {
  const TensorType& x = in[0];
  const TensorType& w = in[1];
  require_rank(x, 4, "conv2d input");
  require_rank(w, 4, "conv2d weight");
  const int64_t groups = attrs.get_int("groups", 1);
  if (groups <= 0 || x.shape[1] % groups != 0 || w.shape[0] % groups != 0) {
    fail("groups=" + std::to_string(groups) + " must divide input channels " + std::to_string(x.shape[1]) +
         " and output channels " + std::to_string(w.shape[0]));
  }
  if (checked_mul(w.shape[1], groups) != x.shape[1]) {
    fail("conv2d weight " + type_to_string(w) + " expects " + std::to_string(checked_mul(w.shape[1], groups)) +
         " input channels, input has " + std::to_string(x.shape[1]));
  }
  if (in.size() == 3 && in[2].shape != Shape{w.shape[0]}) fail("conv2d bias must have shape [" + std::to_string(w.shape[0]) + "]");
  const auto stride = pair_attr(attrs, "stride", 1);
  const auto pad = pair_attr(attrs, "padding", 0);
  const auto dil = pair_attr(attrs, "dilation", 1);
  return {x.dtype, {x.shape[0], w.shape[0], pooled_extent(x.shape[2], w.shape[2], stride[0], pad[0], dil[0]),
                    pooled_extent(x.shape[3], w.shape[3], stride[1], pad[1], dil[1])}};
}

// Collectives: `group_size` chips; all_gather multiplies `dim`, reduce_scatter
// and shard_slice divide it (evenly), all_to_all divides split_dim and multiplies concat_dim.
TensorType infer_collective(OpKind kind, const TensorType& x, const Attrs& attrs) {
  if (attrs.get_string("axes").empty()) fail("collective needs mesh 'axes'");
  const int64_t group = attrs.get_int("group_size");
  if (group <= 0) fail("group_size must be positive, got " + std::to_string(group));
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  Shape out = x.shape;
  auto divide = [&](const char* name) {
    const size_t d = static_cast<size_t>(normalize_axis(attrs.get_int(name), rank));
    if (out[d] % group != 0) {
      fail(std::string(name) + " extent " + std::to_string(out[d]) + " does not split into " + std::to_string(group));
    }
    out[d] /= group;
  };
  auto multiply = [&](const char* name) {
    const size_t d = static_cast<size_t>(normalize_axis(attrs.get_int(name), rank));
    out[d] = checked_mul(out[d], group);
  };
  switch (kind) {
    case OpKind::AllGather: multiply("dim"); break;
    case OpKind::ReduceScatter:
    case OpKind::ShardSlice: divide("dim"); break;
    case OpKind::AllToAll:
      divide("split_dim");
      multiply("concat_dim");
      break;
    default: break;  // all_reduce keeps the type
  }
  return {x.dtype, out};
}

TensorType infer_reduce(const TensorType& x, const Attrs& attrs) {
  const auto axes = attrs.get_ints("axes");
  const bool keepdim = attrs.get_int("keepdim", 0) != 0;
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  std::vector<bool> reduced(x.shape.size(), false);
  for (int64_t a : axes) {
    const int64_t n = normalize_axis(a, rank);
    if (reduced[static_cast<size_t>(n)]) fail("axis " + std::to_string(a) + " listed twice");
    reduced[static_cast<size_t>(n)] = true;
  }
  Shape out;
  for (size_t i = 0; i < x.shape.size(); ++i) {
    if (!reduced[i]) out.push_back(x.shape[i]);
    else if (keepdim) out.push_back(1);
  }
  return {x.dtype, out};
}

TensorType infer_slice(const TensorType& x, const Attrs& attrs) {
  const int64_t rank = static_cast<int64_t>(x.shape.size());
  const int64_t axis = normalize_axis(attrs.get_int("axis"), rank);
  const int64_t dim = x.shape[static_cast<size_t>(axis)];
  const int64_t step = attrs.get_int("step", 1);
  if (step <= 0) fail("slice step must be positive");
  auto clamp = [dim](int64_t v) {
    if (v < 0) v += dim;
    return std::clamp<int64_t>(v, 0, dim);
  };
  const int64_t start = clamp(attrs.get_int("start", 0));
  const int64_t end = clamp(attrs.get_int("end", dim));
  const int64_t len = end > start ? (end - start - 1) / step + 1 : 0;
  Shape out = x.shape;
  out[static_cast<size_t>(axis)] = len;
  return {x.dtype, out};
}

// A shape attribute (input_shape, weight_shape) of a backward op.
Shape shape_attr(const Attrs& attrs, const char* name, size_t rank) {
  const Shape shape = attrs.get_ints(name);
  if (shape.size() != rank) fail(std::string("attribute '") + name + "' must have " + std::to_string(rank) + " entries");
  for (int64_t d : shape) {
    if (d < 0) fail(std::string("attribute '") + name + "' has a negative dimension");
  }
  return shape;
}

void require_forward_shape(const TensorType& forward, const TensorType& given, const char* what) {
  if (forward.shape != given.shape) {
    fail(std::string(what) + " " + type_to_string(given) + " does not match the forward result " +
         type_to_string(forward));
  }
}

// The backward ops of compiler/autodiff: each one's operand that plays the
// forward op's result must have the type the forward op would give.
TensorType infer_backward(OpKind kind, const std::vector<TensorType>& in, const Attrs& attrs) {
  switch (kind) {
    case OpKind::Greater:
      require_same_dtype(in, 0, 1);
      require_float(in[0], "greater operand");
      return {in[0].dtype, broadcast_shapes(in[0].shape, in[1].shape)};
    case OpKind::Conv2dBackwardInput: {  // (dy, w)
      require_same_dtype(in, 0, 1);
      const TensorType x{in[0].dtype, shape_attr(attrs, "input_shape", 4)};
      require_forward_shape(infer_conv2d({x, in[1]}, attrs), in[0], "conv2d_backward_input dy");
      return x;
    }
    case OpKind::Conv2dBackwardWeight: {  // (x, dy)
      require_same_dtype(in, 0, 1);
      const TensorType w{in[0].dtype, shape_attr(attrs, "weight_shape", 4)};
      require_forward_shape(infer_conv2d({in[0], w}, attrs), in[1], "conv2d_backward_weight dy");
      return w;
    }
    case OpKind::MaxPool2dBackward:  // (x, dy)
      require_same_dtype(in, 0, 1);
      require_forward_shape(infer_pool(in[0], attrs), in[1], "max_pool2d_backward dy");
      return in[0];
    case OpKind::AvgPool2dBackward: {  // (dy)
      const TensorType x{in[0].dtype, shape_attr(attrs, "input_shape", 4)};
      require_forward_shape(infer_pool(x, attrs), in[0], "avg_pool2d_backward dy");
      return x;
    }
    case OpKind::EmbeddingBackward: {  // (ids, dy)
      if (in[0].dtype != DType::I32 && in[0].dtype != DType::I64) fail("embedding_backward ids must be i32 or i64");
      require_float(in[1], "embedding_backward dy");
      Shape expected = in[0].shape;
      if (in[1].shape.empty()) fail("embedding_backward dy must have rank >= 1");
      expected.push_back(in[1].shape.back());
      require_forward_shape({in[1].dtype, expected}, in[1], "embedding_backward dy");
      const int64_t rows = attrs.get_int("num_embeddings");
      if (rows < 0) fail("num_embeddings must not be negative");
      return {in[1].dtype, {rows, in[1].shape.back()}};
    }
    case OpKind::SliceBackward: {  // (dy)
      const TensorType x{in[0].dtype, shape_attr(attrs, "input_shape", in[0].shape.size())};
      require_forward_shape(infer_slice(x, attrs), in[0], "slice_backward dy");
      return x;
    }
    default: break;
  }
  fail("not a backward op: " + std::string(op_name(kind)));
}

}  // namespace

std::string type_to_string(const TensorType& type) {
  return std::string(dtype_name(type.dtype)) + shape_to_string(type.shape);
}

std::string_view op_name(OpKind kind) { return row(kind).name; }

std::optional<OpKind> find_op(std::string_view name) {
  for (const OpRow& r : kOps) {
    if (r.name == name) return r.kind;
  }
  return std::nullopt;
}

const std::vector<OpKind>& all_ops() {
  static const std::vector<OpKind> ops = [] {
    std::vector<OpKind> v;
    for (const OpRow& r : kOps) v.push_back(r.kind);
    return v;
  }();
  return ops;
}

int op_min_inputs(OpKind kind) { return row(kind).min_inputs; }
int op_max_inputs(OpKind kind) { return row(kind).max_inputs; }

bool is_unary_elementwise(OpKind kind) {
  return static_cast<int>(kind) >= static_cast<int>(OpKind::Relu) && static_cast<int>(kind) <= static_cast<int>(OpKind::Cos);
}

bool is_binary_elementwise(OpKind kind) {
  return static_cast<int>(kind) >= static_cast<int>(OpKind::Add) && static_cast<int>(kind) <= static_cast<int>(OpKind::Maximum);
}

int64_t normalize_axis(int64_t axis, int64_t rank) {
  const int64_t n = axis < 0 ? axis + rank : axis;
  if (n < 0 || n >= rank) fail("axis " + std::to_string(axis) + " out of range for rank " + std::to_string(rank));
  return n;
}

Shape broadcast_shapes(const Shape& a, const Shape& b) {
  const size_t rank = std::max(a.size(), b.size());
  Shape out(rank);
  for (size_t i = 0; i < rank; ++i) {
    const int64_t da = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    const int64_t db = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (da != db && da != 1 && db != 1) {
      fail("shapes " + shape_to_string(a) + " and " + shape_to_string(b) + " do not broadcast");
    }
    out[i] = da == 1 ? db : da;
  }
  return out;
}

TensorType infer_type(OpKind kind, const std::vector<TensorType>& in, const Attrs& attrs) {
  const int n = static_cast<int>(in.size());
  if (n < op_min_inputs(kind) || (op_max_inputs(kind) >= 0 && n > op_max_inputs(kind))) {
    fail("wrong number of operands: " + std::to_string(n));
  }
  if (is_unary_elementwise(kind)) {
    require_float(in[0], "operand");
    if (kind == OpKind::Gelu) {
      const std::string approx = attrs.get_string("approximate", "none");
      if (approx != "none" && approx != "tanh") fail("gelu approximate must be \"none\" or \"tanh\"");
    }
    return in[0];
  }
  if (is_binary_elementwise(kind)) {
    require_same_dtype(in, 0, 1);
    return {in[0].dtype, broadcast_shapes(in[0].shape, in[1].shape)};
  }
  switch (kind) {
    case OpKind::Cast: return {dtype_attr(attrs.get_string("dtype")), in[0].shape};
    case OpKind::Constant: {
      attrs.get_float("value");
      const auto shape = attrs.get_ints("shape", {});
      for (int64_t d : shape) {
        if (d < 0) fail("constant shape must not have negative dimensions, got " + shape_to_string(shape));
      }
      return {dtype_attr(attrs.get_string("dtype", "f32")), shape};
    }
    case OpKind::Matmul:
      require_same_dtype(in, 0, 1);
      return infer_matmul(in[0], in[1]);
    case OpKind::Linear: {
      require_same_dtype(in, 0, n - 1);
      const TensorType& x = in[0];
      const TensorType& w = in[1];
      if (x.shape.empty()) fail("linear input must have rank >= 1");
      require_rank(w, 2, "linear weight");
      if (w.shape[1] != x.shape.back()) {
        fail("linear weight " + type_to_string(w) + " does not match input features of " + type_to_string(x));
      }
      if (n == 3 && in[2].shape != Shape{w.shape[0]}) fail("linear bias must have shape [" + std::to_string(w.shape[0]) + "]");
      Shape out = x.shape;
      out.back() = w.shape[0];
      return {x.dtype, out};
    }
    case OpKind::Conv2d:
      require_same_dtype(in, 0, n - 1);
      return infer_conv2d(in, attrs);
    case OpKind::MaxPool2d:
    case OpKind::AvgPool2d: return infer_pool(in[0], attrs);
    case OpKind::GlobalAvgPool2d:
      require_rank(in[0], 4, "global_avg_pool2d input");
      return {in[0].dtype, {in[0].shape[0], in[0].shape[1], 1, 1}};
    case OpKind::BatchNorm: {
      require_rank(in[0], 4, "batch_norm input");
      for (int i = 1; i < 5; ++i) {
        if (in[i].shape != Shape{in[0].shape[1]}) fail("batch_norm parameters must have shape [C]");
      }
      attrs.get_float("eps", 1e-5);
      return in[0];
    }
    case OpKind::LayerNorm: {
      if (in[0].shape.empty()) fail("layer_norm input must have rank >= 1");
      const Shape d{in[0].shape.back()};
      if (in[1].shape != d || in[2].shape != d) fail("layer_norm gamma/beta must have shape " + shape_to_string(d));
      return in[0];
    }
    case OpKind::Softmax:
      require_float(in[0], "softmax input");
      normalize_axis(attrs.get_int("axis", -1), static_cast<int64_t>(in[0].shape.size()));
      return in[0];
    case OpKind::EmbeddingShard:
      if (in[2].dtype != DType::I64 || checked_numel(in[2].shape) != 1) fail("embedding_shard start must be i64[1]");
      [[fallthrough]];
    case OpKind::Embedding: {
      if (in[0].dtype != DType::I32 && in[0].dtype != DType::I64) fail("embedding ids must be i32 or i64");
      require_rank(in[1], 2, "embedding table");
      Shape out = in[0].shape;
      out.push_back(in[1].shape[1]);
      return {in[1].dtype, out};
    }
    case OpKind::Reshape: {
      const auto shape = attrs.get_ints("shape");
      for (int64_t d : shape) {
        if (d < 0) fail("reshape target must be fully resolved, got " + shape_to_string(shape));
      }
      if (checked_numel(shape) != checked_numel(in[0].shape)) {
        fail("cannot reshape " + type_to_string(in[0]) + " to " + shape_to_string(shape));
      }
      return {in[0].dtype, shape};
    }
    case OpKind::Transpose: {
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
    case OpKind::Concat: {
      const int64_t rank = static_cast<int64_t>(in[0].shape.size());
      const int64_t axis = normalize_axis(attrs.get_int("axis"), rank);
      Shape out = in[0].shape;
      for (int i = 1; i < n; ++i) {
        if (in[i].dtype != in[0].dtype || static_cast<int64_t>(in[i].shape.size()) != rank) {
          fail("concat operands must share dtype and rank");
        }
        for (int64_t d = 0; d < rank; ++d) {
          if (d != axis && in[i].shape[static_cast<size_t>(d)] != out[static_cast<size_t>(d)]) {
            fail("concat operands differ outside axis " + std::to_string(axis));
          }
        }
        out[static_cast<size_t>(axis)] =
            checked_add(out[static_cast<size_t>(axis)], in[i].shape[static_cast<size_t>(axis)]);
      }
      return {in[0].dtype, out};
    }
    case OpKind::Slice: return infer_slice(in[0], attrs);
    case OpKind::ReduceSum:
    case OpKind::ReduceMean:
    case OpKind::ReduceMax: return infer_reduce(in[0], attrs);
    case OpKind::AllGather:
    case OpKind::ReduceScatter:
    case OpKind::AllReduce:
    case OpKind::AllToAll:
    case OpKind::ShardSlice: return infer_collective(kind, in[0], attrs);
    case OpKind::RmsNorm: {
      require_float(in[0], "rms_norm input");
      require_float(in[1], "rms_norm weight");
      if (in[0].shape.empty() || in[1].shape != Shape{in[0].shape.back()}) {
        fail("rms_norm weight " + type_to_string(in[1]) + " must have shape [" +
             (in[0].shape.empty() ? std::string("D") : std::to_string(in[0].shape.back())) + "]");
      }
      attrs.get_float("eps");
      return in[0];
    }
    case OpKind::Sdpa: {
      require_same_dtype(in, 0, 2);
      require_float(in[0], "sdpa query");
      const TensorType scores = infer_matmul(in[0], in[1]);
      if (in[0].shape.size() != in[1].shape.size() || scores.shape.size() != in[2].shape.size() ||
          !std::equal(in[0].shape.begin(), in[0].shape.end() - 2, in[1].shape.begin()) ||
          !std::equal(in[0].shape.begin(), in[0].shape.end() - 2, in[2].shape.begin())) {
        fail("sdpa query, key and value must share batch dims");
      }
      if (n == 4 && broadcast_shapes(scores.shape, in[3].shape) != scores.shape) {
        fail("sdpa mask " + type_to_string(in[3]) + " does not broadcast to scores " + type_to_string(scores));
      }
      attrs.get_float("scale");
      return infer_matmul(scores, in[2]);
    }
    case OpKind::TopkMask: {
      require_float(in[0], "topk_mask input");
      const int64_t axis = normalize_axis(attrs.get_int("axis"), static_cast<int64_t>(in[0].shape.size()));
      const int64_t k = attrs.get_int("k");
      if (k < 1 || k > in[0].shape[static_cast<size_t>(axis)]) {
        fail("topk_mask k=" + std::to_string(k) + " must lie in [1, " +
             std::to_string(in[0].shape[static_cast<size_t>(axis)]) + "] (the size of axis " + std::to_string(axis) +
             ")");
      }
      return in[0];
    }
    case OpKind::Greater:
    case OpKind::Conv2dBackwardInput:
    case OpKind::Conv2dBackwardWeight:
    case OpKind::MaxPool2dBackward:
    case OpKind::AvgPool2dBackward:
    case OpKind::EmbeddingBackward:
    case OpKind::SliceBackward: return infer_backward(kind, in, attrs);
    default: break;
  }
  fail("no type rule for op " + std::string(op_name(kind)));
}

}  // namespace meshtest
