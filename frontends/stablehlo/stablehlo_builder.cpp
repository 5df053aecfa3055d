// FunctionBuilder: one func.func body as StableHLO text, op by op.
#include "frontends/stablehlo/stablehlo_builder.h"

#include <algorithm>

#include "core/error.h"
#include "core/ops.h"
#include "frontends/stablehlo/stablehlo_text.h"

namespace meshtest::frontends::stablehlo {

namespace {

std::string type_of(const Val& v) { return tensor_type(v.type); }

// "(t1, t2) -> t3"
std::string signature(const std::vector<Val>& operands, const TensorType& result) {
  return "(" + types_of(operands) + ") -> " + tensor_type(result);
}

void require_same_type(const Val& a, const Val& b, std::string_view what) {
  if (a.type != b.type) {
    throw CompileError("stablehlo writer: " + std::string(what) + " operands differ: " + type_to_string(a.type) +
                       " vs " + type_to_string(b.type));
  }
}

}  // namespace

std::string_view compare_type(DType dtype) {
  if (is_floating(dtype)) return "FLOAT";
  if (dtype == DType::Bool || is_unsigned_integer(dtype)) return "UNSIGNED";
  return "SIGNED";
}

std::string types_of(const std::vector<Val>& vals) {
  std::string text;
  for (size_t i = 0; i < vals.size(); ++i) text += (i > 0 ? ", " : "") + type_of(vals[i]);
  return text;
}

std::string FunctionBuilder::next_result() { return "%" + std::to_string(next_result_++); }

std::string FunctionBuilder::next_constant(DType dtype) {
  const bool floating = is_floating(dtype);
  int& counter = floating ? next_float_constant_ : next_int_constant_;
  const std::string stem = floating ? "%cst" : "%c";
  const int n = counter++;
  return n == 0 ? stem : stem + "_" + std::to_string(n - 1);
}

Val FunctionBuilder::emit(const std::string& op_text, const TensorType& type) {
  Val v{next_result(), type};
  text_ += std::string(indent_, ' ') + v.ssa + " = " + op_text + "\n";
  return v;
}

void FunctionBuilder::emit_line(const std::string& line) { text_ += std::string(indent_, ' ') + line + "\n"; }

Val FunctionBuilder::constant(const std::string& dense, const TensorType& type) {
  Val v{next_constant(type.dtype), type};
  text_ += std::string(indent_, ' ') + v.ssa + " = stablehlo.constant " + dense + " : " + tensor_type(type) + "\n";
  return v;
}

Val FunctionBuilder::splat(double value, const TensorType& type) {
  return constant("dense<" + scalar_literal(value, type.dtype) + ">", type);
}

Val FunctionBuilder::scalar(double value, DType dtype) { return splat(value, TensorType{dtype, {}}); }

Val FunctionBuilder::unary(std::string_view op, const Val& x) {
  return emit("stablehlo." + std::string(op) + " " + x.ssa + " : " + type_of(x), x.type);
}

Val FunctionBuilder::chlo_unary(std::string_view op, const Val& x) {
  return emit("chlo." + std::string(op) + " " + x.ssa + " : " + type_of(x) + " -> " + type_of(x), x.type);
}

Val FunctionBuilder::binary(std::string_view op, const Val& a, const Val& b) {
  require_same_type(a, b, op);
  return emit("stablehlo." + std::string(op) + " " + a.ssa + ", " + b.ssa + " : " + type_of(a), a.type);
}

Val FunctionBuilder::chlo_binary(std::string_view op, const Val& a, const Val& b) {
  require_same_type(a, b, op);
  return emit("chlo." + std::string(op) + " " + a.ssa + ", " + b.ssa + " : " + type_of(a) + ", " + type_of(b) + " -> " +
                  type_of(a),
              a.type);
}

Val FunctionBuilder::broadcast_binary(std::string_view op, const Val& a, const Val& b) {
  const Shape shape = broadcast_shapes(a.type.shape, b.type.shape);
  const Val lhs = broadcast_to(a, shape);
  const Val rhs = broadcast_to(b, shape);
  return binary(op, lhs, rhs);
}

Val FunctionBuilder::with_scalar(std::string_view op, const Val& x, double value) {
  return binary(op, x, splat(value, x.type));
}

Val FunctionBuilder::compare(std::string_view direction, const Val& a, const Val& b, std::string_view type) {
  require_same_type(a, b, "compare");
  if (type.empty()) type = compare_type(a.type.dtype);
  return emit("stablehlo.compare  " + std::string(direction) + ", " + a.ssa + ", " + b.ssa + ",  " + std::string(type) +
                  " : " + signature({a, b}, {DType::Bool, a.type.shape}),
              {DType::Bool, a.type.shape});
}

Val FunctionBuilder::select(const Val& pred, const Val& on_true, const Val& on_false) {
  require_same_type(on_true, on_false, "select");
  const Val p = broadcast_to(pred, on_true.type.shape);
  return emit("stablehlo.select " + p.ssa + ", " + on_true.ssa + ", " + on_false.ssa + " : " + type_of(p) + ", " +
                  type_of(on_true),
              on_true.type);
}

Val FunctionBuilder::convert(const Val& x, DType to) {
  if (x.type.dtype == to) return x;
  const TensorType type{to, x.type.shape};
  return emit("stablehlo.convert " + x.ssa + " : " + signature({x}, type), type);
}

Val FunctionBuilder::broadcast_in_dim(const Val& x, const Shape& shape, const std::vector<int64_t>& dims) {
  const TensorType type{x.type.dtype, shape};
  return emit("stablehlo.broadcast_in_dim " + x.ssa + ", dims = " + int_list(dims) + " : " + signature({x}, type),
              type);
}

Val FunctionBuilder::broadcast_to(const Val& x, const Shape& shape) {
  if (x.type.shape == shape) return x;
  const size_t rank = x.type.shape.size();
  if (rank > shape.size()) {
    throw CompileError("stablehlo writer: cannot broadcast " + type_to_string(x.type) + " to " +
                       shape_to_string(shape));
  }
  // Size-1 dims that meet a larger extent are dropped first (broadcast_in_dim
  // needs each operand dim equal to its result dim or 1; both work, but the
  // reshape-free form keeps the numpy rule visible).
  std::vector<int64_t> dims(rank);
  for (size_t i = 0; i < rank; ++i) dims[i] = static_cast<int64_t>(shape.size() - rank + i);
  return broadcast_in_dim(x, shape, dims);
}

Val FunctionBuilder::reshape(const Val& x, const Shape& shape) {
  if (x.type.shape == shape) return x;
  const TensorType type{x.type.dtype, shape};
  return emit("stablehlo.reshape " + x.ssa + " : " + signature({x}, type), type);
}

Val FunctionBuilder::transpose(const Val& x, const std::vector<int64_t>& perm) {
  Shape shape;
  for (int64_t p : perm) shape.push_back(x.type.shape.at(static_cast<size_t>(p)));
  const TensorType type{x.type.dtype, shape};
  return emit("stablehlo.transpose " + x.ssa + ", dims = " + int_list(perm) + " : " + signature({x}, type), type);
}

Val FunctionBuilder::reverse(const Val& x, const std::vector<int64_t>& dims) {
  return emit("stablehlo.reverse " + x.ssa + ", dims = " + int_list(dims) + " : " + type_of(x), x.type);
}

Val FunctionBuilder::slice(const Val& x, const std::vector<int64_t>& start, const std::vector<int64_t>& limit,
                           const std::vector<int64_t>& strides) {
  Shape shape;
  std::string ranges = "[";
  for (size_t d = 0; d < start.size(); ++d) {
    const int64_t extent = limit[d] > start[d] ? (limit[d] - start[d] - 1) / strides[d] + 1 : 0;
    shape.push_back(extent);
    ranges += (d > 0 ? ", " : "") + std::to_string(start[d]) + ":" + std::to_string(limit[d]);
    if (strides[d] != 1) ranges += ":" + std::to_string(strides[d]);
  }
  const TensorType type{x.type.dtype, shape};
  return emit("stablehlo.slice " + x.ssa + " " + ranges + "] : " + signature({x}, type), type);
}

Val FunctionBuilder::pad(const Val& x, const Val& value, const std::vector<int64_t>& low,
                         const std::vector<int64_t>& high, const std::vector<int64_t>& interior) {
  Shape shape;
  for (size_t d = 0; d < low.size(); ++d) {
    const int64_t n = x.type.shape[d];
    shape.push_back(low[d] + high[d] + n + (n > 0 ? (n - 1) * interior[d] : 0));
  }
  const TensorType type{x.type.dtype, shape};
  return emit("stablehlo.pad " + x.ssa + ", " + value.ssa + ", low = " + int_list(low) + ", high = " + int_list(high) +
                  ", interior = " + int_list(interior) + " : " + signature({x, value}, type),
              type);
}

Val FunctionBuilder::concatenate(const std::vector<Val>& xs, int64_t dim) {
  TensorType type = xs.at(0).type;
  type.shape[static_cast<size_t>(dim)] = 0;
  std::string operands;
  for (size_t i = 0; i < xs.size(); ++i) {
    type.shape[static_cast<size_t>(dim)] += xs[i].type.shape[static_cast<size_t>(dim)];
    operands += (i > 0 ? ", " : "") + xs[i].ssa;
  }
  return emit("stablehlo.concatenate " + operands + ", dim = " + std::to_string(dim) + " : " + signature(xs, type),
              type);
}

Val FunctionBuilder::iota(const TensorType& type, int64_t dim) {
  return emit("stablehlo.iota dim = " + std::to_string(dim) + " : " + tensor_type(type), type);
}

Val FunctionBuilder::reduce(const Val& x, const std::vector<int64_t>& dims, std::string_view combiner,
                            double init_value) {
  return reduce(x, scalar(init_value, x.type.dtype), dims, combiner);
}

Val FunctionBuilder::reduce(const Val& x, const Val& init, const std::vector<int64_t>& dims,
                            std::string_view combiner) {
  std::vector<int64_t> sorted = dims;
  std::sort(sorted.begin(), sorted.end());
  Shape shape;
  for (size_t d = 0; d < x.type.shape.size(); ++d) {
    if (!std::binary_search(sorted.begin(), sorted.end(), static_cast<int64_t>(d))) shape.push_back(x.type.shape[d]);
  }
  const TensorType type{x.type.dtype, shape};
  return emit("stablehlo.reduce(" + x.ssa + " init: " + init.ssa + ") applies stablehlo." + std::string(combiner) +
                  " across dimensions = " + int_list(sorted) + " : " + signature({x, init}, type),
              type);
}

Val FunctionBuilder::dot_general(const Val& a, const Val& b, const std::vector<int64_t>& batch_a,
                                 const std::vector<int64_t>& batch_b, const std::vector<int64_t>& contract_a,
                                 const std::vector<int64_t>& contract_b, std::optional<DType> result_dtype) {
  Shape shape;
  for (int64_t d : batch_a) shape.push_back(a.type.shape[static_cast<size_t>(d)]);
  auto free_dims = [&shape](const Val& v, const std::vector<int64_t>& batch, const std::vector<int64_t>& contract) {
    for (size_t d = 0; d < v.type.shape.size(); ++d) {
      const auto di = static_cast<int64_t>(d);
      if (std::find(batch.begin(), batch.end(), di) == batch.end() &&
          std::find(contract.begin(), contract.end(), di) == contract.end()) {
        shape.push_back(v.type.shape[d]);
      }
    }
  };
  free_dims(a, batch_a, contract_a);
  free_dims(b, batch_b, contract_b);
  const TensorType type{result_dtype.value_or(a.type.dtype), shape};
  std::string dims;
  if (!batch_a.empty()) dims += "batching_dims = " + int_list(batch_a) + " x " + int_list(batch_b) + ", ";
  dims += "contracting_dims = " + int_list(contract_a) + " x " + int_list(contract_b);
  return emit("stablehlo.dot_general " + a.ssa + ", " + b.ssa + ", " + dims + " : " + signature({a, b}, type), type);
}

namespace {

bool all_ones(const std::vector<int64_t>& values) {
  for (int64_t v : values) {
    if (v != 1) return false;
  }
  return true;
}

std::string padding_pairs(const std::vector<std::pair<int64_t, int64_t>>& pad) {
  std::string text = "[";
  for (size_t i = 0; i < pad.size(); ++i) {
    text += (i > 0 ? ", [" : "[") + std::to_string(pad[i].first) + ", " + std::to_string(pad[i].second) + "]";
  }
  return text + "]";
}

}  // namespace

Val FunctionBuilder::convolution(const Val& lhs, const Val& rhs, std::string_view dim_numbers, const ConvWindow& window,
                                 int64_t feature_groups, int64_t batch_groups, const TensorType& type) {
  std::vector<std::string> parts;
  if (!window.stride.empty()) parts.push_back("stride = " + int_list(window.stride));
  if (!window.pad.empty()) parts.push_back("pad = " + padding_pairs(window.pad));
  if (!all_ones(window.lhs_dilate)) parts.push_back("lhs_dilate = " + int_list(window.lhs_dilate));
  if (!all_ones(window.rhs_dilate)) parts.push_back("rhs_dilate = " + int_list(window.rhs_dilate));
  if (std::any_of(window.reverse.begin(), window.reverse.end(), [](int64_t r) { return r != 0; })) {
    std::string flags = "[";
    for (size_t i = 0; i < window.reverse.size(); ++i)
      flags += (i > 0 ? ", " : "") + std::string(window.reverse[i] != 0 ? "true" : "false");
    parts.push_back("reverse = " + flags + "]");
  }
  std::string text = "stablehlo.convolution(" + lhs.ssa + ", " + rhs.ssa +
                     ") dim_numbers = " + std::string(dim_numbers) + ", window = {";
  for (size_t i = 0; i < parts.size(); ++i) text += (i > 0 ? ", " : "") + parts[i];
  text += "} {batch_group_count = " + std::to_string(batch_groups) +
          " : i64, feature_group_count = " + std::to_string(feature_groups) + " : i64}";
  return emit(text + " : " + signature({lhs, rhs}, type), type);
}

Val FunctionBuilder::reduce_window(const Val& x, double init_value, std::string_view combiner,
                                   const std::vector<int64_t>& window, const std::vector<int64_t>& strides,
                                   const std::vector<std::pair<int64_t, int64_t>>& padding, const TensorType& type) {
  return reduce_window(x, scalar(init_value, x.type.dtype), combiner, WindowSpec{window, strides, {}, {}, padding},
                       type);
}

Val FunctionBuilder::reduce_window(const Val& x, const Val& init, std::string_view combiner, const WindowSpec& window,
                                   const TensorType& type) {
  std::vector<std::string> props;  // sorted by name, as MLIR prints properties
  if (!all_ones(window.base_dilations)) props.push_back("base_dilations = " + i64_array(window.base_dilations));
  if (!window.padding.empty()) {
    props.push_back("padding = dense<" + padding_pairs(window.padding) + "> : tensor<" +
                    std::to_string(window.padding.size()) + "x2xi64>");
  }
  if (!all_ones(window.window_dilations)) props.push_back("window_dilations = " + i64_array(window.window_dilations));
  props.push_back("window_dimensions = " + i64_array(window.dimensions));
  if (!all_ones(window.strides)) props.push_back("window_strides = " + i64_array(window.strides));
  std::string text;
  for (size_t i = 0; i < props.size(); ++i) text += (i > 0 ? ", " : "") + props[i];
  return generic("reduce_window", {x, init}, text, {combiner_region(combiner, x.type.dtype)}, type);
}

Val FunctionBuilder::generic(std::string_view name, const std::vector<Val>& operands, const std::string& properties,
                             const std::vector<std::string>& regions, const TensorType& type) {
  std::string text = "\"stablehlo." + std::string(name) + "\"(";
  for (size_t i = 0; i < operands.size(); ++i) text += (i > 0 ? ", " : "") + operands[i].ssa;
  text += ")";
  if (!properties.empty()) text += " <{" + properties + "}>";
  if (!regions.empty()) {
    text += " (";
    for (size_t i = 0; i < regions.size(); ++i) text += (i > 0 ? ", " : "") + regions[i];
    text += ")";
  }
  return emit(text + " : " + signature(operands, type), type);
}

std::vector<Val> FunctionBuilder::generic_multi(std::string_view name, const std::vector<Val>& operands,
                                                const std::string& properties, const std::vector<std::string>& regions,
                                                const std::vector<TensorType>& types) {
  std::string text = "\"stablehlo." + std::string(name) + "\"(";
  for (size_t i = 0; i < operands.size(); ++i) text += (i > 0 ? ", " : "") + operands[i].ssa;
  text += ")";
  if (!properties.empty()) text += " <{" + properties + "}>";
  if (!regions.empty()) {
    text += " (";
    for (size_t i = 0; i < regions.size(); ++i) text += (i > 0 ? ", " : "") + regions[i];
    text += ")";
  }
  std::string result_types;
  for (size_t i = 0; i < types.size(); ++i) result_types += (i > 0 ? ", " : "") + tensor_type(types[i]);
  const std::string base = next_result();
  text_ += std::string(indent_, ' ') + base + ":" + std::to_string(types.size()) + " = " + text + " : (" +
           types_of(operands) + ") -> (" + result_types + ")\n";
  std::vector<Val> results;
  for (size_t i = 0; i < types.size(); ++i) results.push_back({base + "#" + std::to_string(i), types[i]});
  return results;
}

std::string FunctionBuilder::region(const std::vector<DType>& arg_dtypes, const RegionBody& body) {
  std::vector<Val> args;
  std::string header = std::string(indent_, ' ') + "^bb0(";
  for (size_t i = 0; i < arg_dtypes.size(); ++i) {
    args.push_back({next_region_arg(), TensorType{arg_dtypes[i], {}}});
    header += (i > 0 ? ", " : "") + args.back().ssa + ": " + scalar_type(arg_dtypes[i]);
  }
  std::string outer;
  std::swap(outer, text_);
  indent_ += 2;
  const std::vector<Val> returned = body(*this, args);
  std::string names, types;
  for (size_t i = 0; i < returned.size(); ++i) {
    names += (i > 0 ? ", " : "") + returned[i].ssa;
    types += (i > 0 ? ", " : "") + tensor_type(returned[i].type);
  }
  emit_line("stablehlo.return " + names + " : " + types);
  indent_ -= 2;
  std::swap(outer, text_);
  return "{\n" + header + "):\n" + outer + std::string(indent_, ' ') + "}";
}

std::string FunctionBuilder::combiner_region(std::string_view combiner, DType dtype) {
  return region({dtype, dtype}, [combiner](FunctionBuilder& fn, const std::vector<Val>& a) {
    return std::vector<Val>{combiner.empty() ? a[1] : fn.binary(combiner, a[0], a[1])};
  });
}

std::string FunctionBuilder::compare_region(std::string_view direction, DType dtype) {
  return region({dtype, dtype}, [direction](FunctionBuilder& fn, const std::vector<Val>& a) {
    return std::vector<Val>{fn.compare(direction, a[0], a[1])};
  });
}

}  // namespace meshtest::frontends::stablehlo
