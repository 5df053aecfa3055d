// Pooling ops: max / average over 2-D windows, and global average pooling.
#include "core/ops/families.h"
#include "core/ops/type_checks.h"

namespace meshtest::ops {

TensorType infer_pool(const TensorType& x, const OpAttrs& attrs) {
  require_rank(x, 4, "pool input");
  const auto kernel = pair_attr(attrs, "kernel");
  const auto stride = pair_attr(attrs, "stride");
  const auto pad = pair_attr(attrs, "padding");
  if (checked_mul(pad[0], 2) > kernel[0] || checked_mul(pad[1], 2) > kernel[1]) {
    fail("padding must be at most half the kernel");
  }
  return {x.dtype, {x.shape[0], x.shape[1], pooled_extent(x.shape[2], kernel[0], stride[0], pad[0], 1),
                    pooled_extent(x.shape[3], kernel[1], stride[1], pad[1], 1)}};
}

std::vector<AttrSpec> pool_window_attrs() {
  return {optional_ints("kernel", {1, 1}), optional_ints("stride", {1, 1}), optional_ints("padding", {0, 0})};
}

std::vector<AttrSpec> avg_pool_attrs() {
  std::vector<AttrSpec> attrs = pool_window_attrs();
  attrs.push_back(optional_int("count_include_pad", 1));
  return attrs;
}

namespace {

TensorType pool_type(const std::vector<TensorType>& in, const OpAttrs& attrs) { return infer_pool(in[0], attrs); }

TensorType global_pool_type(const std::vector<TensorType>& in, const OpAttrs&) {
  require_rank(in[0], 4, "global_avg_pool2d input");
  return {in[0].dtype, {in[0].shape[0], in[0].shape[1], 1, 1}};
}

}  // namespace

std::vector<OpDef> pooling_ops() {
  return {
      {OpKind::MaxPool2d, "max_pool2d", OpFamily::Pooling, 1, 1, pool_window_attrs(), pool_type,
       "max_pool2d(x){kernel=[kh,kw], stride, padding}: padding is -inf"},
      {OpKind::AvgPool2d, "avg_pool2d", OpFamily::Pooling, 1, 1, avg_pool_attrs(), pool_type,
       "avg_pool2d(x){kernel, stride, padding, count_include_pad=0|1}"},
      {OpKind::GlobalAvgPool2d, "global_avg_pool2d", OpFamily::Pooling, 1, 1, {}, global_pool_type,
       "global_avg_pool2d(x[N,C,H,W]) -> [N,C,1,1]"},
  };
}

}  // namespace meshtest::ops
