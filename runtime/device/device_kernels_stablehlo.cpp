// Device kernels of the StableHLO elementwise ops (abs .. iota). Floats are
// bf16 on the chip: loaded to f32, computed in f32, rounded once to bf16
// (store_bf16, so the bf16_truncation mutant applies); the bit-level ops
// (next_after, reduce_precision, bitcast_convert) act on the bf16 bits the
// chip holds. Integers are exact and wrap; bool is 0/1. The per-element edge
// cases are the spec's, from core/elementwise_scalar.h.
#include <cmath>
#include <cstring>
#include <string>

#include "core/dtype_convert.h"
#include "core/dtype_dispatch.h"
#include "core/elementwise_scalar.h"
#include "core/error.h"
#include "runtime/device/device_kernels.h"

namespace meshtest::runtime::device_kernels {

namespace {

constexpr int64_t kGrain = 16384;  // elements per parallel task

[[noreturn]] void unsupported(OpKind kind, DType dtype) {
  throw RuntimeError(std::string(op_name(kind)) + " does not apply to dtype " + std::string(dtype_name(dtype)) +
                     " on the device");
}

// Element offsets of each operand for every output element (numpy broadcast).
class BroadcastIndex {
 public:
  BroadcastIndex(const Shape& out, std::vector<const Tensor*> operands) : out_(out) {
    for (const Tensor* t : operands) {
      const std::vector<int64_t> own = shape_strides(t->shape());
      const size_t lead = out.size() - t->shape().size();
      std::vector<int64_t> s(out.size(), 0);
      for (size_t i = lead; i < out.size(); ++i) s[i] = t->shape()[i - lead] == 1 ? 0 : own[i - lead];
      strides_.push_back(std::move(s));
    }
  }
  int64_t offset(size_t operand, int64_t flat) const {
    int64_t off = 0;
    for (size_t d = out_.size(); d-- > 0;) {
      off += (flat % out_[d]) * strides_[operand][d];
      flat /= out_[d];
    }
    return off;
  }

 private:
  Shape out_;
  std::vector<std::vector<int64_t>> strides_;
};

// out[i] = fn(operands at i...) with each operand's own stored type.
template <class O, class A, class F>
void map1(const Tensor& a, Tensor& out, F fn) {
  const A* pa = static_cast<const A*>(a.raw_data());
  O* o = static_cast<O*>(out.raw_data());
  parallel_ranges(out.numel(), kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) o[i] = fn(pa[i]);
  });
}
template <class O, class A, class B, class F>
void map2(const Tensor& a, const Tensor& b, Tensor& out, F fn) {
  const BroadcastIndex index(out.shape(), {&a, &b});
  const A* pa = static_cast<const A*>(a.raw_data());
  const B* pb = static_cast<const B*>(b.raw_data());
  O* o = static_cast<O*>(out.raw_data());
  parallel_ranges(out.numel(), kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) o[i] = fn(pa[index.offset(0, i)], pb[index.offset(1, i)]);
  });
}
template <class O, class A, class B, class C, class F>
void map3(const Tensor& a, const Tensor& b, const Tensor& c, Tensor& out, F fn) {
  const BroadcastIndex index(out.shape(), {&a, &b, &c});
  const A* pa = static_cast<const A*>(a.raw_data());
  const B* pb = static_cast<const B*>(b.raw_data());
  const C* pc = static_cast<const C*>(c.raw_data());
  O* o = static_cast<O*>(out.raw_data());
  parallel_ranges(out.numel(), kGrain, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) o[i] = fn(pa[index.offset(0, i)], pb[index.offset(1, i)], pc[index.offset(2, i)]);
  });
}

// bf16 in, fn in f32, bf16 out.
template <class Fn>
void float_map(OpKind kind, const Tensor& x, Tensor& out, Fn fn) {
  if (x.dtype() != DType::BF16) unsupported(kind, x.dtype());
  map1<uint16_t, uint16_t>(x, out, [&](uint16_t v) { return store_bf16(static_cast<float>(fn(load_bf16(v)))); });
}
template <class Fn>
void float_zip(OpKind kind, const Tensor& a, const Tensor& b, Tensor& out, Fn fn) {
  if (a.dtype() != DType::BF16) unsupported(kind, a.dtype());
  map2<uint16_t, uint16_t, uint16_t>(
      a, b, out, [&](uint16_t x, uint16_t y) { return store_bf16(static_cast<float>(fn(load_bf16(x), load_bf16(y)))); });
}

// fn on the stored integers; bool (0/1) too when with_bool.
template <bool with_bool, class Fn>
void integer_map(OpKind kind, const Tensor& x, Tensor& out, Fn fn) {
  if (x.dtype() == DType::Bool) {
    if constexpr (with_bool) {
      map1<uint8_t, uint8_t>(x, out, [&](uint8_t v) { return static_cast<uint8_t>(fn(v) & 1); });
      return;
    }
    unsupported(kind, x.dtype());
  }
  visit_integer_dtype(x.dtype(), op_name(kind).data(), [&](auto tag) {
    using S = typename decltype(tag)::storage;
    map1<S, S>(x, out, [&](S v) { return static_cast<S>(fn(v)); });
  });
}
template <class Fn>
void integer_zip(OpKind kind, const Tensor& a, const Tensor& b, Tensor& out, Fn fn) {
  if (a.dtype() == DType::Bool) {
    map2<uint8_t, uint8_t, uint8_t>(a, b, out, [&](uint8_t x, uint8_t y) { return static_cast<uint8_t>(fn(x, y)); });
    return;
  }
  visit_integer_dtype(a.dtype(), op_name(kind).data(), [&](auto tag) {
    using S = typename decltype(tag)::storage;
    map2<S, S, S>(a, b, out, [&](S x, S y) { return static_cast<S>(fn(x, y)); });
  });
}

template <class FloatFn, class IntFn>
void numeric_map(OpKind kind, const Tensor& x, Tensor& out, FloatFn float_fn, IntFn int_fn) {
  if (is_floating(x.dtype())) {
    float_map(kind, x, out, float_fn);
  } else {
    integer_map<false>(kind, x, out, int_fn);
  }
}
template <class FloatFn, class IntFn>
void numeric_zip(OpKind kind, const Tensor& a, const Tensor& b, Tensor& out, FloatFn float_fn, IntFn int_fn) {
  if (is_floating(a.dtype())) {
    float_zip(kind, a, b, out, float_fn);
  } else {
    integer_zip(kind, a, b, out, int_fn);
  }
}

constexpr scalar::BinaryFormat<uint16_t> kBf16Format{8, 7};

}  // namespace

void stablehlo_unary(OpKind kind, const Tensor& x, Tensor& out) {
  using K = OpKind;
  switch (kind) {
    case K::Abs:
      return numeric_map(kind, x, out, [](float v) { return std::fabs(v); }, [](auto v) { return scalar::wrap_abs(v); });
    case K::Sign:
      return numeric_map(kind, x, out, [](float v) { return scalar::sign(v); }, [](auto v) { return scalar::sign(v); });
    case K::Floor: return float_map(kind, x, out, [](float v) { return std::floor(v); });
    case K::Ceil: return float_map(kind, x, out, [](float v) { return std::ceil(v); });
    case K::RoundAfz: return float_map(kind, x, out, [](float v) { return scalar::round_afz(v); });
    case K::RoundEven: return float_map(kind, x, out, [](float v) { return scalar::round_even(v); });
    case K::Expm1: return float_map(kind, x, out, [](float v) { return std::expm1(v); });
    case K::Log1p: return float_map(kind, x, out, [](float v) { return std::log1p(v); });
    case K::Cbrt: return float_map(kind, x, out, [](float v) { return std::cbrt(v); });
    case K::Tan: return float_map(kind, x, out, [](float v) { return std::tan(v); });
    case K::Sinh: return float_map(kind, x, out, [](float v) { return std::sinh(v); });
    case K::Cosh: return float_map(kind, x, out, [](float v) { return std::cosh(v); });
    case K::Asin: return float_map(kind, x, out, [](float v) { return std::asin(v); });
    case K::Acos: return float_map(kind, x, out, [](float v) { return std::acos(v); });
    case K::Atan: return float_map(kind, x, out, [](float v) { return std::atan(v); });
    case K::Asinh: return float_map(kind, x, out, [](float v) { return std::asinh(v); });
    case K::Acosh: return float_map(kind, x, out, [](float v) { return std::acosh(v); });
    case K::Atanh: return float_map(kind, x, out, [](float v) { return std::atanh(v); });
    case K::Erfc: return float_map(kind, x, out, [](float v) { return std::erfc(v); });
    case K::ErfInv: return float_map(kind, x, out, [](float v) { return scalar::erf_inv(v); });
    case K::Lgamma: return float_map(kind, x, out, [](float v) { return std::lgamma(v); });
    case K::Digamma: return float_map(kind, x, out, [](float v) { return scalar::digamma(v); });
    case K::Not:
      if (x.dtype() == DType::Bool) return integer_map<true>(kind, x, out, [](auto v) { return v == 0; });
      return integer_map<false>(kind, x, out, [](auto v) { return ~v; });
    case K::Popcnt: return integer_map<false>(kind, x, out, [](auto v) { return scalar::popcnt(v); });
    case K::Clz: return integer_map<false>(kind, x, out, [](auto v) { return scalar::clz(v); });
    case K::IsFinite:
      if (x.dtype() != DType::BF16) unsupported(kind, x.dtype());
      return map1<uint8_t, uint16_t>(x, out, [](uint16_t v) { return std::isfinite(load_bf16(v)) ? 1 : 0; });
    default:
      break;
  }
  throw RuntimeError("not a StableHLO unary op: " + std::string(op_name(kind)));
}

void stablehlo_binary(OpKind kind, const Tensor& a, const Tensor& b, Tensor& out) {
  using K = OpKind;
  if (a.dtype() != b.dtype()) {
    throw RuntimeError(std::string(op_name(kind)) + ": operand dtypes " + std::string(dtype_name(a.dtype())) + " and " +
                       std::string(dtype_name(b.dtype())) + " differ");
  }
  switch (kind) {
    case K::Minimum:
      return numeric_zip(kind, a, b, out, [](float x, float y) { return scalar::float_min(x, y); },
                         [](auto x, auto y) { return x < y ? x : y; });
    case K::Power:
      return numeric_zip(kind, a, b, out, [](float x, float y) { return std::pow(x, y); },
                         [](auto x, auto y) { return scalar::power_int(x, y); });
    case K::Remainder:
      return numeric_zip(kind, a, b, out, [](float x, float y) { return std::fmod(x, y); },
                         [](auto x, auto y) { return scalar::remainder_int(x, y); });
    case K::Atan2: return float_zip(kind, a, b, out, [](float x, float y) { return std::atan2(x, y); });
    case K::And: return integer_zip(kind, a, b, out, [](auto x, auto y) { return x & y; });
    case K::Or: return integer_zip(kind, a, b, out, [](auto x, auto y) { return x | y; });
    case K::Xor: return integer_zip(kind, a, b, out, [](auto x, auto y) { return x ^ y; });
    case K::ShiftLeft: return integer_zip(kind, a, b, out, [](auto x, auto y) { return scalar::shift_left(x, y); });
    case K::ShiftRightArithmetic:
      return integer_zip(kind, a, b, out, [](auto x, auto y) { return scalar::shift_right_arithmetic(x, y); });
    case K::ShiftRightLogical:
      return integer_zip(kind, a, b, out, [](auto x, auto y) { return scalar::shift_right_logical(x, y); });
    case K::NextAfter:
      if (a.dtype() != DType::BF16) unsupported(kind, a.dtype());
      return map2<uint16_t, uint16_t, uint16_t>(a, b, out, [](uint16_t x, uint16_t y) {
        return scalar::next_after_bits(kBf16Format, x, y, load_bf16(x), load_bf16(y));
      });
    default:
      break;
  }
  throw RuntimeError("not a StableHLO binary op: " + std::string(op_name(kind)));
}

void integer_arithmetic(OpKind kind, bool truncating_division, const Tensor& a, const Tensor& b, Tensor& out) {
  using K = OpKind;
  visit_integer_dtype(a.dtype(), op_name(kind).data(), [&](auto tag) {
    using S = typename decltype(tag)::storage;
    switch (kind) {
      case K::Add: return map2<S, S, S>(a, b, out, [](S x, S y) { return scalar::wrap_add(x, y); });
      case K::Sub: return map2<S, S, S>(a, b, out, [](S x, S y) { return scalar::wrap_sub(x, y); });
      case K::Mul: return map2<S, S, S>(a, b, out, [](S x, S y) { return scalar::wrap_mul(x, y); });
      case K::Maximum: return map2<S, S, S>(a, b, out, [](S x, S y) { return x > y ? x : y; });
      case K::Div:
        if (truncating_division) return map2<S, S, S>(a, b, out, [](S x, S y) { return scalar::div_truncate(x, y); });
        return map2<S, S, S>(a, b, out, [](S x, S y) {
          if (y == 0) throw RuntimeError("integer division by zero");
          return scalar::div_floor(x, y);
        });
      default: break;
    }
    throw RuntimeError("not an integer binary op: " + std::string(op_name(kind)));
  });
}

void integer_neg(const Tensor& x, Tensor& out) {
  visit_integer_dtype(x.dtype(), "neg", [&](auto tag) {
    using S = typename decltype(tag)::storage;
    map1<S, S>(x, out, [](S v) { return scalar::wrap_neg(v); });
  });
}

void compare(const Tensor& a, const Tensor& b, const Attrs& attrs, Tensor& out) {
  const std::string text = attrs.get_string("direction");
  scalar::CompareDirection direction;
  if (!scalar::parse_compare_direction(text, direction)) throw RuntimeError("compare: unknown direction '" + text + "'");
  const bool total_order = attrs.get_string("compare_type", "NOTYPE") == "TOTALORDER";
  if (a.dtype() == DType::BF16) {
    map2<uint8_t, uint16_t, uint16_t>(a, b, out, [&](uint16_t x, uint16_t y) -> uint8_t {
      const double vx = load_bf16(x);
      const double vy = load_bf16(y);
      if (total_order) return scalar::compare(direction, scalar::total_order_key(vx), scalar::total_order_key(vy));
      return scalar::compare(direction, vx, vy);
    });
    return;
  }
  if (a.dtype() == DType::Bool) {
    map2<uint8_t, uint8_t, uint8_t>(a, b, out, [&](uint8_t x, uint8_t y) -> uint8_t { return scalar::compare(direction, x, y); });
    return;
  }
  visit_integer_dtype(a.dtype(), "compare", [&](auto tag) {
    using S = typename decltype(tag)::storage;
    map2<uint8_t, S, S>(a, b, out, [&](S x, S y) -> uint8_t { return scalar::compare(direction, x, y); });
  });
}

void select(const Tensor& pred, const Tensor& on_true, const Tensor& on_false, Tensor& out) {
  if (pred.dtype() != DType::Bool) unsupported(OpKind::Select, pred.dtype());
  visit_dtype(out.dtype(), [&](auto tag) {
    using S = typename decltype(tag)::storage;
    map3<S, uint8_t, S, S>(pred, on_true, on_false, out, [](uint8_t p, S x, S y) { return p ? x : y; });
  });
}

void clamp(const Tensor& lo, const Tensor& x, const Tensor& hi, Tensor& out) {
  if (x.dtype() == DType::BF16) {
    map3<uint16_t, uint16_t, uint16_t, uint16_t>(lo, x, hi, out, [](uint16_t l, uint16_t v, uint16_t h) {
      return store_bf16(scalar::float_min(scalar::float_max(load_bf16(v), load_bf16(l)), load_bf16(h)));
    });
    return;
  }
  visit_integer_dtype(x.dtype(), "clamp", [&](auto tag) {
    using S = typename decltype(tag)::storage;
    map3<S, S, S, S>(lo, x, hi, out, [](S l, S v, S h) {
      const S low = v < l ? l : v;
      return low > h ? h : low;
    });
  });
}

// The chip's own bits: floats are bf16 there, so a 32- or 64-bit float
// operand is its bf16 value widened to that width (a 16-bit one: bf16's own
// bits), and a float result of 32 or 64 bits is rounded to the bf16 buffer.
void bitcast_convert(const Tensor& x, const Attrs& attrs, Tensor& out) {
  Tensor bits(parse_dtype(attrs.get_string("dtype")), attrs.get_ints("shape"));
  const int64_t count = x.numel();
  const int64_t total_bits = static_cast<int64_t>(bits.nbytes()) * 8;
  const int64_t operand_bits = count == 0 ? 0 : total_bits / count;
  Tensor source = x;
  if (x.dtype() == DType::BF16 && operand_bits == 32) source = x.to(DType::F32);
  if (x.dtype() == DType::BF16 && operand_bits == 64) source = x.to(DType::F64);
  if (source.nbytes() != bits.nbytes()) {
    throw RuntimeError("bitcast_convert: " + std::string(dtype_name(source.dtype())) +
                       shape_to_string(source.shape()) + " does not fill " + std::string(dtype_name(bits.dtype())) +
                       shape_to_string(bits.shape()));
  }
  if (bits.nbytes() > 0) std::memcpy(bits.raw_data(), source.raw_data(), bits.nbytes());
  const Tensor result = bits.to(out.dtype());
  if (result.nbytes() > 0) std::memcpy(out.raw_data(), result.raw_data(), result.nbytes());
}

void reduce_precision(const Tensor& x, const Attrs& attrs, Tensor& out) {
  if (x.dtype() != DType::BF16) unsupported(OpKind::ReducePrecision, x.dtype());
  const int exponent_bits = static_cast<int>(attrs.get_int("exponent_bits"));
  const int mantissa_bits = static_cast<int>(attrs.get_int("mantissa_bits"));
  map1<uint16_t, uint16_t>(x, out, [&](uint16_t v) {
    return scalar::reduce_precision_bits(kBf16Format, v, exponent_bits, mantissa_bits);
  });
}

void iota(const Attrs& attrs, Tensor& out) {
  const auto dimension = static_cast<size_t>(attrs.get_int("dimension"));
  if (dimension >= out.shape().size()) throw RuntimeError("iota: dimension out of range");
  const int64_t stride = shape_strides(out.shape())[dimension];
  const int64_t extent = out.shape()[dimension];
  visit_dtype(out.dtype(), [&](auto tag) {
    using Tag = decltype(tag);
    auto* o = storage<Tag>(out);
    for (int64_t i = 0; i < out.numel(); ++i) o[i] = convert_element<Tag, DTypeTag<DType::I64>>((i / stride) % extent);
  });
}

}  // namespace meshtest::runtime::device_kernels
