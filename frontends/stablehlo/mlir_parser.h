// The StableHLO reader: MLIR text (generic or pretty form, as JAX, torch-xla
// and stablehlo-opt print it) into the syntax tree of mlir_ast.h.
//
// Every error is a meshtest::ParseError "file:line:col: message"; malformed or
// hostile input never crashes or hangs the reader (nesting is capped at 200
// levels). Locations (`loc(...)`, `#loc` aliases) are read and dropped; an
// op's Location is where its text starts (its first result name, else its name).
//
// What the importer sees, whatever the spelling (pretty forms become exactly
// what MLIR's generic printer would write):
//
// Conventions
//  - Op attributes: properties `<{...}>` and the attribute dictionary merged,
//    sorted by name; every dictionary attribute is sorted by name too.
//  - Integer attributes written without a type are i64 (`dim = 0` ->
//    Integer 0 : i64); the I32Attr ones the pretty forms hold are typed i32
//    (get_tuple_element index, reduce_precision exponent/mantissa_bits).
//  - DenseI64ArrayAttr operands of pretty forms (`dims = [1, 0]`) are
//    DenseArray i64, as the generic form's `array<i64: 1, 0>`.
//  - Dimension-number structs (#stablehlo.dot, .gather, .scatter, .conv) are
//    Struct with EVERY field present in MLIR's order: list fields are Array of
//    Integer (i64; `[]` when the text omitted them), scalar fields Integer
//    (0 when omitted):
//      stablehlo.dot:     lhs_batching_dimensions, rhs_batching_dimensions,
//                         lhs_contracting_dimensions, rhs_contracting_dimensions
//      stablehlo.gather:  offset_dims, collapsed_slice_dims, operand_batching_dims,
//                         start_indices_batching_dims, start_index_map, index_vector_dim
//      stablehlo.scatter: update_window_dims, inserted_window_dims, input_batching_dims,
//                         scatter_indices_batching_dims, scatter_dims_to_operand_dims,
//                         index_vector_dim
//      stablehlo.conv:    input_batch_dimension, input_feature_dimension,
//                         input_spatial_dimensions, kernel_input_feature_dimension,
//                         kernel_output_feature_dimension, kernel_spatial_dimensions,
//                         output_batch_dimension, output_feature_dimension,
//                         output_spatial_dimensions
//    Other `#dialect.name<key = value, ...>` attributes are Struct with their
//    fields as written; `#dialect.name<WORD>` and `#dialect<kind WORD>` are Enum.
//  - Enum words of pretty forms (`compare LT, ..., FLOAT`, `precision =
//    [DEFAULT]`, `type = FFT`) get the dialect and kind their generic
//    spelling carries (never an empty enum_kind).
//    What fits neither (e.g. `#sdy.sharding<@mesh, [{"x"}, {}]>`) is Opaque:
//    text = the whole attribute, dialect = "sdy.sharding".
//  - dense<...>: a non-hex literal whose elements are all equal is a splat
//    (one scalar), as MLIR stores it; hex literals keep their bytes (splat false).
//  - Block argument names are as written; the regions the reader synthesises
//    (reduce `applies`) name theirs "%applies:lhs", "%applies:rhs" and the
//    inner result "%applies:result" (':' cannot occur in written names).
//  - Pretty `return`/`call` become "func.return"/"func.call".
//
// Per op family (generic attribute names, from the pretty keywords):
//  - elementwise, convert, reshape, select, clamp, bitcast_convert, dynamic_*
//    without keywords, uniform_(de)quantize, after_all, tuple, complex,
//    optimization_barrier, return: no attributes; types spelled by one type
//    (`: tensor<4xf32>` = every operand and the result), a function type, a
//    select's `pred_type, type`, a tuple type, or a complex result type.
//  - constant: value (Dense).
//  - compare: comparison_direction = Enum(stablehlo, comparison_direction, LT),
//    compare_type = Enum(stablehlo, comparison_type, FLOAT) when written.
//  - iota, dynamic_iota: iota_dimension. concatenate, get_dimension_size,
//    set_dimension_size: dimension (Integer i64).
//  - broadcast_in_dim, dynamic_broadcast_in_dim: broadcast_dimensions;
//    broadcast: broadcast_sizes; transpose: permutation; reverse: dimensions;
//    dynamic_slice: slice_sizes; pad: edge_padding_low, edge_padding_high,
//    interior_padding; slice `[a:b:s, ...]`: start_indices, limit_indices,
//    strides (all DenseArray i64).
//  - dot_general: dot_dimension_numbers (Struct stablehlo.dot),
//    precision_config (Array of Enum(stablehlo, precision, X)), algorithm
//    (Struct stablehlo.dot_algorithm). dot: precision_config.
//  - convolution: dimension_numbers (Struct stablehlo.conv), window_strides,
//    lhs_dilation, rhs_dilation (DenseArray i64), padding (Dense i64 Nx2),
//    window_reversal (DenseArray i1), only those the window names; the
//    trailing dictionary adds feature_group_count, batch_group_count,
//    precision_config.
//  - reduce: dimensions (DenseArray i64) and one region; `applies X` gives
//    a block (%applies:lhs, %applies:rhs : tensor<E>) computing X and
//    returning it with "<X's dialect>.return"; the `reducer` form's block
//    arguments are every pair's first, then every pair's second.
//  - while: regions cond, body, each with the iteration arguments as entry
//    block arguments; custom_call: call_target_name (String); func.call:
//    callee (SymbolRef); composite: name (String) plus its dictionary
//    (composite_attributes, decomposition, version); get_tuple_element:
//    index (i32); fft: fft_type = Enum(stablehlo, fft_type, FFT),
//    fft_length; rng: rng_distribution; rng_bit_generator: rng_algorithm;
//    reduce_precision: exponent_bits, mantissa_bits; cholesky: lower (Bool);
//    einsum: einsum_config; chlo.top_k: k (Integer i64).
//  - check dialect (interpreter tests): expect_eq_const / expect_almost_eq_const
//    `%x, dense<...> : T` -> value (Dense; the operand's type is its type),
//    tolerance (Float f64); expect_close: max_ulp_difference,
//    min_ulp_difference (Integer ui64). arith.constant: value (also `2 : i32`).
//  - sdy: sdy.mesh @m = <...> -> sym_name (String), mesh (Opaque
//    "#sdy.mesh<...>"); sharding_constraint / reshard -> sharding (Opaque
//    "#sdy.sharding<...>"); manual_computation -> in_shardings, out_shardings
//    (Opaque "#sdy.sharding_per_value<[...]>"), manual_axes (Opaque).
//  - ops without a pretty form here (gather, scatter, sort, reduce_window,
//    select_and_scatter, if, case, all_reduce, ...) are read in generic form.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "frontends/stablehlo/mlir_ast.h"

namespace meshtest::frontends::stablehlo {

// One module: `module @name attributes {...} { ... }`, or top-level
// func.func ops without a module (an implicit module). A second top-level
// module is an error.
Module parse_mlir(std::string_view text, const std::string& file_name);
Module parse_mlir_file(const std::string& path);

// A file split at `// -----` lines (mlir-opt -split-input-file), one module
// per part; line numbers in messages stay those of the whole file.
std::vector<Module> parse_mlir_split(std::string_view text, const std::string& file_name);
std::vector<Module> parse_mlir_file_split(const std::string& path);

}  // namespace meshtest::frontends::stablehlo
