// Graph IR: SSA values with static types, ops in topological order (one result
// each), named parameters (inputs fed per run, weights owned by the graph —
// materialized or lazy) and named outputs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/attrs.h"
#include "core/ops.h"
#include "core/tensor.h"

namespace meshtest {

using ValueId = int32_t;
constexpr ValueId kNoValue = -1;

struct Value {
  TensorType type;
  std::string name;  // parameter name; empty for op results
};

// How a lazy weight is produced when it is first needed (deterministic).
struct Initializer {
  enum class Dist { Normal, Uniform, Constant };
  Dist dist = Dist::Normal;
  double a = 0.0;  // normal: mean, uniform: low, constant: value
  double b = 1.0;  // normal: stddev, uniform: high
  uint64_t seed = 0;

  static Initializer normal(double mean, double stddev, uint64_t seed) { return {Dist::Normal, mean, stddev, seed}; }
  static Initializer uniform(double low, double high, uint64_t seed) { return {Dist::Uniform, low, high, seed}; }
  static Initializer constant(double value) { return {Dist::Constant, value, 0.0, 0}; }
  bool operator==(const Initializer& o) const { return dist == o.dist && a == o.a && b == o.b && seed == o.seed; }
};

enum class ParamKind { Input, Weight };

struct Param {
  std::string name;
  ParamKind kind = ParamKind::Input;
  ValueId value = kNoValue;
  std::optional<Initializer> init;  // weights: lazy initializer
  Tensor data;                      // weights: materialized data (may be empty while lazy)
  // Weights whose data is a file's: a stable name of that data (file, size,
  // modification time, tensor), so the compile cache keys on it instead of
  // reading every byte (compiler/compile_cache.cpp). Empty: hashed by content.
  std::string data_source;
};

struct Op {
  OpKind kind;
  std::vector<ValueId> inputs;
  ValueId output = kNoValue;
  Attrs attrs;
};

struct GraphOutput {
  std::string name;
  ValueId value = kNoValue;
};

class Graph {
 public:
  std::string name;
  std::vector<Value> values;
  std::vector<Param> params;
  std::vector<Op> ops;
  std::vector<GraphOutput> outputs;

  ValueId add_value(TensorType type, std::string value_name = "");
  const TensorType& type(ValueId id) const { return values.at(static_cast<size_t>(id)).type; }

  const Param* find_param(std::string_view param_name) const;
  Param* find_param(std::string_view param_name);
  std::vector<const Param*> inputs() const;
  std::vector<const Param*> weights() const;
  int64_t weight_count() const;  // total weight elements

  // Fills `data` of every lazy weight from its initializer (f32, then cast to
  // the weight's declared dtype). Idempotent.
  void materialize_weights();
};

// A weight's data: its materialized tensor, or one made from the initializer.
Tensor materialize(const Param& param, const TensorType& type);

// Re-infers every op's type and checks the graph is well formed (operands
// defined before use, declared types match, params and outputs valid).
// Throws CompileError naming the op ("op #12 conv2d: ...").
void verify_graph(const Graph& graph);

// "op #12 conv2d" — used in error messages everywhere.
std::string describe_op(const Graph& graph, size_t op_index);

}  // namespace meshtest
