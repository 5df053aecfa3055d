// FunctionBuilder: the body of one func.func as StableHLO text, built op by
// op. Each helper appends one op in the pretty form JAX prints (or MLIR's
// generic form for ops that have no pretty form, e.g. reduce_window) and
// returns its result as a Val: the SSA name and the tensor type. Results are
// numbered %0, %1, ...; constants are %cst, %cst_0, ... (floats) and %c,
// %c_0, ... (integers) as in JAX; region arguments continue the function's
// %argN numbering so no name is defined twice.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/ops.h"
#include "core/tensor.h"

namespace meshtest::frontends::stablehlo {

struct Val {
  std::string ssa;  // "%3", "%arg0", "%cst_1"
  TensorType type;
};

// A convolution's window attributes (2 spatial dims; empty: the default 1s / 0s).
struct ConvWindow {
  std::vector<int64_t> stride;
  std::vector<std::pair<int64_t, int64_t>> pad;
  std::vector<int64_t> lhs_dilate;
  std::vector<int64_t> rhs_dilate;
  std::vector<int64_t> reverse;  // window_reversal, 0/1 per spatial dim
};

// A reduce_window's geometry (empty lists: StableHLO's defaults).
struct WindowSpec {
  std::vector<int64_t> dimensions, strides, base_dilations, window_dilations;
  std::vector<std::pair<int64_t, int64_t>> padding;
};

class FunctionBuilder {
 public:
  // `arg_count`: the function's own arguments (%arg0..); region arguments follow them.
  explicit FunctionBuilder(int arg_count) : next_arg_(arg_count) {}

  // The body lines so far (each indented for a func.func inside a module).
  const std::string& text() const { return text_; }

  // Appends `%N = <op_text>` with result type `type`.
  Val emit(const std::string& op_text, const TensorType& type);
  // Appends a line that defines nothing (func.return).
  void emit_line(const std::string& line);

  // ---- constants ----
  Val constant(const std::string& dense, const TensorType& type);  // stablehlo.constant <dense> : <type>
  Val splat(double value, const TensorType& type);                 // every element `value`
  Val scalar(double value, DType dtype);                           // rank 0

  // ---- elementwise (operands of one type) ----
  Val unary(std::string_view op, const Val& x);                 // stablehlo.<op> %x : t
  Val chlo_unary(std::string_view op, const Val& x);            // chlo.<op> %x : t -> t
  Val binary(std::string_view op, const Val& a, const Val& b);  // stablehlo.<op> %a, %b : t
  Val chlo_binary(std::string_view op, const Val& a, const Val& b);
  // `a <op> b` after numpy-broadcasting both to the result shape.
  Val broadcast_binary(std::string_view op, const Val& a, const Val& b);
  // `x <op> value` with `value` splat in x's type.
  Val with_scalar(std::string_view op, const Val& x, double value);
  // -> i1; `type` FLOAT/TOTALORDER/SIGNED/UNSIGNED, empty: by the dtype (compare_type()).
  Val compare(std::string_view direction, const Val& a, const Val& b, std::string_view type = "");
  Val select(const Val& pred, const Val& on_true, const Val& on_false);
  Val convert(const Val& x, DType to);  // itself when already `to`

  // ---- shape ----
  Val broadcast_in_dim(const Val& x, const Shape& shape, const std::vector<int64_t>& dims);
  // numpy broadcasting of x to `shape` (trailing dims aligned); itself when equal.
  Val broadcast_to(const Val& x, const Shape& shape);
  Val reshape(const Val& x, const Shape& shape);  // itself when equal
  Val transpose(const Val& x, const std::vector<int64_t>& perm);
  Val reverse(const Val& x, const std::vector<int64_t>& dims);
  Val slice(const Val& x, const std::vector<int64_t>& start, const std::vector<int64_t>& limit,
            const std::vector<int64_t>& strides);
  Val pad(const Val& x, const Val& value, const std::vector<int64_t>& low, const std::vector<int64_t>& high,
          const std::vector<int64_t>& interior);
  Val concatenate(const std::vector<Val>& xs, int64_t dim);
  Val iota(const TensorType& type, int64_t dim);

  // ---- reductions and contractions ----
  // stablehlo.reduce of x over `dims` with `combiner` ("add", "maximum", ...)
  // from init `init_value`.
  Val reduce(const Val& x, const std::vector<int64_t>& dims, std::string_view combiner, double init_value);
  Val reduce(const Val& x, const Val& init, const std::vector<int64_t>& dims, std::string_view combiner);
  // Result dims: batch, a's free, b's free; elements of `result_dtype` (default: a's).
  Val dot_general(const Val& a, const Val& b, const std::vector<int64_t>& batch_a, const std::vector<int64_t>& batch_b,
                  const std::vector<int64_t>& contract_a, const std::vector<int64_t>& contract_b,
                  std::optional<DType> result_dtype = std::nullopt);

  // stablehlo.convolution: `dim_numbers` as printed ("[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]").
  Val convolution(const Val& lhs, const Val& rhs, std::string_view dim_numbers, const ConvWindow& window,
                  int64_t feature_groups, int64_t batch_groups, const TensorType& type);
  // stablehlo.reduce_window of x with `combiner` from `init_value`; `padding`: (low, high) per dim.
  Val reduce_window(const Val& x, double init_value, std::string_view combiner, const std::vector<int64_t>& window,
                    const std::vector<int64_t>& strides, const std::vector<std::pair<int64_t, int64_t>>& padding,
                    const TensorType& type);
  Val reduce_window(const Val& x, const Val& init, std::string_view combiner, const WindowSpec& window,
                    const TensorType& type);

  // ---- generic form with regions ----
  // `"stablehlo.<name>"(%operands) <{props}> (<regions>) : (types) -> type`.
  Val generic(std::string_view name, const std::vector<Val>& operands, const std::string& properties,
              const std::vector<std::string>& regions, const TensorType& type);
  // Several results: `%N:k = "stablehlo.<name>"(...)`, returned as %N#0, %N#1, ...
  std::vector<Val> generic_multi(std::string_view name, const std::vector<Val>& operands, const std::string& properties,
                                 const std::vector<std::string>& regions, const std::vector<TensorType>& types);
  // A region of one block taking scalars of `arg_dtypes`; `body` adds its ops
  // (to this builder) and returns what the block returns.
  using RegionBody = std::function<std::vector<Val>(FunctionBuilder&, const std::vector<Val>&)>;
  std::string region(const std::vector<DType>& arg_dtypes, const RegionBody& body);
  // A region whose block takes two scalars of `dtype` and returns `stablehlo.<combiner>`
  // of them (combiner "": the second, i.e. scatter's assign).
  std::string combiner_region(std::string_view combiner, DType dtype);
  // A region returning `stablehlo.compare <direction>` of its two scalars.
  std::string compare_region(std::string_view direction, DType dtype);

 private:
  std::string next_result();
  std::string next_constant(DType dtype);
  std::string next_region_arg() { return "%arg" + std::to_string(next_arg_++); }

  std::string text_;
  size_t indent_ = 4;  // of the lines being written: 4 in a function body, 2 more per region
  int next_result_ = 0;
  int next_float_constant_ = 0;
  int next_int_constant_ = 0;
  int next_arg_;
};

// The compare type StableHLO expects for a dtype: FLOAT, SIGNED or UNSIGNED (bool: UNSIGNED).
std::string_view compare_type(DType dtype);
// The types of `vals`, comma separated.
std::string types_of(const std::vector<Val>& vals);

}  // namespace meshtest::frontends::stablehlo
