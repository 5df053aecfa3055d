// Converters of ONNX's elementwise ops: activations, arithmetic with numpy
// broadcasting, Clip/HardSigmoid/HardSwish/Pow/Where as compositions of IR
// ops, Cast, Softmax, and comparisons (IR ops on floats, import-time data otherwise).
#include <onnx/onnx_pb.h>

#include <cmath>

#include "frontends/onnx/node_context.h"
#include "frontends/onnx/onnx_tensor.h"

namespace meshtest::frontends::onnx_import {

namespace {

Converter unary(OpKind kind) {
  return [kind](NodeContext& n) {
    if (n.opset() < 6) n.attr_ints("consumed_inputs", {});
    n.set(0, n.b().op(kind, {n.in(0)}));
  };
}

// Operand `i` of a binary op; before opset 7 with broadcast=1 its dims line
// up with the first operand's from `axis` (default: the trailing dims).
ValueId operand(NodeContext& n, size_t i) {
  if (n.opset() >= 7 || i == 0) return n.in(i);
  const bool broadcast = n.attr_int("broadcast", 0) != 0;
  const int64_t rank = n.rank(0);
  const int64_t axis = n.attr_int("axis", rank - n.rank(i));
  if (!broadcast || axis + n.rank(i) == rank) return n.in(i);
  Shape s = n.shape(i);
  s.resize(static_cast<size_t>(rank - normalize_axis(axis, rank)), 1);
  return n.b().reshape(n.in(i), s);
}

// A scalar constant of the dtype of input `i`.
ValueId scalar(NodeContext& n, double value, size_t like = 0) { return n.b().constant(value, {}, n.type(like).dtype); }

Converter variadic(OpKind kind) {
  return [kind](NodeContext& n) {
    ValueId acc = operand(n, 0);
    for (size_t i = 1; i < n.num_inputs(); ++i) acc = n.b().op(kind, {acc, operand(n, i)});
    n.set(0, acc);
  };
}

void min_op(NodeContext& n) {
  ValueId acc = n.in(0);
  for (size_t i = 1; i < n.num_inputs(); ++i) acc = minimum(n.b(), acc, n.in(i));
  n.set(0, acc);
}

void mean_op(NodeContext& n) {
  ValueId acc = n.in(0);
  for (size_t i = 1; i < n.num_inputs(); ++i) acc = n.b().add(acc, n.in(i));
  n.set(0, n.b().div(acc, scalar(n, static_cast<double>(n.num_inputs()))));
}

// Bound `i` of Clip: an attribute before opset 11, an optional input since.
std::optional<ValueId> clip_bound(NodeContext& n, size_t input, const std::string& attr, double none) {
  if (n.opset() < 11) {
    const double v = n.attr_float(attr, none);
    if (v == none) return std::nullopt;
    return scalar(n, v);
  }
  if (!n.has(input)) return std::nullopt;
  return n.in(input);
}

void clip(NodeContext& n) {
  ValueId y = n.in(0);
  if (auto lo = clip_bound(n, 1, "min", -HUGE_VAL)) y = n.b().op(OpKind::Maximum, {y, *lo});
  if (auto hi = clip_bound(n, 2, "max", HUGE_VAL)) y = minimum(n.b(), y, *hi);
  n.set(0, y);
}

// max(0, min(1, alpha * x + beta))
ValueId hard_sigmoid_of(NodeContext& n, ValueId x, double alpha, double beta) {
  GraphBuilder& b = n.b();
  const ValueId lin = b.add(b.mul(x, scalar(n, alpha)), scalar(n, beta));
  return b.op(OpKind::Maximum, {minimum(b, lin, scalar(n, 1.0)), scalar(n, 0.0)});
}

void pow_op(NodeContext& n) {
  GraphBuilder& b = n.b();
  const ValueId x = n.in(0);
  const Tensor* e = n.data(1);
  if (e != nullptr && e->numel() == 1) {
    const double p = e->element_as_double(0);
    if (p == 1.0) return n.set(0, x);
    if (p == 2.0) return n.set(0, b.mul(x, x));
    if (p == 3.0) return n.set(0, b.mul(b.mul(x, x), x));
    if (p == 0.5) return n.set(0, b.op(OpKind::Sqrt, {x}));
    if (p == -0.5) return n.set(0, b.op(OpKind::Rsqrt, {x}));
    if (p == -1.0) return n.set(0, b.div(scalar(n, 1.0), x));
  }
  ValueId p = n.in(1);
  if (b.type(p).dtype != b.type(x).dtype) p = b.op(OpKind::Cast, {p}, {{"dtype", std::string(dtype_name(b.type(x).dtype))}});
  if (!is_floating(b.type(x).dtype)) n.unsupported("integer Pow with a non-constant exponent");
  // x^p = exp(p * log(x)), for x > 0 (the general case IR has no op for).
  n.set(0, b.op(OpKind::Exp, {b.mul(p, b.op(OpKind::Log, {x}))}));
}

void where_op(NodeContext& n) {
  GraphBuilder& b = n.b();
  const ValueId x = n.in(1);
  const ValueId y = n.in(2);
  const ValueId m = b.op(OpKind::Cast, {n.in(0)}, {{"dtype", std::string(dtype_name(b.type(x).dtype))}});
  // x * m + y * (1 - m): exact for finite x and y.
  n.set(0, b.add(b.mul(x, m), b.mul(y, b.sub(scalar(n, 1.0, 1), m))));
}

void cast(NodeContext& n) {
  const DType to = dtype_of_onnx(static_cast<int>(n.attr_int("to", onnx::TensorProto::FLOAT)));
  n.attr_string("saturate", "");
  if (to == n.type(0).dtype) return n.set(0, n.in(0));
  n.set(0, n.b().op(OpKind::Cast, {n.in(0)}, {{"dtype", std::string(dtype_name(to))}}));
}

void softmax(NodeContext& n, bool log) {
  GraphBuilder& b = n.b();
  const int64_t rank = n.rank(0);
  const int64_t axis = normalize_axis(n.attr_int("axis", n.opset() < 13 ? 1 : -1), rank);
  ValueId x = n.in(0);
  const Shape shape = n.shape(0);
  const bool coerce = n.opset() < 13 && axis != rank - 1;  // softmax over the flattened dims from axis
  if (coerce) {
    int64_t outer = 1;
    for (int64_t d = 0; d < axis; ++d) outer *= shape[static_cast<size_t>(d)];
    x = b.reshape(x, {outer, -1});
  }
  ValueId y = b.softmax(x, coerce ? -1 : axis);
  if (log) y = b.op(OpKind::Log, {y});
  n.set(0, coerce ? b.reshape(y, shape) : y);
}

// Numpy-broadcast elementwise function of known tensors.
Tensor host_binary(const Tensor& a, const Tensor& c, DType out_dtype, const std::function<double(double, double)>& f) {
  const Shape out_shape = broadcast_shapes(a.shape(), c.shape());
  if (shape_numel(out_shape) > (int64_t{1} << 20)) throw Unsupported("a result of " + shape_to_string(out_shape) + " at import time");
  Tensor out(out_dtype, out_shape);
  const auto rank = out_shape.size();
  auto offset = [&](const Tensor& t, int64_t flat) {
    int64_t off = 0;
    int64_t stride = 1;
    int64_t rest = flat;
    const Shape& s = t.shape();
    for (size_t k = 0; k < rank; ++k) {
      const size_t d = rank - 1 - k;
      const int64_t idx = rest % out_shape[d];
      rest /= out_shape[d];
      if (k < s.size()) {
        const int64_t extent = s[s.size() - 1 - k];
        off += (extent == 1 ? 0 : idx) * stride;
        stride *= extent;
      }
    }
    return off;
  };
  for (int64_t i = 0; i < out.numel(); ++i) {
    const double v = f(a.element_as_double(offset(a, i)), c.element_as_double(offset(c, i)));
    switch (out_dtype) {
      case DType::Bool: out.data<uint8_t>()[i] = v != 0 ? 1 : 0; break;
      case DType::I64: out.data<int64_t>()[i] = static_cast<int64_t>(v); break;
      case DType::I32: out.data<int32_t>()[i] = static_cast<int32_t>(v); break;
      default: out.data<float>()[i] = static_cast<float>(v); break;
    }
  }
  return out;
}

// A comparison or logic op: IR ops for float operands that are graph values
// (greater), import-time data otherwise.
Converter compare(std::function<double(double, double)> f, bool swap_for_greater, bool greater_ir) {
  return [f, swap_for_greater, greater_ir](NodeContext& n) {
    if (n.data(0) != nullptr && n.data(1) != nullptr) return n.set_data(0, host_binary(*n.data(0), *n.data(1), DType::Bool, f));
    if (!greater_ir || !is_floating(n.type(0).dtype)) n.unsupported("needs operands known at import time");
    GraphBuilder& b = n.b();
    const ValueId a = n.in(swap_for_greater ? 1 : 0);
    const ValueId c = n.in(swap_for_greater ? 0 : 1);
    n.set(0, b.op(OpKind::Cast, {b.op(OpKind::Greater, {a, c})}, {{"dtype", "bool"}}));
  };
}

void not_op(NodeContext& n) {
  const Tensor* x = n.data(0);
  if (x == nullptr) n.unsupported("needs its operand known at import time");
  n.set_data(0, host_binary(*x, Tensor::from_i64({}, {0}), DType::Bool, [](double a, double) { return a == 0; }));
}

}  // namespace

void add_elementwise_converters(ConverterTable& t) {
  const std::pair<const char*, OpKind> direct[] = {
      {"Relu", OpKind::Relu}, {"Sigmoid", OpKind::Sigmoid}, {"Tanh", OpKind::Tanh}, {"Exp", OpKind::Exp},
      {"Log", OpKind::Log},   {"Sqrt", OpKind::Sqrt},       {"Neg", OpKind::Neg},   {"Erf", OpKind::Erf},
      {"Sin", OpKind::Sin},   {"Cos", OpKind::Cos}};
  for (const auto& [name, kind] : direct) t[name] = unary(kind);
  t["Add"] = variadic(OpKind::Add);
  t["Sub"] = variadic(OpKind::Sub);
  t["Mul"] = variadic(OpKind::Mul);
  t["Div"] = variadic(OpKind::Div);
  t["Max"] = variadic(OpKind::Maximum);
  t["Sum"] = variadic(OpKind::Add);
  t["Min"] = min_op;
  t["Mean"] = mean_op;
  t["Pow"] = pow_op;
  t["Clip"] = clip;
  t["Where"] = where_op;
  t["Cast"] = cast;
  t["Softmax"] = [](NodeContext& n) { softmax(n, false); };
  t["LogSoftmax"] = [](NodeContext& n) { softmax(n, true); };
  t["Abs"] = [](NodeContext& n) { n.set(0, n.b().op(OpKind::Maximum, {n.in(0), n.b().op(OpKind::Neg, {n.in(0)})})); };
  t["Neg"] = [](NodeContext& n) {  // integers: known data only (the IR's neg is for floats)
    const Tensor* x = n.data(0);
    if (x == nullptr || is_floating(x->dtype())) return unary(OpKind::Neg)(n);
    n.set_data(0, host_binary(*x, Tensor::from_i64({}, {0}), x->dtype(), [](double a, double) { return -a; }));
  };
  t["Reciprocal"] = [](NodeContext& n) { n.set(0, n.b().div(scalar(n, 1.0), n.in(0))); };
  t["Softplus"] = [](NodeContext& n) {
    n.set(0, n.b().op(OpKind::Log, {n.b().add(n.b().op(OpKind::Exp, {n.in(0)}), scalar(n, 1.0))}));
  };
  t["LeakyRelu"] = [](NodeContext& n) {
    const double alpha = n.attr_float("alpha", 0.01);
    if (alpha > 1.0) n.unsupported("alpha > 1");
    n.set(0, n.b().op(OpKind::Maximum, {n.in(0), n.b().mul(n.in(0), scalar(n, alpha))}));
  };
  t["HardSigmoid"] = [](NodeContext& n) {
    const double alpha = n.attr_float("alpha", 0.2);
    n.set(0, hard_sigmoid_of(n, n.in(0), alpha, n.attr_float("beta", 0.5)));
  };
  t["HardSwish"] = [](NodeContext& n) { n.set(0, n.b().mul(n.in(0), hard_sigmoid_of(n, n.in(0), 1.0 / 6, 0.5))); };
  t["Identity"] = [](NodeContext& n) { n.set(0, n.in(0)); };
  t["Dropout"] = [](NodeContext& n) {  // inference: the identity
    n.attr_float("ratio", 0.5);
    n.attr_int("seed", 0);
    if (n.opset() < 7) n.attr_int("is_test", 1);
    if (n.has(2) && (n.data(2) == nullptr || n.data(2)->element_as_double(0) != 0)) n.unsupported("training_mode");
    if (n.output_used(1)) n.unsupported("the mask output");
    n.set(0, n.in(0));
  };
  t["Equal"] = compare([](double a, double c) { return a == c; }, false, false);
  t["Greater"] = compare([](double a, double c) { return a > c; }, false, true);
  t["Less"] = compare([](double a, double c) { return a < c; }, true, true);
  t["And"] = compare([](double a, double c) { return a != 0 && c != 0; }, false, false);
  t["Or"] = compare([](double a, double c) { return a != 0 || c != 0; }, false, false);
  t["Not"] = not_op;
}

}  // namespace meshtest::frontends::onnx_import
