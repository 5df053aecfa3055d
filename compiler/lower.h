// Lowering of a verified graph to a device program (private to compiler/):
// buffers with device dtypes and tile-padded sizes, one instruction per op,
// and the weight data converted to each weight buffer's device dtype.
#pragma once

#include "compiler/compile.h"
#include "core/device_program.h"
#include "core/graph.h"

namespace meshtest::compiler {

// Device dtype of an activation or input: floats live as bf16, integers as-is.
DType device_activation_dtype(DType graph_dtype);

// Builds buffers, instructions and outputs (no weight data, no release lists).
// Params that no op and no output uses get no buffer. device_bytes is the
// tile-padded footprint of the tensor, except for conv2d weights, which are
// counted as the [O, C/g*KH*KW] matrix the device stores.
DeviceProgram lower_graph(const Graph& graph, const CompileOptions& options);

// Materializes every weight buffer's data (lazy weights from their
// initializer) and converts it to the buffer's device dtype.
void lower_weights(const Graph& graph, DeviceProgram& program);

}  // namespace meshtest::compiler
