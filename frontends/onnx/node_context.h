// What an ONNX op converter sees of its node: operands as graph values or as
// data known at import time (initializers and folded constants), attributes
// (each read is recorded, so an attribute no converter reads is reported as
// unsupported), the opset, and where its results go. The converters
// (onnx_ops_*.cpp) build IR ops through the GraphBuilder only.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/graph_builder.h"

namespace onnx {
class NodeProto;
class AttributeProto;
}

namespace meshtest::frontends::onnx_import {

// A node the importer cannot turn into IR: the importer adds op type, node
// name and opset to the message.
class Unsupported : public Error {
 public:
  using Error::Error;
};

// An ONNX value during import: a graph value, data known at import time, or both.
struct Slot {
  ValueId id = kNoValue;
  std::optional<Tensor> data;
  bool initializer = false;  // a model weight: becomes a weight of that name, never inspected
};

// The ONNX values by name, for one GraphBuilder.
class Env {
 public:
  explicit Env(GraphBuilder& builder) : b(builder) {}
  GraphBuilder& b;
  std::map<std::string, Slot> slots;
  std::map<std::string, std::string> sources;  // initializer -> its Param::data_source (file-backed data)
  int counter = 0;  // numbers the weights made for converters' constants
  // The graph value of `name`; known data becomes a constant (uniform) or a
  // weight named `name` the first time.
  ValueId value(const std::string& name);
  const Slot& slot(const std::string& name) const;
  std::string source_of(const std::string& name) const;  // "" when the data is not a file's
};

class NodeContext {
 public:
  NodeContext(const onnx::NodeProto& node, int opset, Env& env);

  GraphBuilder& b() { return env_.b; }
  int opset() const { return opset_; }
  const onnx::NodeProto& node() const { return node_; }

  // Inputs: `has` is false for absent optional inputs (missing or empty name).
  bool has(size_t i) const;
  size_t num_inputs() const;
  ValueId in(size_t i);
  const Tensor* data(size_t i) const;  // null when not known at import time
  // A constant input read as integers / floats; Unsupported when not constant.
  std::vector<int64_t> ints(size_t i, const std::string& what) const;
  std::vector<double> floats(size_t i, const std::string& what) const;
  TensorType type(size_t i) const;
  const Shape& shape(size_t i) const;
  int64_t rank(size_t i) const { return static_cast<int64_t>(shape(i).size()); }

  // Attributes; every read marks the attribute handled.
  bool has_attr(const std::string& name) const;
  int64_t attr_int(const std::string& name, int64_t fallback);
  double attr_float(const std::string& name, double fallback);
  std::string attr_string(const std::string& name, const std::string& fallback);
  std::vector<int64_t> attr_ints(const std::string& name, std::vector<int64_t> fallback);
  std::vector<double> attr_floats(const std::string& name, std::vector<double> fallback);
  std::optional<Tensor> attr_tensor(const std::string& name);
  // Names of the node's attributes no read has touched.
  std::vector<std::string> unread_attributes() const;

  // Outputs.
  size_t num_outputs() const;
  bool output_used(size_t i) const;  // present with a name
  void set(size_t i, ValueId value);
  void set_data(size_t i, Tensor data);  // a result known at import time
  const std::vector<std::optional<Slot>>& results() const { return results_; }

  // A tensor known at import time as a graph value (constant op when uniform).
  ValueId constant(const Tensor& t);
  [[noreturn]] void unsupported(const std::string& what) const { throw Unsupported(what); }

 private:
  const onnx::AttributeProto* attr(const std::string& name, int type);
  const std::string& input_name(size_t i) const;  // Unsupported when absent
  const onnx::NodeProto& node_;
  int opset_;
  Env& env_;
  std::set<std::string> read_;
  std::vector<std::optional<Slot>> results_;
};

using Converter = std::function<void(NodeContext&)>;
using ConverterTable = std::map<std::string, Converter>;

// The converters of every supported op type, by ONNX op type (one table made
// from the per-family lists below).
const ConverterTable& converters();
void add_elementwise_converters(ConverterTable& table);
void add_nn_converters(ConverterTable& table);
void add_shape_converters(ConverterTable& table);

// IR building blocks the converters share.
Tensor i64_tensor(const std::vector<int64_t>& values, Shape shape);
Tensor f32_tensor(const std::vector<float>& values, Shape shape);
// min(a, c), numpy broadcasting (the IR has maximum only).
ValueId minimum(GraphBuilder& b, ValueId a, ValueId c);
// `x` extended along `axis` by `before`/`after` elements of `value` (a
// negative count crops instead).
ValueId pad_axis(GraphBuilder& b, ValueId x, int64_t axis, int64_t before, int64_t after, double value);
// Moves `axis` last, applies `f`, moves it back.
ValueId along_last_axis(GraphBuilder& b, ValueId x, int64_t axis, const std::function<ValueId(ValueId)>& f);

}  // namespace meshtest::frontends::onnx_import
