// Lowering of a verified graph to a device program (private to compiler/):
// one buffer per used value (in its graph dtype until lower-dtypes runs), one
// instruction per op; and, at load time, the weight data converted to each
// weight buffer's device dtype.
#pragma once

#include "core/device_program.h"
#include "core/graph.h"

namespace meshtest::compiler {

// Builds buffers, instructions and outputs (no release lists, no sizes).
// Params that no op and no output uses get no buffer. Weights whose data the
// graph holds without an initializer (const-eval folds, data given in memory)
// are shared into program.weights; lazy weights and a file's data
// (Param::data_source) stay with the graph until lower_weights.
DeviceProgram lower_graph(const Graph& graph);

// Gives every weight buffer its data in the buffer's device dtype: data the
// program carries is converted, other weights are materialized from the
// graph's initializers (in parallel).
void lower_weights(const Graph& graph, DeviceProgram& program);

// One weight buffer's data as lower_weights gives it (the program's data, or
// the graph's weight materialized), in the buffer's device dtype.
Tensor lower_weight(const Graph& graph, const DeviceProgram& program, const DeviceBuffer& buffer);

}  // namespace meshtest::compiler
