// StableHLO element types and dense literals as meshtest dtypes and tensors:
// `dense<...>` in every form MLIR prints (hex blobs of raw little-endian
// storage, i1 one byte per element; nested lists; splats; floats as decimal,
// as `0x...` bit patterns, inf / nan).
#pragma once

#include <string>

#include "core/tensor.h"
#include "frontends/stablehlo/mlir_ast.h"

namespace meshtest::frontends::stablehlo {

// The dtype of a StableHLO element type ("f32", "i1", "ui8", ...); throws
// Error with the reason (complex, quantized, f8 ...) when meshtest has none.
DType element_dtype(const std::string& element);

// A Dense attribute as a tensor of `dtype` and `shape` (a splat fills it);
// throws Error with the reason when it cannot be decoded.
Tensor decode_dense(const Attribute& attr, DType dtype, const Shape& shape);

// One literal scalar ("1", "-2.5e+00", "0x7FC00000", "inf", "true") stored
// as element `index` of `t` (of t's dtype); throws Error when malformed.
void store_scalar(Tensor& t, int64_t index, const std::string& text);

}  // namespace meshtest::frontends::stablehlo
