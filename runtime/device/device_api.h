// The public device-kernel API, installed with the SDK package
// (find_package(meshtest) -> meshtest::meshtest_device). Programs written by
// `meshtest codegen` call it once per device instruction. Every call runs the
// simulated chip's own code (runtime/device/chip_dispatch.h): the same kernel
// table, math-fidelity phases, bf16 rounding, bfp8_b decoding and mutants
// (MESHTEST_MUTANT), so a generated program reproduces the in-process device
// bit for bit, and a wrong generated line shows up as a different result.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <vector>

#include "core/attrs.h"
#include "core/tensor.h"

namespace meshtest::device {

// Attribute values as generated code writes them: {"axis", i64(1)}, {"stride", Ints{2, 2}}.
using Ints = std::vector<int64_t>;
constexpr int64_t i64(int64_t v) { return v; }

// A host tensor (f32, ints) as the chip stores it in a buffer of `dtype`
// (f32 -> bf16 rounds to nearest even), as the chip uploads an input.
Tensor upload(const Tensor& host, DType dtype);
// A device tensor as the host reads it back: floats as f32, integers unchanged.
Tensor download(const Tensor& device);
// One device instruction: the op named `op` (its IR name, e.g. "conv2d") on
// `operands` as the chip holds them (bfp8_b weights are decoded as the chip
// decodes them) with `attrs`, into a new result of `dtype` and `shape`.
// Throws meshtest::RuntimeError naming the op.
Tensor op(std::string_view op, std::initializer_list<Tensor> operands, const Attrs& attrs, DType dtype, Shape shape);

}  // namespace meshtest::device
