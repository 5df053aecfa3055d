// Helpers for the simulated-chip tests: compile + execute a graph, build
// single-op graphs, and compare device results with bf16 tolerance.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "compiler/compile.h"
#include "core/graph_builder.h"
#include "runtime/device/simulated_chip.h"

namespace meshtest::testing_util {

using NamedTensors = std::map<std::string, Tensor>;

// Compiles `graph` and executes it on one simulated chip.
inline std::vector<Tensor> run_device(const Graph& graph, const NamedTensors& inputs,
                                      const compiler::CompileOptions& options = {}, const runtime::ChipSpec& spec = {},
                                      runtime::ExecutionStats* stats = nullptr) {
  const DeviceProgram program = compiler::compile(graph, options);
  runtime::SimulatedChip chip(spec);
  std::vector<Tensor> out = chip.execute(program, inputs);
  if (stats) *stats = chip.last_stats();
  EXPECT_EQ(chip.last_stats().dram_bytes_at_end, 0);
  return out;
}

// A graph of one op over inputs in0, in1, ... (types taken from the host
// tensors), with those tensors as its feed.
struct OneOpGraph {
  Graph graph;
  NamedTensors feed;
};
inline OneOpGraph one_op_graph(OpKind kind, const std::vector<Tensor>& inputs, const Attrs& attrs = {}) {
  GraphBuilder g(std::string(op_name(kind)));
  std::vector<ValueId> ids;
  NamedTensors feed;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = "in" + std::to_string(i);
    ids.push_back(g.input(name, inputs[i].dtype(), inputs[i].shape()));
    feed[name] = inputs[i];
  }
  g.output("out", g.op(kind, ids, attrs));
  return {g.finish(), std::move(feed)};
}

// One op over graph inputs in0, in1, ..., run on the device.
inline Tensor run_op(OpKind kind, const std::vector<Tensor>& inputs, const Attrs& attrs = {}) {
  const OneOpGraph one = one_op_graph(kind, inputs, attrs);
  return run_device(one.graph, one.feed).at(0);
}

inline Tensor f32(Shape shape, std::vector<float> values) { return Tensor::from_f32(std::move(shape), values); }

// |got - want| <= rel * |want| + abs for every element, and the same shape.
inline void expect_close(const Tensor& got, const Shape& shape, const std::vector<double>& want, double rel = 1e-2,
                         double abs = 1e-3) {
  ASSERT_EQ(got.shape(), shape);
  ASSERT_EQ(static_cast<size_t>(got.numel()), want.size());
  for (size_t i = 0; i < want.size(); ++i) {
    const double g = got.element_as_double(static_cast<int64_t>(i));
    EXPECT_LE(std::fabs(g - want[i]), rel * std::fabs(want[i]) + abs)
        << "element " << i << ": got " << g << ", want " << want[i];
  }
}

// Row-major values of `t` as doubles.
inline std::vector<double> values(const Tensor& t) {
  std::vector<double> v(static_cast<size_t>(t.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = t.element_as_double(static_cast<int64_t>(i));
  return v;
}

}  // namespace meshtest::testing_util
