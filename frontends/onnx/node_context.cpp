// NodeContext: operand, attribute and result access for the op converters,
// and the IR building blocks they share.
#include "frontends/onnx/node_context.h"

#include <onnx/onnx_pb.h>

#include "frontends/onnx/onnx_tensor.h"

namespace meshtest::frontends::onnx_import {

namespace {

// A known tensor whose elements are all equal becomes a constant op (no data).
bool is_uniform(const Tensor& t) {
  if (t.numel() == 0 || t.dtype() == DType::BF16 || t.dtype() == DType::BFP8_B) return false;
  const double first = t.element_as_double(0);
  for (int64_t i = 1; i < t.numel(); ++i) {
    if (t.element_as_double(i) != first) return false;
  }
  return true;
}

ValueId constant_value(GraphBuilder& b, const Tensor& t, const std::string& name) {
  if (is_uniform(t)) return b.constant(t.element_as_double(0), t.shape(), t.dtype());
  return b.weight(name, t);
}

}  // namespace

ValueId Env::value(const std::string& name) {
  auto it = slots.find(name);
  if (it == slots.end()) throw Unsupported("value '" + name + "' is not defined before use");
  Slot& s = it->second;
  if (s.id == kNoValue) s.id = s.initializer ? b.weight(name, *s.data, source_of(name)) : constant_value(b, *s.data, name);
  return s.id;
}

std::string Env::source_of(const std::string& name) const {
  const auto it = sources.find(name);
  return it == sources.end() ? "" : it->second;
}

const Slot& Env::slot(const std::string& name) const {
  auto it = slots.find(name);
  if (it == slots.end()) throw Unsupported("value '" + name + "' is not defined before use");
  return it->second;
}

NodeContext::NodeContext(const onnx::NodeProto& node, int opset, Env& env)
    : node_(node), opset_(opset), env_(env), results_(static_cast<size_t>(node.output_size())) {}

size_t NodeContext::num_inputs() const { return static_cast<size_t>(node_.input_size()); }
bool NodeContext::has(size_t i) const { return i < num_inputs() && !node_.input(static_cast<int>(i)).empty(); }

ValueId NodeContext::in(size_t i) { return env_.value(input_name(i)); }

const Tensor* NodeContext::data(size_t i) const {
  if (!has(i)) return nullptr;
  const Slot& s = env_.slot(node_.input(static_cast<int>(i)));
  return s.data ? &*s.data : nullptr;
}

std::vector<int64_t> NodeContext::ints(size_t i, const std::string& what) const {
  const Tensor* t = data(i);
  if (t == nullptr) unsupported(what + " must be known at import time (a constant or foldable input)");
  std::vector<int64_t> out;
  for (int64_t k = 0; k < t->numel(); ++k) out.push_back(static_cast<int64_t>(t->element_as_double(k)));
  if (t->dtype() == DType::I64) out.assign(t->data<int64_t>(), t->data<int64_t>() + t->numel());
  return out;
}

std::vector<double> NodeContext::floats(size_t i, const std::string& what) const {
  const Tensor* t = data(i);
  if (t == nullptr) unsupported(what + " must be known at import time (a constant or foldable input)");
  std::vector<double> out;
  for (int64_t k = 0; k < t->numel(); ++k) out.push_back(t->element_as_double(k));
  return out;
}

const std::string& NodeContext::input_name(size_t i) const {
  if (!has(i)) unsupported("input " + std::to_string(i) + " is required");
  return node_.input(static_cast<int>(i));
}

TensorType NodeContext::type(size_t i) const {
  const Slot& s = env_.slot(input_name(i));
  if (s.id != kNoValue) return env_.b.type(s.id);
  return {s.data->dtype(), s.data->shape()};
}

const Shape& NodeContext::shape(size_t i) const {
  const Slot& s = env_.slot(input_name(i));
  return s.id != kNoValue ? env_.b.shape(s.id) : s.data->shape();
}

const onnx::AttributeProto* NodeContext::attr(const std::string& name, int type) {
  for (const onnx::AttributeProto& a : node_.attribute()) {
    if (a.name() != name) continue;
    read_.insert(name);
    if (a.type() != type) {
      unsupported("attribute '" + name + "' has type " + onnx::AttributeProto::AttributeType_Name(a.type()) +
                  ", expected " + onnx::AttributeProto::AttributeType_Name(
                                      static_cast<onnx::AttributeProto::AttributeType>(type)));
    }
    return &a;
  }
  read_.insert(name);
  return nullptr;
}

bool NodeContext::has_attr(const std::string& name) const {
  for (const onnx::AttributeProto& a : node_.attribute()) {
    if (a.name() == name) return true;
  }
  return false;
}

int64_t NodeContext::attr_int(const std::string& name, int64_t fallback) {
  const auto* a = attr(name, onnx::AttributeProto::INT);
  return a ? a->i() : fallback;
}

double NodeContext::attr_float(const std::string& name, double fallback) {
  const auto* a = attr(name, onnx::AttributeProto::FLOAT);
  return a ? a->f() : fallback;
}

std::string NodeContext::attr_string(const std::string& name, const std::string& fallback) {
  const auto* a = attr(name, onnx::AttributeProto::STRING);
  return a ? a->s() : fallback;
}

std::vector<int64_t> NodeContext::attr_ints(const std::string& name, std::vector<int64_t> fallback) {
  const auto* a = attr(name, onnx::AttributeProto::INTS);
  return a ? std::vector<int64_t>(a->ints().begin(), a->ints().end()) : fallback;
}

std::vector<double> NodeContext::attr_floats(const std::string& name, std::vector<double> fallback) {
  const auto* a = attr(name, onnx::AttributeProto::FLOATS);
  return a ? std::vector<double>(a->floats().begin(), a->floats().end()) : fallback;
}

std::optional<Tensor> NodeContext::attr_tensor(const std::string& name) {
  const auto* a = attr(name, onnx::AttributeProto::TENSOR);
  if (a == nullptr) return std::nullopt;
  // Attribute tensors are small and the node dies with the import: copy.
  auto copy = std::make_shared<onnx::TensorProto>(a->t());
  return tensor_from_proto(*copy, copy, "").clone();
}

std::vector<std::string> NodeContext::unread_attributes() const {
  std::vector<std::string> out;
  for (const onnx::AttributeProto& a : node_.attribute()) {
    if (read_.count(a.name()) == 0) out.push_back(a.name());
  }
  return out;
}

size_t NodeContext::num_outputs() const { return static_cast<size_t>(node_.output_size()); }
bool NodeContext::output_used(size_t i) const { return i < num_outputs() && !node_.output(static_cast<int>(i)).empty(); }

void NodeContext::set(size_t i, ValueId value) {
  if (i >= results_.size()) unsupported("has " + std::to_string(results_.size()) + " outputs, the converter made more");
  results_[i] = Slot{value, std::nullopt};
}

void NodeContext::set_data(size_t i, Tensor data) {
  if (i >= results_.size()) unsupported("has " + std::to_string(results_.size()) + " outputs, the converter made more");
  results_[i] = Slot{kNoValue, std::move(data)};
}

ValueId NodeContext::constant(const Tensor& t) {
  std::string name = node_.name().empty() ? node_.op_type() : node_.name();
  name = "onnx_const_" + name + "_" + std::to_string(env_.counter++);
  return constant_value(env_.b, t, name);
}

Tensor i64_tensor(const std::vector<int64_t>& values, Shape shape) { return Tensor::from_i64(std::move(shape), values); }
Tensor f32_tensor(const std::vector<float>& values, Shape shape) { return Tensor::from_f32(std::move(shape), values); }

ValueId minimum(GraphBuilder& b, ValueId a, ValueId c) {
  const ValueId larger = b.op(OpKind::Maximum, {a, c});
  if (!is_floating(b.type(a).dtype)) return b.sub(b.add(a, c), larger);  // integers: exact, and neg is for floats
  return b.op(OpKind::Neg, {b.op(OpKind::Maximum, {b.op(OpKind::Neg, {a}), b.op(OpKind::Neg, {c})})});
}

ValueId pad_axis(GraphBuilder& b, ValueId x, int64_t axis, int64_t before, int64_t after, double value) {
  const int64_t dim = b.shape(x)[static_cast<size_t>(axis)];
  if (before < 0 || after < 0) {
    x = b.slice(x, axis, std::max<int64_t>(0, -before), dim - std::max<int64_t>(0, -after));
    before = std::max<int64_t>(0, before);
    after = std::max<int64_t>(0, after);
  }
  if (before == 0 && after == 0) return x;
  std::vector<ValueId> parts;
  auto filler = [&](int64_t n) {
    Shape s = b.shape(x);
    s[static_cast<size_t>(axis)] = n;
    return b.constant(value, s, b.type(x).dtype);
  };
  if (before > 0) parts.push_back(filler(before));
  parts.push_back(x);
  if (after > 0) parts.push_back(filler(after));
  return b.concat(parts, axis);
}

ValueId along_last_axis(GraphBuilder& b, ValueId x, int64_t axis, const std::function<ValueId(ValueId)>& f) {
  const auto rank = static_cast<int64_t>(b.shape(x).size());
  if (axis == rank - 1) return f(x);
  std::vector<int64_t> perm;
  for (int64_t d = 0; d < rank; ++d) {
    if (d != axis) perm.push_back(d);
  }
  perm.push_back(axis);
  std::vector<int64_t> inverse(static_cast<size_t>(rank));
  for (int64_t d = 0; d < rank; ++d) inverse[static_cast<size_t>(perm[static_cast<size_t>(d)])] = d;
  return b.transpose(f(b.transpose(x, perm)), inverse);
}

}  // namespace meshtest::frontends::onnx_import
