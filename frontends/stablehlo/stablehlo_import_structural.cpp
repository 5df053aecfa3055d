// Data-movement and contraction StableHLO ops onto meshtest ops: reshape,
// transpose, concatenate, slice (one meshtest slice per sliced axis),
// broadcast_in_dim (and the deprecated broadcast), get_dimension_size (a
// constant: shapes are static), pad, reverse, dynamic_slice, dynamic_update_slice,
// gather, dot_general / dot, convolution and batch_norm_inference.
#include "frontends/stablehlo/stablehlo_importer.h"

namespace meshtest::frontends::stablehlo {

namespace {

ValueRef one(Importer& im, const Op& op, const std::vector<ValueRef>& in, OpKind kind, Attrs attrs) {
  return im.result(op, im.emit(op, kind, im.graph_values(in, op), std::move(attrs)));
}

std::vector<ValueRef> map_reshape(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  const TensorType t = im.result_type(op);
  if (in.at(0)->type.shape == t.shape) return {in[0]};
  return {one(im, op, in, OpKind::Reshape, {{"shape", t.shape}})};
}

std::vector<ValueRef> map_transpose(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  return {one(im, op, in, OpKind::Transpose, {{"perm", ints_attr(im, op, "permutation")}})};
}

std::vector<ValueRef> map_concatenate(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  if (in.size() == 1) return {in[0]};
  return {one(im, op, in, OpKind::Concat, {{"axis", int_attr(im, op, "dimension")}})};
}

std::vector<ValueRef> map_slice(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  const Shape& shape = in.at(0)->type.shape;
  const std::vector<int64_t> start = ints_attr(im, op, "start_indices");
  const std::vector<int64_t> limit = ints_attr(im, op, "limit_indices");
  const std::vector<int64_t> strides = ints_attr(im, op, "strides", std::vector<int64_t>(shape.size(), 1));
  if (start.size() != shape.size() || limit.size() != shape.size() || strides.size() != shape.size()) {
    im.unsupported(op, "start/limit/strides must have one entry per dimension");
  }
  ValueId x = im.graph_value(in[0], op);
  for (size_t axis = 0; axis < shape.size(); ++axis) {
    if (start[axis] == 0 && limit[axis] == shape[axis] && strides[axis] == 1) continue;
    x = im.emit(
        op, OpKind::Slice, {x},
        {{"axis", static_cast<int64_t>(axis)}, {"start", start[axis]}, {"end", limit[axis]}, {"step", strides[axis]}});
  }
  if (x == in[0]->id) return {in[0]};
  return {im.result(op, x)};
}

// broadcast (deprecated): the new dims lead, the operand's follow.
std::vector<ValueRef> map_broadcast(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  const TensorType t = im.result_type(op);
  const size_t rank = in.at(0)->type.shape.size();
  std::vector<int64_t> dims;
  for (size_t d = 0; d < rank; ++d) dims.push_back(static_cast<int64_t>(t.shape.size() - rank + d));
  return {one(im, op, in, OpKind::BroadcastInDim, {{"shape", t.shape}, {"broadcast_dimensions", dims}})};
}

// get_dimension_size of a static shape is a constant.
std::vector<ValueRef> map_get_dimension_size(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  const Shape& shape = in.at(0)->type.shape;
  const int64_t dim = int_attr(im, op, "dimension");
  if (dim < 0 || dim >= static_cast<int64_t>(shape.size())) im.unsupported(op, "dimension out of range");
  return {im.known(Tensor::from_i64({}, {shape[static_cast<size_t>(dim)]}).to(im.result_type(op).dtype))};
}

std::vector<ValueRef> map_broadcast_in_dim(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  const TensorType t = im.result_type(op);
  return {one(im, op, in, OpKind::BroadcastInDim,
              {{"shape", t.shape}, {"broadcast_dimensions", ints_attr(im, op, "broadcast_dimensions")}})};
}

std::vector<ValueRef> map_pad(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  const size_t rank = in.at(0)->type.shape.size();
  return {one(im, op, in, OpKind::Pad,
              {{"low", ints_attr(im, op, "edge_padding_low")},
               {"high", ints_attr(im, op, "edge_padding_high")},
               {"interior", ints_attr(im, op, "interior_padding", std::vector<int64_t>(rank, 0))}})};
}

std::vector<ValueRef> map_reverse(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  const std::vector<int64_t> dims = ints_attr(im, op, "dimensions");
  if (dims.empty()) return {in.at(0)};
  return {one(im, op, in, OpKind::Reverse, {{"dimensions", dims}})};
}

std::vector<ValueRef> map_dynamic_slice(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  return {one(im, op, in, OpKind::DynamicSlice, {{"slice_sizes", ints_attr(im, op, "slice_sizes")}})};
}

std::vector<ValueRef> map_dynamic_update_slice(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  return {one(im, op, in, OpKind::DynamicUpdateSlice, {})};
}

std::vector<ValueRef> map_gather(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  const Attribute& dn = struct_attr(im, op, "dimension_numbers");
  Attrs attrs;
  for (const char* field : {"offset_dims", "collapsed_slice_dims", "operand_batching_dims",
                            "start_indices_batching_dims", "start_index_map"}) {
    attrs.set(field, struct_ints(im, op, dn, field));
  }
  const std::vector<int64_t> ivd = struct_ints(im, op, dn, "index_vector_dim");
  attrs.set("index_vector_dim", ivd.empty() ? int64_t{0} : ivd[0]);
  attrs.set("slice_sizes", ints_attr(im, op, "slice_sizes"));
  attrs.set("indices_are_sorted", static_cast<int64_t>(flag_attr(op, "indices_are_sorted")));
  return {one(im, op, in, OpKind::Gather, attrs)};
}

std::vector<ValueRef> map_dot_general(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  const Attribute& dn = struct_attr(im, op, "dot_dimension_numbers");
  const TensorType t = im.result_type(op);
  return {one(im, op, in, OpKind::DotGeneral,
              {{"lhs_batching_dims", struct_ints(im, op, dn, "lhs_batching_dimensions")},
               {"rhs_batching_dims", struct_ints(im, op, dn, "rhs_batching_dimensions")},
               {"lhs_contracting_dims", struct_ints(im, op, dn, "lhs_contracting_dimensions")},
               {"rhs_contracting_dims", struct_ints(im, op, dn, "rhs_contracting_dimensions")},
               {"dtype", std::string(dtype_name(t.dtype))}})};
}

// dot: vector/matrix products, contracting lhs's last dim with rhs's first.
std::vector<ValueRef> map_dot(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  const TensorType t = im.result_type(op);
  const int64_t lhs_rank = static_cast<int64_t>(in.at(0)->type.shape.size());
  return {one(im, op, in, OpKind::DotGeneral,
              {{"lhs_batching_dims", std::vector<int64_t>{}},
               {"rhs_batching_dims", std::vector<int64_t>{}},
               {"lhs_contracting_dims", std::vector<int64_t>{lhs_rank - 1}},
               {"rhs_contracting_dims", std::vector<int64_t>{0}},
               {"dtype", std::string(dtype_name(t.dtype))}})};
}

std::vector<ValueRef> map_convolution(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  const Attribute& dn = struct_attr(im, op, "dimension_numbers");
  const size_t spatial = in.at(0)->type.shape.size() - 2;
  const std::vector<int64_t> ones(spatial, 1);
  const std::vector<int64_t> zeros(spatial, 0);
  const TensorType t = im.result_type(op);
  Attrs attrs{{"window_strides", ints_attr(im, op, "window_strides", ones)},
              {"padding", ints_attr(im, op, "padding", std::vector<int64_t>(2 * spatial, 0))},
              {"lhs_dilation", ints_attr(im, op, "lhs_dilation", ones)},
              {"rhs_dilation", ints_attr(im, op, "rhs_dilation", ones)},
              {"window_reversal", ints_attr(im, op, "window_reversal", zeros)},
              {"feature_group_count", int_attr(im, op, "feature_group_count", 1)},
              {"batch_group_count", int_attr(im, op, "batch_group_count", 1)},
              {"dtype", std::string(dtype_name(t.dtype))}};
  for (const char* field : {"input_batch_dimension", "input_feature_dimension", "kernel_input_feature_dimension",
                            "kernel_output_feature_dimension", "output_batch_dimension", "output_feature_dimension"}) {
    const std::vector<int64_t> v = struct_ints(im, op, dn, field);
    if (v.size() != 1) im.unsupported(op, std::string("dimension_numbers lacks ") + field);
    attrs.set(field, v[0]);
  }
  for (const char* field : {"input_spatial_dimensions", "kernel_spatial_dimensions", "output_spatial_dimensions"}) {
    attrs.set(field, struct_ints(im, op, dn, field));
  }
  return {one(im, op, in, OpKind::Convolution, attrs)};
}

// batch_norm_inference: meshtest's batch_norm when the features are dim 1
// of a rank-4 operand, else (x - mean) * rsqrt(variance + eps) * scale +
// offset with each [C] parameter broadcast along feature_index.
std::vector<ValueRef> map_batch_norm_inference(Importer& im, const Op& op, const std::vector<ValueRef>& in) {
  if (in.size() != 5) im.unsupported(op, "expects (operand, scale, offset, mean, variance)");
  const TensorType& x = in[0]->type;
  const int64_t feature = int_attr(im, op, "feature_index");
  const Attribute* eps_attr = op.attr("epsilon");
  if (eps_attr == nullptr || eps_attr->kind != Attribute::Kind::Float) im.unsupported(op, "missing epsilon");
  const double eps = eps_attr->float_value;
  if (x.shape.size() == 4 && feature == 1) {
    return {one(im, op, in, OpKind::BatchNorm, {{"eps", eps}})};  // same operand order
  }
  auto along_features = [&](const ValueRef& v) {
    return im.emit(op, OpKind::BroadcastInDim, {im.graph_value(v, op)},
                   {{"shape", x.shape}, {"broadcast_dimensions", std::vector<int64_t>{feature}}});
  };
  const ValueId eps_value = im.graph_value(im.known(Tensor::from_f32({}, {static_cast<float>(eps)}).to(x.dtype)), op);
  const ValueId inv_std = im.emit(op, OpKind::Rsqrt, {im.emit(op, OpKind::Add, {along_features(in[4]), eps_value})});
  const ValueId centered = im.emit(op, OpKind::Sub, {im.graph_value(in[0], op), along_features(in[3])});
  const ValueId scaled = im.emit(op, OpKind::Mul, {im.emit(op, OpKind::Mul, {centered, inv_std}), along_features(in[1])});
  return {im.result(op, im.emit(op, OpKind::Add, {scaled, along_features(in[2])}))};
}

}  // namespace

void add_structural_handlers(HandlerTable& table) {
  add_simple_handlers(table, {
                                 {"stablehlo.reshape", map_reshape},
                                 {"stablehlo.transpose", map_transpose},
                                 {"stablehlo.concatenate", map_concatenate},
                                 {"stablehlo.slice", map_slice},
                                 {"stablehlo.broadcast_in_dim", map_broadcast_in_dim},
      {"stablehlo.broadcast", map_broadcast},
      {"stablehlo.get_dimension_size", map_get_dimension_size},
                                 {"stablehlo.pad", map_pad},
                                 {"stablehlo.reverse", map_reverse},
                                 {"stablehlo.dynamic_slice", map_dynamic_slice},
                                 {"stablehlo.dynamic_update_slice", map_dynamic_update_slice},
                                 {"stablehlo.gather", map_gather},
                                 {"stablehlo.dot_general", map_dot_general},
                                 {"stablehlo.dot", map_dot},
                                 {"stablehlo.convolution", map_convolution},
      {"stablehlo.batch_norm_inference", map_batch_norm_inference},
                             });
}

}  // namespace meshtest::frontends::stablehlo
