// Backward ops (made by the compiler's autodiff, compiler/autodiff.h): each
// one's operand that plays the forward op's result must have the type the
// forward op would give.
#include "core/ops/families.h"
#include "core/ops/type_checks.h"

namespace meshtest::ops {

namespace {

TensorType greater_type(const std::vector<TensorType>& in, const OpAttrs&) {
  require_same_dtype(in, 0, 1);
  require_float(in[0], "greater operand");
  return {in[0].dtype, broadcast_shapes(in[0].shape, in[1].shape)};
}

TensorType conv2d_backward_input_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {  // (dy, w)
  require_same_dtype(in, 0, 1);
  const TensorType x{in[0].dtype, shape_attr(attrs, "input_shape", 4)};
  require_forward_shape(infer_conv2d({x, in[1]}, attrs), in[0], "conv2d_backward_input dy");
  return x;
}

TensorType conv2d_backward_weight_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {  // (x, dy)
  require_same_dtype(in, 0, 1);
  const TensorType w{in[0].dtype, shape_attr(attrs, "weight_shape", 4)};
  require_forward_shape(infer_conv2d({in[0], w}, attrs), in[1], "conv2d_backward_weight dy");
  return w;
}

TensorType max_pool2d_backward_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {  // (x, dy)
  require_same_dtype(in, 0, 1);
  require_forward_shape(infer_pool(in[0], attrs), in[1], "max_pool2d_backward dy");
  return in[0];
}

TensorType avg_pool2d_backward_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {  // (dy)
  const TensorType x{in[0].dtype, shape_attr(attrs, "input_shape", 4)};
  require_forward_shape(infer_pool(x, attrs), in[0], "avg_pool2d_backward dy");
  return x;
}

TensorType embedding_backward_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {  // (ids, dy)
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

TensorType slice_backward_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {  // (dy)
  const TensorType x{in[0].dtype, shape_attr(attrs, "input_shape", in[0].shape.size())};
  require_forward_shape(infer_slice(x, attrs), in[0], "slice_backward dy");
  return x;
}

// A forward op's schema plus the shape attribute naming the gradient's shape.
std::vector<AttrSpec> with_shape(std::vector<AttrSpec> attrs, std::string_view shape_name) {
  attrs.push_back(required_ints(shape_name));
  return attrs;
}

OpDef backward(OpKind kind, std::string_view name, int inputs, std::vector<AttrSpec> attrs, TypeRule infer,
               std::string_view doc) {
  return {kind, name, OpFamily::Backward, inputs, inputs, std::move(attrs), infer, doc};
}

}  // namespace

std::vector<OpDef> backward_ops() {
  return {
      backward(OpKind::Greater, "greater", 2, {}, greater_type,
               "greater(a, b): 1 where a > b, else 0 (numpy broadcasting, same float dtype); no gradient of its own"),
      backward(OpKind::Conv2dBackwardInput, "conv2d_backward_input", 2,
               with_shape(conv2d_geometry_attrs(), "input_shape"), conv2d_backward_input_type,
               "conv2d_backward_input(dy[N,O,OH,OW], w[O,C/g,KH,KW]){stride, padding, dilation, groups, "
               "input_shape=[N,C,H,W]}: d conv2d / d x applied to dy (the transposed convolution)"),
      backward(OpKind::Conv2dBackwardWeight, "conv2d_backward_weight", 2,
               with_shape(conv2d_geometry_attrs(), "weight_shape"), conv2d_backward_weight_type,
               "conv2d_backward_weight(x[N,C,H,W], dy[N,O,OH,OW]){stride, padding, dilation, groups, "
               "weight_shape=[O,C/g,KH,KW]}: d conv2d / d w applied to dy"),
      backward(OpKind::MaxPool2dBackward, "max_pool2d_backward", 2, pool_window_attrs(), max_pool2d_backward_type,
               "max_pool2d_backward(x, dy){kernel, stride, padding} -> type of x: each dy element is added at the "
               "position of its window's maximum (the first in row-major window order on ties; padding never wins)"),
      backward(OpKind::AvgPool2dBackward, "avg_pool2d_backward", 1, with_shape(avg_pool_attrs(), "input_shape"),
               avg_pool2d_backward_type,
               "avg_pool2d_backward(dy){kernel, stride, padding, count_include_pad, input_shape}: each dy element "
               "spread evenly over its window's elements (divisor as in avg_pool2d; padding positions dropped)"),
      backward(OpKind::EmbeddingBackward, "embedding_backward", 2, {required_int("num_embeddings")},
               embedding_backward_type,
               "embedding_backward(ids[...], dy[..., D]){num_embeddings=V} -> [V, D]: scatter-add: row ids[i] "
               "accumulates dy[i, :]; out-of-range id = error"),
      backward(OpKind::SliceBackward, "slice_backward", 1, with_shape(slice_attrs(), "input_shape"),
               slice_backward_type,
               "slice_backward(dy){axis, start, end, step, input_shape} -> input_shape: zeros with dy written where "
               "slice(x){axis,start,end,step} reads"),
  };
}

}  // namespace meshtest::ops
