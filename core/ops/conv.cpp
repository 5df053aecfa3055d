// Convolution: conv2d (cross-correlation, grouped, strided, padded, dilated).
#include "core/ops/families.h"
#include "core/ops/type_checks.h"

namespace meshtest::ops {

TensorType infer_conv2d(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  const TensorType& x = in[0];
  const TensorType& w = in[1];
  require_rank(x, 4, "conv2d input");
  require_rank(w, 4, "conv2d weight");
  const int64_t groups = attrs.get_int("groups");
  if (groups <= 0 || x.shape[1] % groups != 0 || w.shape[0] % groups != 0) {
    fail("groups=" + std::to_string(groups) + " must divide input channels " + std::to_string(x.shape[1]) +
         " and output channels " + std::to_string(w.shape[0]));
  }
  if (checked_mul(w.shape[1], groups) != x.shape[1]) {
    fail("conv2d weight " + type_to_string(w) + " expects " + std::to_string(checked_mul(w.shape[1], groups)) +
         " input channels, input has " + std::to_string(x.shape[1]));
  }
  if (in.size() == 3 && in[2].shape != Shape{w.shape[0]}) fail("conv2d bias must have shape [" + std::to_string(w.shape[0]) + "]");
  const auto stride = pair_attr(attrs, "stride");
  const auto pad = pair_attr(attrs, "padding");
  const auto dil = pair_attr(attrs, "dilation");
  return {x.dtype, {x.shape[0], w.shape[0], pooled_extent(x.shape[2], w.shape[2], stride[0], pad[0], dil[0]),
                    pooled_extent(x.shape[3], w.shape[3], stride[1], pad[1], dil[1])}};
}

std::vector<AttrSpec> conv2d_geometry_attrs() {
  return {optional_ints("stride", {1, 1}), optional_ints("padding", {0, 0}), optional_ints("dilation", {1, 1}),
          optional_int("groups", 1)};
}

namespace {

TensorType conv2d_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  require_same_dtype(in, 0, in.size() - 1);
  return infer_conv2d(in, attrs);
}

}  // namespace

std::vector<OpDef> conv_ops() {
  return {
      {OpKind::Conv2d, "conv2d", OpFamily::Conv, 2, 3, conv2d_geometry_attrs(), conv2d_type,
       "conv2d(x[N,C,H,W], w[O,C/g,KH,KW], bias[O]?){stride=[sh,sw], padding=[ph,pw], dilation=[dh,dw], groups=g}"
       " (cross-correlation)"},
  };
}

}  // namespace meshtest::ops
