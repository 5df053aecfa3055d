// The CPU reference ("golden"): executes a graph in f32 (f64 values in f64;
// f16 results rounded to f16 after every op) with library-backed
// GEMM/convolution (Eigen), parallel with oneTBB. Independent of the device
// path: it shares no kernel code with runtime/device.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/op_table.h"
#include "core/tensor.h"

namespace meshtest::runtime {

using NamedTensors = std::map<std::string, Tensor>;

// Runs `graph` with `inputs` (one per graph input, by name; float inputs of
// any float dtype are widened to f32). Weights are materialized as needed and
// widened to f32. Returns the outputs in graph order (f32, or the integer
// dtype of an integer output). Throws RuntimeError naming the op on failure.
std::vector<Tensor> run_reference(const Graph& graph, const NamedTensors& inputs);

// Sees every op's result right after its kernel ran, with the operands it
// read (as the reference holds them), and may replace the result with a
// tensor of the same shape and held dtype (checked): how the golden follows
// the device's discrete choices (runner/pipeline/device_routing.h). A throw
// fails the run like a kernel's, naming the op.
using ReferenceOpHook =
    std::function<void(size_t op_index, const Op& op, const std::vector<Tensor>& operands, Tensor& result)>;
std::vector<Tensor> run_reference(const Graph& graph, const NamedTensors& inputs, const ReferenceOpHook& hook);

// How the reference holds values beyond its defaults.
struct ReferenceOptions {
  // Round every op result declared bf16 to bf16 values, as f16 results always
  // are: what a program whose expectations were computed in bf16 (StableHLO
  // test data, XLA) needs. Off by default: the golden of the device's bf16
  // keeps f32 precision.
  bool round_bf16_results = false;
};
std::vector<Tensor> run_reference(const Graph& graph, const NamedTensors& inputs, const ReferenceOptions& options);

// One op alone: its reference kernel on `operands` (floating operands of any
// float dtype widened to f32, integers as they are, but for the operands of
// reads_operand_as_held), as run_reference runs each op, its floating result
// in f32; used by op-level golden on the device's own operands. Throws
// RuntimeError when the reference has no kernel for the op.
Tensor run_reference_op(const Op& op, const std::vector<Tensor>& operands);
// Operands run_reference_op hands its kernel as they are, not widened to
// f32: a linear's or conv2d's bf16 weight (operand 1: the GEMM widens it a
// cache-sized block of rows at a time) and an embedding's table (it copies a
// few rows, exact in any dtype but the block format bfp8_b). Large and read
// once, they are not copied.
bool reads_operand_as_held(OpKind kind, size_t slot, DType dtype);

// A reference forward kernel: the op (kind, attributes) applied to its
// operands as the reference holds them (floats widened to f32).
using ReferenceKernel = Tensor (*)(const Op& op, const std::vector<Tensor>& in);
// The reference's kernel of every op, or why it has none
// (reference_kernel_table.cpp).
const OpTable<ReferenceKernel>& reference_kernels();

}  // namespace meshtest::runtime
