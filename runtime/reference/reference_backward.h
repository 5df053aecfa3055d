// The CPU reference's own backward ("golden" for training): runs the forward
// graph in f32, then hand-written gradient kernels in reverse op order, and
// returns the gradient of every weight the differentiated output depends on.
// It shares nothing with the compiler's autodiff (compiler/autodiff.h): a
// wrong VJP rule there shows up as a gradient mismatch, it cannot cancel out.
//
// Conventions (compiler/autodiff.h documents the same for the device side):
//  - Only weights are differentiated; graph inputs never get a gradient.
//  - A weight gets a gradient when a path of differentiable operands leads
//    from it to the output, even if that gradient happens to be zero.
//    Everything else (unused weights, integer weights, weights reaching the
//    output only through non-differentiable operands) is "without gradient".
//  - Non-differentiable: integer operands (embedding ids), every operand of
//    constant, topk_mask (a selection: nothing flows through it) and greater,
//    casts to an integer dtype.
//  - batch_norm normalises with the mean and var it is given, and scale,
//    bias, mean and var all get their true gradients: running statistics
//    stored as weights (inference form) are in with_gradient; batch
//    statistics computed from x (training form, models/common/batch_norm.h)
//    pass theirs on to x.
//  - layer_norm differentiates through its row statistics; gelu uses the
//    exact derivative of the form given by `approximate`.
//  - Kinks: relu'(0) = 0; maximum(a, b) sends the gradient to a where
//    a >= b, to b where b > a; reduce_max splits it evenly among tied maxima;
//    max_pool2d sends it to the first maximum of each window (row-major).
//  - rms_norm and sdpa (made by the compiler's `fuse` pass, never by loaders)
//    have no reference kernel, forward or backward.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/graph.h"
#include "core/op_table.h"
#include "core/tensor.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest::runtime {

struct ReferenceTraining {
  std::string output;  // the differentiated output's name
  Tensor forward;      // its forward value (f32)
  // Weights that receive a gradient, in graph weight order, and their
  // gradients (f32, the weight's shape), index for index.
  std::vector<std::string> with_gradient;
  std::vector<Tensor> gradients;
  // Weights no gradient reaches, in graph weight order.
  std::vector<std::string> without_gradient;
  // The forward values (f32) of the kept outputs, in the order asked.
  std::vector<Tensor> kept;
};

// Differentiates the output named `output` of `forward` (empty: the first
// output) with upstream gradient `seed_gradient` (the output's shape; any
// float dtype) with respect to every weight. Throws RuntimeError naming the
// op ("op #12 conv2d (backward): ...") when a kernel fails or an op on a
// gradient path has no reference gradient.
// `hook` (optional) sees the forward pass's ops as run_reference's does.
// `kept_outputs`: other outputs of `forward` whose values are returned too
// (ReferenceTraining::kept; a training-mode batch norm's updated running
// statistics).
ReferenceTraining run_reference_training(const Graph& forward, const NamedTensors& inputs, std::string_view output,
                                         const Tensor& seed_gradient, const ReferenceOpHook& hook = {},
                                         const std::vector<std::string>& kept_outputs = {});

// One plain SGD step on the golden's side: for every weight in
// `training.with_gradient`, weight - learning_rate * gradient, in f64 and
// stored f32 (the weights of `forward`, materialized), index for index.
std::vector<Tensor> reference_sgd_step(const Graph& forward, const ReferenceTraining& training, double learning_rate);

// Which operands of `op` a gradient flows through (the conventions above);
// operand types come from `graph`.
std::vector<bool> reference_differentiable_operands(const Graph& graph, const Op& op);

// What a reference gradient kernel sees: the forward op, its operands and
// result (f32, as the forward kernels hold them), the gradient of the result
// and which operands want a gradient.
struct GradientArgs {
  const Op& op;
  const std::vector<Tensor>& in;
  const Tensor& y;
  const Tensor& dy;
  const std::vector<bool>& want;
};
// One gradient per operand (f32, the operand's shape), empty where not wanted.
using GradientKernel = std::vector<Tensor> (*)(const GradientArgs& args);
// An op's reference gradient: its kernel, or nullptr for an op no gradient
// flows through (operand-free or piecewise constant: constant, topk_mask,
// greater).
struct ReferenceGradient {
  GradientKernel kernel = nullptr;
};
// The reference gradient of every op, or why it has none
// (reference_gradient_table.cpp).
const OpTable<ReferenceGradient>& reference_gradients();

}  // namespace meshtest::runtime
