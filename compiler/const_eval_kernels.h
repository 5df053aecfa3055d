// Host (f32) evaluation of the ops const-eval may fold: elementwise math with
// broadcasting, cast, reshape and transpose. Private to compiler/; the CPU
// reference executor is not used because compiler/ depends on core only.
#pragma once

#include <vector>

#include "core/attrs.h"
#include "core/op_table.h"
#include "core/ops.h"
#include "core/tensor.h"

namespace meshtest::compiler {

// A host kernel: f32 operands in, an f32 result of shape `out_shape`.
using HostKernel = Tensor (*)(const Attrs& attrs, const std::vector<const Tensor*>& in, const Shape& out_shape);
// The host kernel of every op const-eval may fold (const_eval_kernels.cpp).
// Folding is optional: an op without an entry is simply left to the device.
const OpTable<HostKernel>& host_kernels();

bool host_foldable(OpKind kind);
// The f32 tensor of a `constant` op.
Tensor host_constant(const Attrs& attrs, const Shape& shape);
// Evaluates `kind` on f32 operands; the result is f32 with shape `out_shape`.
Tensor host_eval(OpKind kind, const Attrs& attrs, const std::vector<const Tensor*>& in, const Shape& out_shape);

}  // namespace meshtest::compiler
