// StableHLO dot_general and convolution: general dimension numbers, grouped
// convolutions (feature and batch groups), dilations and padding, with every
// constraint of the spec's sections checked.
#include "core/ops/families.h"
#include "core/ops/stablehlo_checks.h"
#include "core/ops/type_checks.h"

namespace meshtest::ops {

namespace {

DType result_dtype(const OpAttrs& attrs) {
  const DType dtype = dtype_attr(attrs.get_string("dtype"));
  if (dtype == DType::BFP8_B) fail("dtype bfp8_b is a weight storage format, not a result type");
  return dtype;
}

TensorType dot_general_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  const TensorType& lhs = in[0];
  const TensorType& rhs = in[1];
  require_same_dtype(in, 0, 1);
  const auto lb = attrs.get_ints("lhs_batching_dims");
  const auto rb = attrs.get_ints("rhs_batching_dims");
  const auto lc = attrs.get_ints("lhs_contracting_dims");
  const auto rc = attrs.get_ints("rhs_contracting_dims");
  require_list_size(rb, lb.size(), "rhs_batching_dims (as many as lhs_batching_dims)");
  require_list_size(rc, lc.size(), "rhs_contracting_dims (as many as lhs_contracting_dims)");
  const auto lhs_rank = static_cast<int64_t>(lhs.shape.size());
  const auto rhs_rank = static_cast<int64_t>(rhs.shape.size());
  require_dims_in_range(lb, lhs_rank, "lhs_batching_dims");
  require_dims_in_range(lc, lhs_rank, "lhs_contracting_dims");
  require_dims_in_range(rb, rhs_rank, "rhs_batching_dims");
  require_dims_in_range(rc, rhs_rank, "rhs_contracting_dims");
  require_unique_dims(concat_dims(lb, lc), "lhs_batching_dims + lhs_contracting_dims");
  require_unique_dims(concat_dims(rb, rc), "rhs_batching_dims + rhs_contracting_dims");
  auto require_matching = [&](const std::vector<int64_t>& l, const std::vector<int64_t>& r, const char* what) {
    for (size_t i = 0; i < l.size(); ++i) {
      const int64_t a = lhs.shape[static_cast<size_t>(l[i])];
      const int64_t b = rhs.shape[static_cast<size_t>(r[i])];
      if (a != b) {
        fail(std::string(what) + " dimension " + std::to_string(i) + " differs: lhs dim " + std::to_string(l[i]) +
             " is " + std::to_string(a) + ", rhs dim " + std::to_string(r[i]) + " is " + std::to_string(b));
      }
    }
  };
  require_matching(lb, rb, "batching");
  require_matching(lc, rc, "contracting");
  Shape out;
  for (int64_t d : lb) out.push_back(lhs.shape[static_cast<size_t>(d)]);
  for (int64_t d = 0; d < lhs_rank; ++d) {
    if (!contains_dim(lb, d) && !contains_dim(lc, d)) out.push_back(lhs.shape[static_cast<size_t>(d)]);
  }
  for (int64_t d = 0; d < rhs_rank; ++d) {
    if (!contains_dim(rb, d) && !contains_dim(rc, d)) out.push_back(rhs.shape[static_cast<size_t>(d)]);
  }
  checked_numel(out);
  return {result_dtype(attrs), out};
}

// [first] + middle + [last], for the convolution's dimension lists.
std::vector<int64_t> framed(int64_t first, const std::vector<int64_t>& middle, int64_t last) {
  std::vector<int64_t> out{first};
  out.insert(out.end(), middle.begin(), middle.end());
  out.push_back(last);
  return out;
}

TensorType convolution_type(const std::vector<TensorType>& in, const OpAttrs& attrs) {
  const TensorType& lhs = in[0];
  const TensorType& rhs = in[1];
  require_same_dtype(in, 0, 1);
  const auto rank = static_cast<int64_t>(lhs.shape.size());
  if (rank < 2) fail("convolution operands must have rank >= 2, got " + type_to_string(lhs));
  require_rank(rhs, rank, "kernel (rhs)");
  const auto spatial = static_cast<size_t>(rank - 2);
  const auto strides = ints_or_fill(attrs, "window_strides", spatial, 1);
  const auto padding = ints_or_fill(attrs, "padding", 2 * spatial, 0);
  const auto lhs_dilation = ints_or_fill(attrs, "lhs_dilation", spatial, 1);
  const auto rhs_dilation = ints_or_fill(attrs, "rhs_dilation", spatial, 1);
  const auto reversal = ints_or_fill(attrs, "window_reversal", spatial, 0);
  require_at_least(strides, 1, "window_strides");
  require_at_least(lhs_dilation, 1, "lhs_dilation");
  require_at_least(rhs_dilation, 1, "rhs_dilation");
  for (int64_t r : reversal) {
    if (r != 0 && r != 1) fail("window_reversal entries must be 0 or 1");
  }
  const int64_t in_batch = attrs.get_int("input_batch_dimension");
  const int64_t in_feature = attrs.get_int("input_feature_dimension");
  const auto in_spatial = attrs.get_ints("input_spatial_dimensions");
  const int64_t k_in = attrs.get_int("kernel_input_feature_dimension");
  const int64_t k_out = attrs.get_int("kernel_output_feature_dimension");
  const auto k_spatial = attrs.get_ints("kernel_spatial_dimensions");
  const int64_t out_batch = attrs.get_int("output_batch_dimension");
  const int64_t out_feature = attrs.get_int("output_feature_dimension");
  const auto out_spatial = attrs.get_ints("output_spatial_dimensions");
  require_list_size(in_spatial, spatial, "input_spatial_dimensions");
  require_list_size(k_spatial, spatial, "kernel_spatial_dimensions");
  require_list_size(out_spatial, spatial, "output_spatial_dimensions");
  const auto input_dims = framed(in_batch, in_spatial, in_feature);
  const auto kernel_dims = framed(k_in, k_spatial, k_out);
  const auto output_dims = framed(out_batch, out_spatial, out_feature);
  require_dims_in_range(input_dims, rank, "input dimensions (batch, spatial, feature)");
  require_unique_dims(input_dims, "input dimensions (batch, spatial, feature)");
  require_dims_in_range(kernel_dims, rank, "kernel dimensions (input feature, spatial, output feature)");
  require_unique_dims(kernel_dims, "kernel dimensions (input feature, spatial, output feature)");
  require_dims_in_range(output_dims, rank, "output dimensions (batch, spatial, feature)");
  require_unique_dims(output_dims, "output dimensions (batch, spatial, feature)");
  const int64_t feature_groups = attrs.get_int("feature_group_count");
  const int64_t batch_groups = attrs.get_int("batch_group_count");
  if (feature_groups < 1 || batch_groups < 1) fail("feature_group_count and batch_group_count must be >= 1");
  if (feature_groups > 1 && batch_groups > 1) fail("feature_group_count and batch_group_count cannot both exceed 1");
  auto dim = [](const TensorType& t, int64_t d) { return t.shape[static_cast<size_t>(d)]; };
  if (dim(lhs, in_batch) % batch_groups != 0) {
    fail("input batch " + std::to_string(dim(lhs, in_batch)) + " is not divisible by batch_group_count " +
         std::to_string(batch_groups));
  }
  if (dim(lhs, in_feature) % feature_groups != 0) {
    fail("input features " + std::to_string(dim(lhs, in_feature)) + " are not divisible by feature_group_count " +
         std::to_string(feature_groups));
  }
  if (dim(rhs, k_in) * feature_groups != dim(lhs, in_feature)) {
    fail("kernel input features " + std::to_string(dim(rhs, k_in)) + " must be input features " +
         std::to_string(dim(lhs, in_feature)) + " / feature_group_count " + std::to_string(feature_groups));
  }
  if (dim(rhs, k_out) % batch_groups != 0 || dim(rhs, k_out) % feature_groups != 0) {
    fail("kernel output features " + std::to_string(dim(rhs, k_out)) +
         " must be divisible by feature_group_count and batch_group_count");
  }
  Shape out(static_cast<size_t>(rank));
  out[static_cast<size_t>(out_batch)] = dim(lhs, in_batch) / batch_groups;
  out[static_cast<size_t>(out_feature)] = dim(rhs, k_out);
  for (size_t s = 0; s < spatial; ++s) {
    out[static_cast<size_t>(out_spatial[s])] =
        window_count(dim(lhs, in_spatial[s]), lhs_dilation[s], padding[2 * s], padding[2 * s + 1],
                     dim(rhs, k_spatial[s]), rhs_dilation[s], strides[s]);
  }
  checked_numel(out);
  return {result_dtype(attrs), out};
}

}  // namespace

std::vector<OpDef> stablehlo_linalg_ops() {
  return {
      {OpKind::DotGeneral,
       "dot_general",
       OpFamily::Linalg,
       2,
       2,
       {optional_ints("lhs_batching_dims", {}), optional_ints("rhs_batching_dims", {}),
        optional_ints("lhs_contracting_dims", {}), optional_ints("rhs_contracting_dims", {}), required_string("dtype")},
       dot_general_type,
       "dot_general(lhs, rhs){lhs/rhs_batching_dims, lhs/rhs_contracting_dims, dtype}: sum over the contracting "
       "dims of lhs*rhs; result dims = batch, lhs free, rhs free (in order); elements of `dtype`"},
      {OpKind::Convolution,
       "convolution",
       OpFamily::Conv,
       2,
       2,
       {optional_ints("window_strides", {}), optional_ints("padding", {}), optional_ints("lhs_dilation", {}),
        optional_ints("rhs_dilation", {}), optional_ints("window_reversal", {}), required_int("input_batch_dimension"),
        required_int("input_feature_dimension"), required_ints("input_spatial_dimensions"),
        required_int("kernel_input_feature_dimension"), required_int("kernel_output_feature_dimension"),
        required_ints("kernel_spatial_dimensions"), required_int("output_batch_dimension"),
        required_int("output_feature_dimension"), required_ints("output_spatial_dimensions"),
        optional_int("feature_group_count", 1), optional_int("batch_group_count", 1), required_string("dtype")},
       convolution_type,
       "convolution(lhs, rhs){window_strides, padding=[lo0,hi0,...], lhs_dilation, rhs_dilation, window_reversal, "
       "input/kernel/output dimension numbers, feature_group_count, batch_group_count, dtype}: StableHLO "
       "convolution (a cross-correlation; padding may be negative)"},
  };
}

}  // namespace meshtest::ops
