// StableHLO emitters of the ops meshtest took from StableHLO itself
// (broadcast_in_dim, pad, reverse, dynamic_slice / dynamic_update_slice,
// gather, scatter, dot_general, convolution, reduce, reduce_arg,
// reduce_window, select_and_scatter, sort_permutation, take_along_axis):
// each is written back as the StableHLO op it came from, or (reduce_arg,
// sort_permutation, take_along_axis) as the ops JAX lowers it to.
#include <algorithm>
#include <cmath>
#include <map>

#include "frontends/stablehlo/stablehlo_emitters.h"
#include "frontends/stablehlo/stablehlo_text.h"

namespace meshtest::frontends::stablehlo {

namespace {

using K = OpKind;

// meshtest's combiner names -> StableHLO ops ("" = scatter's assign: the update).
std::string combiner_op(const EmitContext& c, const std::string& combiner) {
  static const std::map<std::string, std::string> ops = {{"add", "add"},     {"mul", "multiply"}, {"max", "maximum"},
                                                         {"min", "minimum"}, {"and", "and"},      {"or", "or"},
                                                         {"xor", "xor"},     {"assign", ""}};
  const auto it = ops.find(combiner);
  if (it == ops.end()) c.fail("unknown combiner '" + combiner + "'");
  return it->second;
}

// [lo0, hi0, lo1, hi1, ...] -> pairs (empty stays empty).
std::vector<std::pair<int64_t, int64_t>> pairs(const std::vector<int64_t>& flat) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (size_t i = 0; i + 1 < flat.size(); i += 2) out.emplace_back(flat[i], flat[i + 1]);
  return out;
}

// `name = [..]` when the list is not empty (MLIR leaves empty dimension lists out).
void add_dims(std::vector<std::string>& fields, const std::string& name, const std::vector<int64_t>& dims) {
  if (!dims.empty()) fields.push_back(name + " = " + int_list(dims));
}

std::string join(const std::vector<std::string>& parts) {
  std::string text;
  for (size_t i = 0; i < parts.size(); ++i) text += (i > 0 ? ", " : "") + parts[i];
  return text;
}

Val emit_broadcast_in_dim(EmitContext& c) {
  return c.fn.broadcast_in_dim(c.in[0], c.out.shape, c.get_ints("broadcast_dimensions"));
}

Val emit_pad(EmitContext& c) {
  std::vector<int64_t> interior = c.get_ints("interior");
  if (interior.empty()) interior.assign(c.out.shape.size(), 0);
  return c.fn.pad(c.in[0], c.in[1], c.get_ints("low"), c.get_ints("high"), interior);
}

Val emit_reverse(EmitContext& c) { return c.fn.reverse(c.in[0], c.get_ints("dimensions")); }

Val emit_dynamic_slice(EmitContext& c) {
  std::string text = "stablehlo.dynamic_slice " + c.in[0].ssa;
  for (size_t i = 1; i < c.in.size(); ++i) text += ", " + c.in[i].ssa;
  return c.fn.emit(text + ", sizes = " + int_list(c.get_ints("slice_sizes")) + " : (" + types_of(c.in) + ") -> " +
                       tensor_type(c.out),
                   c.out);
}

Val emit_dynamic_update_slice(EmitContext& c) {
  std::string text = "stablehlo.dynamic_update_slice " + c.in[0].ssa;
  for (size_t i = 1; i < c.in.size(); ++i) text += ", " + c.in[i].ssa;
  return c.fn.emit(text + " : (" + types_of(c.in) + ") -> " + tensor_type(c.out), c.out);
}

Val emit_gather(EmitContext& c) {
  std::vector<std::string> dims;
  add_dims(dims, "offset_dims", c.get_ints("offset_dims"));
  add_dims(dims, "collapsed_slice_dims", c.get_ints("collapsed_slice_dims"));
  add_dims(dims, "operand_batching_dims", c.get_ints("operand_batching_dims"));
  add_dims(dims, "start_indices_batching_dims", c.get_ints("start_indices_batching_dims"));
  add_dims(dims, "start_index_map", c.get_ints("start_index_map"));
  dims.push_back("index_vector_dim = " + std::to_string(c.get_int("index_vector_dim")));
  std::string props = "dimension_numbers = #stablehlo.gather<" + join(dims) + ">";
  if (c.get_int("indices_are_sorted") != 0) props += ", indices_are_sorted = true";
  props += ", slice_sizes = " + i64_array(c.get_ints("slice_sizes"));
  return c.fn.generic("gather", c.in, props, {}, c.out);
}

Val emit_scatter(EmitContext& c) {
  std::vector<std::string> dims;
  add_dims(dims, "update_window_dims", c.get_ints("update_window_dims"));
  add_dims(dims, "inserted_window_dims", c.get_ints("inserted_window_dims"));
  add_dims(dims, "input_batching_dims", c.get_ints("input_batching_dims"));
  add_dims(dims, "scatter_indices_batching_dims", c.get_ints("scatter_indices_batching_dims"));
  add_dims(dims, "scatter_dims_to_operand_dims", c.get_ints("scatter_dims_to_operand_dims"));
  dims.push_back("index_vector_dim = " + std::to_string(c.get_int("index_vector_dim")));
  std::string props;
  if (c.get_int("indices_are_sorted") != 0) props += "indices_are_sorted = true, ";
  props += "scatter_dimension_numbers = #stablehlo.scatter<" + join(dims) + ">";
  if (c.get_int("unique_indices") != 0) props += ", unique_indices = true";
  const std::string body = c.fn.combiner_region(combiner_op(c, c.get_string("combiner")), c.out.dtype);
  return c.fn.generic("scatter", c.in, props, {body}, c.out);
}

Val emit_dot_general(EmitContext& c) {
  return c.fn.dot_general(c.in[0], c.in[1], c.get_ints("lhs_batching_dims"), c.get_ints("rhs_batching_dims"),
                          c.get_ints("lhs_contracting_dims"), c.get_ints("rhs_contracting_dims"), c.out.dtype);
}

// "[b, 0, 1, f]": each dim's role, spatial dims by their index.
std::string dim_labels(size_t rank, int64_t first, char first_label, int64_t second, char second_label,
                       const std::vector<int64_t>& spatial) {
  std::vector<std::string> labels(rank, "?");
  labels[static_cast<size_t>(first)] = std::string(1, first_label);
  labels[static_cast<size_t>(second)] = std::string(1, second_label);
  for (size_t i = 0; i < spatial.size(); ++i) labels[static_cast<size_t>(spatial[i])] = std::to_string(i);
  return "[" + join(labels) + "]";
}

Val emit_convolution(EmitContext& c) {
  const size_t rank = c.out.shape.size();
  const std::string numbers =
      dim_labels(rank, c.get_int("input_batch_dimension"), 'b', c.get_int("input_feature_dimension"), 'f',
                 c.get_ints("input_spatial_dimensions")) +
      "x" +
      dim_labels(rank, c.get_int("kernel_output_feature_dimension"), 'o', c.get_int("kernel_input_feature_dimension"),
                 'i', c.get_ints("kernel_spatial_dimensions")) +
      "->" +
      dim_labels(rank, c.get_int("output_batch_dimension"), 'b', c.get_int("output_feature_dimension"), 'f',
                 c.get_ints("output_spatial_dimensions"));
  ConvWindow window{c.get_ints("window_strides"), pairs(c.get_ints("padding")), c.get_ints("lhs_dilation"),
                    c.get_ints("rhs_dilation"), c.get_ints("window_reversal")};
  return c.fn.convolution(c.in[0], c.in[1], numbers, window, c.get_int("feature_group_count"),
                          c.get_int("batch_group_count"), c.out);
}

Val emit_reduce(EmitContext& c) {
  return c.fn.reduce(c.in[0], c.in[1], c.get_ints("dimensions"), combiner_op(c, c.get_string("combiner")));
}

// reduce_arg as JAX lowers argmax / argmin: a reduce of (x, iota) keeping the
// first extreme value and its index; NaN wins (x != x).
Val emit_reduce_arg(EmitContext& c) {
  FunctionBuilder& fn = c.fn;
  const Val& x = c.in[0];
  const int64_t dim = c.get_int("dimension");
  const bool max = c.get_string("direction") == "max";
  const DType index = c.out.dtype;
  const Val iota = fn.iota({index, x.type.shape}, dim);
  const Val init = fn.scalar(max ? lowest_value(x.type.dtype) : highest_value(x.type.dtype), x.type.dtype);
  const Val init_index = fn.scalar(0.0, index);
  const std::string body =
      fn.region({x.type.dtype, index, x.type.dtype, index}, [max](FunctionBuilder& f, const std::vector<Val>& a) {
        const Val better = f.compare(max ? "GT" : "LT", a[0], a[2]);
        const Val nan = f.compare("NE", a[0], a[0]);
        const Val beats = f.binary("or", better, nan);
        const Val equal = f.compare("EQ", a[0], a[2]);
        const Val earlier = f.binary("and", equal, f.compare("LT", a[1], a[3]));
        const Val take_index = f.binary("or", beats, earlier);
        const Val value = f.select(beats, a[0], a[2]);
        return std::vector<Val>{value, f.select(take_index, a[1], a[3])};
      });
  const TensorType values{x.type.dtype, c.out.shape};
  return fn.generic_multi("reduce", {x, iota, init, init_index}, "dimensions = " + i64_array({dim}), {body},
                          {values, c.out})[1];
}

Val emit_reduce_window(EmitContext& c) {
  const WindowSpec window{c.get_ints("window_dimensions"), c.get_ints("window_strides"), c.get_ints("base_dilations"),
                          c.get_ints("window_dilations"), pairs(c.get_ints("padding"))};
  return c.fn.reduce_window(c.in[0], c.in[1], combiner_op(c, c.get_string("combiner")), window, c.out);
}

Val emit_select_and_scatter(EmitContext& c) {
  FunctionBuilder& fn = c.fn;
  std::string direction = c.get_string("select");
  std::transform(direction.begin(), direction.end(), direction.begin(),
                 [](char ch) { return static_cast<char>(ch - 32); });
  std::vector<std::string> props;
  if (const auto pad = pairs(c.get_ints("padding")); !pad.empty()) {
    std::string text = "padding = dense<[";
    for (size_t i = 0; i < pad.size(); ++i) {
      text += (i > 0 ? ", [" : "[") + std::to_string(pad[i].first) + ", " + std::to_string(pad[i].second) + "]";
    }
    props.push_back(text + "]> : tensor<" + std::to_string(pad.size()) + "x2xi64>");
  }
  props.push_back("window_dimensions = " + i64_array(c.get_ints("window_dimensions")));
  if (const auto strides = c.get_ints("window_strides"); !strides.empty()) {
    props.push_back("window_strides = " + i64_array(strides));
  }
  const std::string select = fn.compare_region(direction, c.in[0].type.dtype);
  const std::string scatter = fn.combiner_region(combiner_op(c, c.get_string("combiner")), c.out.dtype);
  return fn.generic("select_and_scatter", c.in, join(props), {select, scatter}, c.out);
}

// A float key as jnp.sort compares it: -0 as +0 and every NaN as one (above +inf in TOTALORDER).
Val canonical_key(FunctionBuilder& fn, const Val& k) {
  const Val zero = fn.splat(0.0, k.type);
  const Val no_minus_zero = fn.select(fn.compare("EQ", k, zero), zero, k);
  const Val is_nan = fn.compare("NE", k, k);
  return fn.select(is_nan, fn.splat(NAN, k.type), no_minus_zero);
}

// sort_permutation: stablehlo.sort of the keys and an iota, comparing
// lexicographically (each key ascending or descending, then the iota, so
// ties keep their input order however the sort runs), returning the iota.
Val emit_sort_permutation(EmitContext& c) {
  FunctionBuilder& fn = c.fn;
  const int64_t dim = c.get_int("dimension");
  std::vector<int64_t> directions = c.get_ints("directions");
  directions.resize(c.in.size(), 0);
  const bool total_order = c.get_int("total_order") != 0;
  std::vector<Val> operands = c.in;
  operands.push_back(fn.iota({DType::I64, c.out.shape}, dim));
  std::vector<DType> arg_dtypes;
  for (const Val& v : operands) {
    arg_dtypes.push_back(v.type.dtype);
    arg_dtypes.push_back(v.type.dtype);
  }
  const size_t keys = operands.size();  // the iota is the last key
  const std::string body = fn.region(arg_dtypes, [&](FunctionBuilder& f, const std::vector<Val>& a) {
    Val result;  // lexicographic "a before b", built from the last key up
    for (size_t k = keys; k-- > 0;) {
      Val lhs = a[2 * k], rhs = a[2 * k + 1];
      const bool floating = is_floating(lhs.type.dtype);
      if (floating && !total_order) {
        lhs = canonical_key(f, lhs);
        rhs = canonical_key(f, rhs);
      }
      const std::string type = floating ? "TOTALORDER" : "";
      const bool descending = k < directions.size() && directions[k] != 0;
      const Val before = f.compare(descending ? "GT" : "LT", lhs, rhs, type);
      if (result.ssa.empty()) {
        result = before;
      } else {
        result = f.binary("or", before, f.binary("and", f.compare("EQ", lhs, rhs, type), result));
      }
    }
    return std::vector<Val>{result};
  });
  std::string props = "dimension = " + std::to_string(dim) + " : i64";
  if (c.get_int("is_stable") != 0) props += ", is_stable = true";
  std::vector<TensorType> types;
  for (const Val& v : operands) types.push_back(v.type);
  return fn.generic_multi("sort", operands, props, {body}, types).back();
}

// take_along_axis as a gather of single elements whose index vectors are
// the iota of every dim but `axis`, which takes `indices`.
Val emit_take_along_axis(EmitContext& c) {
  FunctionBuilder& fn = c.fn;
  const Shape& shape = c.in[1].type.shape;
  const int64_t rank = static_cast<int64_t>(shape.size());
  const int64_t axis = normalize_axis(c.get_int("axis"), rank);
  Shape column = shape;
  column.push_back(1);
  std::vector<Val> parts;
  for (int64_t d = 0; d < rank; ++d) {
    const Val index = d == axis ? fn.convert(c.in[1], DType::I64) : fn.iota({DType::I64, shape}, d);
    parts.push_back(fn.reshape(index, column));
  }
  const Val indices = fn.concatenate(parts, rank);
  std::vector<int64_t> all(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) all[static_cast<size_t>(d)] = d;
  const std::string props = "dimension_numbers = #stablehlo.gather<collapsed_slice_dims = " + int_list(all) +
                            ", start_index_map = " + int_list(all) + ", index_vector_dim = " + std::to_string(rank) +
                            ">, slice_sizes = " + i64_array(std::vector<int64_t>(static_cast<size_t>(rank), 1));
  return fn.generic("gather", {c.in[0], indices}, props, {}, c.out);
}

}  // namespace

void add_structural_emitters(OpTable<Emitter>& table) {
  table.set(K::BroadcastInDim, emit_broadcast_in_dim)
      .set(K::Pad, emit_pad)
      .set(K::Reverse, emit_reverse)
      .set(K::DynamicSlice, emit_dynamic_slice)
      .set(K::DynamicUpdateSlice, emit_dynamic_update_slice)
      .set(K::Gather, emit_gather)
      .set(K::Scatter, emit_scatter)
      .set(K::DotGeneral, emit_dot_general)
      .set(K::Convolution, emit_convolution)
      .set(K::Reduce, emit_reduce)
      .set(K::ReduceArg, emit_reduce_arg)
      .set(K::ReduceWindow, emit_reduce_window)
      .set(K::SelectAndScatter, emit_select_and_scatter)
      .set(K::SortPermutation, emit_sort_permutation)
      .set(K::TakeAlongAxis, emit_take_along_axis);
}

}  // namespace meshtest::frontends::stablehlo
