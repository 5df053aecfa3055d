// Spellings the StableHLO writer shares: element and tensor types
// (`tensor<1x3xf32>`), scalar literals written bit-exactly in MLIR's float
// syntax, dense elements attributes (splat or hex), integer lists and
// GSPMD `mhlo.sharding` strings — as `jax.jit(f).lower(...).as_text()`
// prints them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ops.h"
#include "core/sharding.h"
#include "core/tensor.h"

namespace meshtest::frontends::stablehlo {

// The StableHLO element type written for a meshtest dtype: f32, bf16, f16,
// f64, i1 (bool), i8..i64, ui8..ui64. bfp8_b has none: it is a storage
// format of weights, written as f32 (the values it holds).
std::string element_type(DType dtype);
// The dtype the writer gives values of `dtype` (bfp8_b -> f32, else itself).
DType written_dtype(DType dtype);

// tensor<2x3xf32>, tensor<f32> for rank 0.
std::string tensor_type(DType dtype, const Shape& shape);
std::string tensor_type(const TensorType& type);
std::string scalar_type(DType dtype);  // tensor<f32>

// One element of `dtype` as an MLIR literal that reads back to the same bits:
// floats as `1.000000e+00` when six digits round-trip, else the shortest
// decimal that does (`0.797884583`), non-finite values by their bits
// (`0x7F800000`); integers in decimal; bool as true/false.
std::string scalar_literal(double value, DType dtype);

// The identities of maximum / minimum for a dtype: -inf / +inf for floats,
// the integer type's least / greatest value (scalar_literal writes them exactly).
double lowest_value(DType dtype);
double highest_value(DType dtype);

// dense<...> of a tensor: a splat when every element is equal, else the
// raw little-endian storage as hex (`dense<"0x0000803F...">`). bf16 data
// is written as bf16 bits; bfp8_b data is decoded to f32 first.
std::string dense_literal(const Tensor& tensor, DType written);

// [1, 2, 3] and array<i64: 1, 2, 3> (array<i64> when empty).
std::string int_list(const std::vector<int64_t>& values);
std::string i64_array(const std::vector<int64_t>& values);
// dense<[[0, 1], [2, 3]]> : tensor<2x2xi64> from equal-length rows.
std::string i64_matrix(const std::vector<std::vector<int64_t>>& rows);

// A string attribute's quoted form with MLIR escapes ("a\22b").
std::string quoted(const std::string& text);

// The GSPMD HloSharding text of a tensor of `rank` split by `sharding`
// over `mesh`: "{replicated}", or "{devices=[t0,...]<=[N]}" with a
// transposed iota ("<=[2,4]T(1,0)") when the split axes are not in mesh
// order, and " last_tile_dim_replicate" when some mesh axes split nothing.
std::string hlo_sharding(const Mesh& mesh, const Sharding& sharding, size_t rank);

}  // namespace meshtest::frontends::stablehlo
