// Shared by the autodiff tests: graphs with data-carrying weights, composite
// expansion (the CPU reference has no rms_norm / sdpa kernels), running a
// training graph on the reference, and f64 dot products / PCC.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "compiler/autodiff.h"
#include "core/graph.h"
#include "runtime/reference/reference_executor.h"

namespace meshtest::testing {

// Rewrites rms_norm and sdpa ops into the primitive ops they stand for.
Graph expand_composites(const Graph& graph);

// The training graph's outputs by name ("logits", "grad/w", ...), run on the
// CPU reference with `inputs` plus the seed gradient.
std::map<std::string, Tensor> run_training_reference(const compiler::TrainingGraph& training,
                                                     runtime::NamedTensors inputs, const Tensor& seed);

// Same program through the device compiler (optimization `level`) and one SimulatedChip.
std::map<std::string, Tensor> run_training_device(const compiler::TrainingGraph& training, runtime::NamedTensors inputs,
                                                  const Tensor& seed, int level);

// sum(a * b) in f64 over f32 values.
double dot(const Tensor& a, const Tensor& b);
double norm(const Tensor& a);
double pcc(const Tensor& a, const Tensor& b);

// A copy of `graph` whose weight `name` (data-carrying) is replaced by `data`.
Graph with_weight(const Graph& graph, const std::string& name, const Tensor& data);

}  // namespace meshtest::testing
